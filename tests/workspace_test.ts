/**
 * Shaping the workspace over stdio against a real tmux: creating sessions,
 * windows and panes, arranging and renaming them. Every result is checked
 * against what tmux itself reports afterwards.
 *
 * @module
 */

import type { z } from "zod";
import type { action, paneView, sessionView, windowView } from "../core/schemas.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  ALL_TOOLSETS,
  eventually,
  serverTest,
  type ServerTestBody,
  startServer,
  TmuxFixture,
  tmuxVersion,
  TRANSPORTS,
} from "./harness.ts";
import { parseTmuxVersion } from "../tmux/version.ts";
import { layoutChecksum } from "../tools/select_layout.ts";

/**
 * True for a tmux before 3.4 (a `tmux -V` line); a build without a number
 * counts as newest. The product reads back what tmux stored instead of
 * deciding by version, so only these tests need to know which it is.
 */
function before34(version: string): boolean {
  const parsed = parseTmuxVersion(version);
  return parsed !== null && (parsed.major < 3 || (parsed.major === 3 && parsed.minor < 4));
}

/**
 * tmux 3.3 stores `$` before a letter, `_` or `{` as `\$` in a session name
 * and a renamed window's name (its vis(3) use escaped `$` always); 3.4+
 * stores it as given.
 */
const escapesDollarInNames = before34;

/**
 * tmux 3.3 keeps a pane's previous title when the new one holds a character
 * it gives no width (a C1 control, U+2028, an unassigned code point); 3.4+
 * stores the title as given.
 */
const refusesTitlesWithoutWidth = before34;

/** A server test with every toolset on, in the control transport unless told otherwise. */
function workspaceTest(
  name: string,
  body: ServerTestBody,
  transports: typeof TRANSPORTS[number][] = ["control"],
) {
  serverTest(name, body, { args: ALL_TOOLSETS, transports });
}

type Pane = z.infer<typeof paneView>;
type Win = z.infer<typeof windowView>;
type Sess = z.infer<typeof sessionView>;
type Action = z.infer<typeof action>;

/** One tmux format value of `target`, read by the test (the target is known to exist). */
function show(fx: TmuxFixture, target: string, format: string): Promise<string> {
  return fx.tmux("display-message", "-p", "-t", target, format);
}

/** Names that must reach tmux as text: formats, a shell job, spaces, quotes, Unicode. */
function trickyNames(dir: string) {
  return [
    `#(touch ${dir}/expanded)`,
    "#{pane_id} and #{session_name}",
    `it's "quoted" ## ; semi`,
    "Ünïcödé 名前 🚀",
    // tmux copies a run of # before [ (a style) as it is.
    "#[dev] a##[b] c#d",
  ];
}

async function assertNoFile(path: string): Promise<void> {
  try {
    await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  throw new Error(`${path} exists: a #(...) in a name was run by tmux`);
}

workspaceTest("create_session keeps names literal and returns what tmux stored", async (fx, s) => {
  const names = trickyNames(fx.dir);
  for (const [i, name] of names.entries()) {
    const r = await s.ok("create_session", {
      name,
      windowName: names[(i + 1) % names.length],
      width: 90,
      height: 20,
    });
    assertEquals(r.session.name, name);
    assertEquals(r.window.name, names[(i + 1) % names.length]);
    assertEquals(await show(fx, r.session.sessionId, "#{session_name}"), name);
    assertEquals(await show(fx, r.window.windowId, "#{window_name}"), r.window.name);
    assertEquals(r.window.sessionId, r.session.sessionId);
    assertEquals(r.pane.windowId, r.window.windowId);
    assertEquals(r.session.activePaneId, r.pane.paneId);
    assertEquals([r.window.width, r.window.height], [90, 20]);
    assertEquals(await show(fx, r.pane.paneId, "#{pane_width}x#{pane_height}"), "90x20");
  }
  await assertNoFile(`${fx.dir}/expanded`);
  // tmux stores ':' and '.' as '_' in session names: the result says what it stored.
  const rewritten = await s.ok("create_session", { name: "api:v1.2" });
  assertEquals(rewritten.session.name, "api_v1_2");
  assertEquals(await show(fx, rewritten.session.sessionId, "#{session_name}"), "api_v1_2");
  const duplicate = await s.fails("create_session", { name: "api_v1_2" });
  assertStringIncludes(duplicate, "already exists");
  assert(!duplicate.includes("api_v1_2"), "the rejected name is not echoed");
  const numbered = await s.ok("create_session", {});
  assertEquals(
    await show(fx, numbered.session.sessionId, "#{session_name}"),
    numbered.session.name,
  );
});

workspaceTest("environment reaches only the new process and is never echoed", async (fx, s) => {
  const secret = `s3cr3t-${crypto.randomUUID()} #{pane_id} $HOME`;
  const created = await s.call("create_session", {
    name: "envs",
    environment: { MCP_SECRET_VALUE: secret },
  });
  assert(!created.isError, JSON.stringify(created.content));
  assert(!JSON.stringify(created).includes(secret.slice(0, 20)), "value not in the result");
  const pane = (created.structuredContent as { pane: Pane }).pane.paneId;
  await fx.runInPane(pane, `printf '[%s]\\n' "$MCP_SECRET_VALUE" > ${fx.dir}/env-session`);
  assertEquals(await Deno.readTextFile(`${fx.dir}/env-session`), `[${secret}]\n`);
  // Not left in the session environment for later windows.
  const later = await s.ok("create_window", { session: "envs" });
  await fx.runInPane(
    later.pane.paneId,
    `printf '[%s]\\n' "$MCP_SECRET_VALUE" > ${fx.dir}/env-later`,
  );
  assertEquals(await Deno.readTextFile(`${fx.dir}/env-later`), "[]\n");
  const window = await s.ok("create_window", {
    session: "envs",
    environment: { WIN_VAR: "w1", OTHER_VAR: "" },
  });
  await fx.runInPane(
    window.pane.paneId,
    `printf '[%s|%s]\\n' "$WIN_VAR" "\${OTHER_VAR-unset}" > ${fx.dir}/env-w`,
  );
  assertEquals(await Deno.readTextFile(`${fx.dir}/env-w`), "[w1|]\n");
  const split = await s.ok("split_window", {
    paneId: window.pane.paneId,
    environment: { SPLIT_VAR: secret },
  });
  await fx.runInPane(split.pane.paneId, `printf '[%s]\\n' "$SPLIT_VAR" > ${fx.dir}/env-split`);
  assertEquals(await Deno.readTextFile(`${fx.dir}/env-split`), `[${secret}]\n`);
  for (const bad of [{ "1BAD": "x" }, { "BAD-NAME": "x" }, { "": "x" }]) {
    const text = await s.fails("create_window", { session: "envs", environment: bad });
    assertStringIncludes(text, "'environment'");
    assert(!text.includes(Object.keys(bad)[0] || "\u0000"), "the rejected name is not echoed");
  }
  assert(!s.stderr().includes(secret.slice(0, 20)), "value not logged");
});

workspaceTest(
  "values too long for one tmux process are refused with what to do",
  async (fx, s) => {
    const windows = await fx.tmux("list-windows", "-a", "-F", "#{window_id}");
    // Within the schema (a value may have 32768 characters), but 20,000 UTF-8
    // bytes: more than one tmux process can pass ("command too long").
    const value = `Zq7${"\u00e9".repeat(10_000)}`;
    for (
      const [tool, args] of [
        ["create_window", { session: "main", environment: { BIG: value } }],
        ["create_session", { environment: { BIG: value } }],
      ] as const
    ) {
      const text = await s.fails(tool, args);
      assertStringIncludes(text, "a tmux process can pass to the server");
      assertStringIncludes(text, "environment values are the usual cause");
      assert(!text.includes("Zq7"), "the value is not echoed");
    }
    assertEquals(await fx.tmux("list-windows", "-a", "-F", "#{window_id}"), windows);
  },
  ["process"],
);

workspaceTest("create_window and split_window return the new objects read back", async (fx, s) => {
  const main = await show(fx, "main", "#{session_id}");
  const before = await show(fx, "main", "#{window_id}");
  const names = trickyNames(fx.dir);
  for (const name of names) {
    const r = await s.ok("create_window", { session: main, name });
    assertEquals(r.window.name, name);
    assertEquals(await show(fx, r.window.windowId, "#{window_name}"), name);
    assertEquals(r.window.activePaneId, r.pane.paneId);
    assertEquals(r.window.active, false, "the session's current window stays");
  }
  await assertNoFile(`${fx.dir}/expanded`);
  assertEquals(await show(fx, "main", "#{window_id}"), before);
  // By exact name, and by default (no caller here: the first session).
  const byName = await s.ok("create_window", { session: "main" });
  assertEquals(byName.window.sessionId, main);
  const byDefault = await s.ok("create_window", {});
  assertEquals(byDefault.window.sessionId, main);
  assertStringIncludes(await s.fails("create_window", { session: "nope" }), "no such session");

  const pane = await show(fx, "main", "#{pane_id}");
  const cases = [
    ["Below", "-v", 0],
    ["Above", "-v", 1],
    ["Right", "-h", 0],
    ["Left", "-h", 1],
  ] as const;
  for (const [direction] of cases) {
    const window = await s.ok("create_window", { session: main });
    const original = window.pane;
    const r = await s.ok("split_window", {
      paneId: original.paneId,
      direction,
      percentage: 30,
    });
    const geometry = (id: string) =>
      show(fx, id, "#{pane_left} #{pane_top} #{pane_width} #{pane_height} #{pane_active}");
    const [nl, nt, nw, nh, nactive] = (await geometry(r.pane.paneId)).split(" ").map(Number);
    const [ol, ot] = (await geometry(original.paneId)).split(" ").map(Number);
    assertEquals([r.pane.width, r.pane.height], [nw, nh]);
    assertEquals(nactive, 0, "the new pane is not made active");
    if (direction === "Below") assert(nt > ot, `below: ${nt} > ${ot}`);
    if (direction === "Above") assert(nt < ot, `above: ${nt} < ${ot}`);
    if (direction === "Right") assert(nl > ol, `right: ${nl} > ${ol}`);
    if (direction === "Left") assert(nl < ol, `left: ${nl} < ${ol}`);
    const total = direction === "Below" || direction === "Above" ? 30 - 1 : 100 - 1;
    const size = direction === "Below" || direction === "Above" ? nh : nw;
    assert(Math.abs(size - Math.floor(total * 0.3)) <= 1, `30% of ${total}: ${size}`);
  }
  assertStringIncludes(await s.fails("split_window", { paneId: "%9999" }), "no such pane");
  assertStringIncludes(
    await s.fails("split_window", { paneId: pane, percentage: 100 }),
    "'percentage'",
  );
  // Split until tmux has no room: a clear error, not a crash.
  let text = "";
  for (let i = 0; i < 40 && !text; i++) {
    const r = await s.call("split_window", { paneId: pane });
    if (r.isError) text = (r.content[0] as { text: string }).text;
  }
  assertStringIncludes(text, "too small to split");
});

workspaceTest(
  "startDirectory is escaped and confirmed by reading the shell's directory",
  async (fx, s) => {
    const literal = `${fx.dir}/dir #{session_name} #(touch expanded) it's "q"`;
    await Deno.mkdir(literal);
    const created = await s.ok("create_session", {
      name: "dirs",
      startDirectory: literal,
    });
    assertEquals(created.startDirectoryConfirmed, true);
    assertEquals(created.pane.currentPath, literal);
    assertEquals(await show(fx, created.pane.paneId, "#{pane_current_path}"), literal);
    const window = await s.ok("create_window", {
      session: "dirs",
      startDirectory: `${literal}/`,
    });
    assertEquals(window.startDirectoryConfirmed, true);
    const split = await s.ok("split_window", {
      paneId: window.pane.paneId,
      startDirectory: literal,
    });
    assertEquals(split.startDirectoryConfirmed, true);
    assertEquals(await show(fx, split.pane.paneId, "#{pane_current_path}"), literal);
    // The same directory spelled another way (//, /./, ..) is the same directory.
    const parent = literal.slice(0, literal.lastIndexOf("/"));
    const leaf = literal.slice(literal.lastIndexOf("/") + 1);
    const spelled = await s.ok("split_window", {
      paneId: window.pane.paneId,
      startDirectory: `/${parent}/./${leaf}/../${leaf}`,
    });
    assertEquals(spelled.startDirectoryConfirmed, true);
    await assertNoFile(`${fx.dir}/expanded`);
    // tmux starts the shell elsewhere without an error: the result says so.
    const missing = `${fx.dir}/does-not-exist`;
    const r = await s.call("split_window", { paneId: window.pane.paneId, startDirectory: missing });
    assert(!r.isError, JSON.stringify(r.content));
    const body = r.structuredContent as { pane: Pane; startDirectoryConfirmed: boolean };
    assertEquals(body.startDirectoryConfirmed, false);
    assert(body.pane.currentPath !== missing, "the read-back directory is not the request");
    assertEquals(await show(fx, body.pane.paneId, "#{pane_current_path}"), body.pane.currentPath);
    assertStringIncludes(
      (r.content[0] as { text: string }).text,
      "not the requested startDirectory",
    );
    assertStringIncludes(
      await s.fails("create_window", { startDirectory: "relative/dir" }),
      "absolute",
    );
  },
);

workspaceTest(
  "split_window and create_window start where the split pane or the session's active pane is",
  async (fx, s) => {
    const first = `${fx.dir}/first`;
    // A new pane's path reads empty until its shell has started.
    const inDirectory = (pane: string, dir: string) =>
      eventually(
        async () => (await show(fx, pane, "#{pane_current_path}")) === dir,
        `${pane} in ${dir}`,
        5_000,
      );
    const moved = `${fx.dir}/moved #{session_name}`;
    await Deno.mkdir(first);
    await Deno.mkdir(moved);
    const created = await s.ok("create_session", {
      name: "dirs",
      startDirectory: first,
    });
    // Not the directory this server was started in: the session's active pane's.
    const window = await s.ok("create_window", { session: "dirs" });
    await inDirectory(window.pane.paneId, first);
    // The pane split is in a window that is not current, and its shell moved:
    // the new pane follows it, not the session's active pane (still in first).
    await fx.runInPane(window.pane.paneId, `cd '${moved}'`);
    const split = await s.ok("split_window", { paneId: window.pane.paneId });
    await inDirectory(split.pane.paneId, moved);
    await inDirectory(created.pane.paneId, first);
    // startDirectory still wins.
    const given = await s.ok("split_window", {
      paneId: window.pane.paneId,
      startDirectory: first,
    });
    assertEquals(given.startDirectoryConfirmed, true);
    await inDirectory(given.pane.paneId, first);
  },
);

workspaceTest("rename_session and rename_window store names literally", async (fx, s) => {
  const sessionId = await show(fx, "main", "#{session_id}");
  const windowId = await show(fx, "main", "#{window_id}");
  for (const name of trickyNames(fx.dir)) {
    const w = await s.ok("rename_window", { windowId, newName: name });
    assertEquals(w.window.name, name);
    assertEquals(await show(fx, windowId, "#{window_name}"), name);
    assertEquals(await show(fx, windowId, "#{automatic-rename}"), "0");
    const r = await s.ok("rename_session", {
      session: sessionId,
      newName: name,
    });
    assertEquals(r.session.name, name);
    assertEquals(r.session.sessionId, sessionId);
    assertEquals(await show(fx, sessionId, "#{session_name}"), name);
  }
  await assertNoFile(`${fx.dir}/expanded`);
  // tmux stores '\\' and '$' escaped in renamed names: the result reports what it stored.
  const odd = "back\\slash $dollar";
  const stored = await s.ok("rename_window", { windowId, newName: odd });
  assertEquals(stored.window.name, await show(fx, windowId, "#{window_name}"));
  const storedSession = await s.ok("rename_session", {
    session: sessionId,
    newName: odd,
  });
  assertEquals(storedSession.session.name, await show(fx, sessionId, "#{session_name}"));
  await s.ok("rename_session", { session: sessionId, newName: trickyNames(fx.dir).at(-1)! });
  // By exact name, then the rewrite of ':' and '.'.
  const last = trickyNames(fx.dir).at(-1)!;
  const byName = await s.ok("rename_session", {
    session: last,
    newName: "a.b:c",
  });
  assertEquals(byName.session.name, "a_b_c");
  assertEquals(await show(fx, sessionId, "#{session_name}"), "a_b_c");
  await fx.tmux("new-session", "-d", "-s", "taken");
  const dup = await s.fails("rename_session", { session: sessionId, newName: "taken" });
  assertStringIncludes(dup, "already has that name");
  assertStringIncludes(
    await s.fails("rename_session", { session: "$999", newName: "x" }),
    "no such session",
  );
  assertStringIncludes(
    await s.fails("rename_window", { windowId: "@999", newName: "x" }),
    "no such window",
  );
  assertStringIncludes(
    await s.fails("rename_window", { windowId: "main", newName: "x" }),
    "window id",
  );
  assertStringIncludes(await s.fails("rename_window", { windowId, newName: "" }), "'newName'");
});

workspaceTest("set_pane_title keeps the title literal and the active pane", async (fx, s) => {
  const first = await show(fx, "main", "#{pane_id}");
  const second = await fx.tmux("split-window", "-d", "-t", first, "-P", "-F", "#{pane_id}");
  for (const title of trickyNames(fx.dir)) {
    const r = await s.ok("set_pane_title", { paneId: second, title });
    assertEquals(r.pane.title, title);
    assertEquals(await show(fx, second, "#{pane_title}"), title);
  }
  await assertNoFile(`${fx.dir}/expanded`);
  assertEquals(await show(fx, "main", "#{pane_id}"), first, "active pane unchanged");
  const cleared = await s.ok("set_pane_title", { paneId: second, title: "" });
  assertEquals(cleared.pane.title, null);
  // tmux 3.3 keeps the old title without an error for characters it gives
  // no width (a C1 control, the line separator, an unassigned code point);
  // 3.4+ stores them.
  const refuses = refusesTitlesWithoutWidth(await tmuxVersion());
  await s.ok("set_pane_title", { paneId: second, title: "before" });
  for (const odd of ["\u0085", "\u2028", "\u0378"]) {
    const title = `Zq7${odd}title`;
    if (refuses) {
      const refused = await s.fails("set_pane_title", { paneId: second, title });
      assertStringIncludes(refused, "kept the pane's previous title");
      assert(!refused.includes("Zq7"), "the title is not echoed");
    } else {
      const r = await s.ok("set_pane_title", { paneId: second, title });
      assertEquals(r.pane.title, title);
    }
    const { pane } = await s.ok("get_pane_info", { paneId: second });
    assertEquals(pane.title, refuses ? "before" : title);
  }
  // A lone surrogate arrives as U+FFFD, which tmux does store.
  const replaced = await s.ok("set_pane_title", {
    paneId: second,
    title: "a\ud800",
  });
  assertEquals(replaced.pane.title, "a\ufffd");
  assertStringIncludes(
    await s.fails("set_pane_title", { paneId: "%999", title: "x" }),
    "no such pane",
  );
});

workspaceTest("resize_pane sizes panes and zooms idempotently", async (fx, s) => {
  const a = await show(fx, "main", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-h", "-t", a, "-P", "-F", "#{pane_id}");
  const sized = await s.ok("resize_pane", { paneId: a, width: 30 });
  assertEquals(sized.pane.width, 30);
  assertEquals(await show(fx, a, "#{pane_width}"), "30");
  const zoomed = await s.ok("resize_pane", { paneId: b, zoom: true });
  assertEquals([zoomed.pane.zoomed, zoomed.pane.active, zoomed.pane.width], [true, true, 100]);
  const again = await s.ok("resize_pane", { paneId: b, zoom: true });
  assertEquals([again.pane.zoomed, again.pane.width], [true, 100], "zooming twice stays zoomed");
  assertEquals(await show(fx, b, "#{window_zoomed_flag} #{pane_active}"), "1 1");
  // Zooming another pane while one is zoomed zooms that one.
  const other = await s.ok("resize_pane", { paneId: a, zoom: true });
  assertEquals([other.pane.zoomed, other.pane.active, other.pane.width], [true, true, 100]);
  const off = await s.ok("resize_pane", { paneId: a, zoom: false });
  assertEquals(off.pane.zoomed, false);
  const offAgain = await s.ok("resize_pane", { paneId: a, zoom: false });
  assertEquals(
    [offAgain.pane.zoomed, offAgain.pane.width],
    [false, 30],
    "unzooming twice is a no-op",
  );
  assertEquals(await show(fx, a, "#{window_zoomed_flag}"), "0");
  assertStringIncludes(
    await s.fails("resize_pane", { paneId: a, zoom: true, width: 10 }),
    "zoom cannot be combined",
  );
  assertStringIncludes(await s.fails("resize_pane", { paneId: a }), "nothing to do");
  assertStringIncludes(
    await s.fails("resize_pane", { paneId: "%999", zoom: true }),
    "no such pane",
  );
  assertStringIncludes(await s.fails("resize_pane", { paneId: "%999", width: 5 }), "no such pane");
  // Concurrent calls: tmux decides each toggle from the state right before it,
  // so no interleaving undoes another call's zoom.
  const together = await Promise.all(
    Array.from({ length: 6 }, () => s.ok("resize_pane", { paneId: b, zoom: true })),
  );
  assertEquals(together.map((r) => r.pane.zoomed), Array(6).fill(true));
  assertEquals(await show(fx, b, "#{window_zoomed_flag} #{pane_active}"), "1 1");
  const apart = await Promise.all(
    Array.from(
      { length: 6 },
      () => s.ok("resize_pane", { paneId: b, zoom: false }),
    ),
  );
  assertEquals(apart.map((r) => r.pane.zoomed), Array(6).fill(false));
  assertEquals(await show(fx, b, "#{window_zoomed_flag}"), "0");
});

workspaceTest("resize_window and select_layout read the window back", async (fx, s) => {
  const w = await show(fx, "main", "#{window_id}");
  const first = await show(fx, "main", "#{pane_id}");
  await fx.tmux("split-window", "-d", "-t", first);
  const r = await s.ok("resize_window", { windowId: w, width: 80, height: 20 });
  assertEquals([r.window.width, r.window.height], [80, 20]);
  assertEquals(await show(fx, w, "#{window_width}x#{window_height}"), "80x20");
  const tall = await s.ok("resize_window", { windowId: w, height: 24 });
  assertEquals([tall.window.width, tall.window.height], [80, 24]);
  assertStringIncludes(await s.fails("resize_window", { windowId: w }), "nothing to do");
  assertStringIncludes(
    await s.fails("resize_window", { windowId: "@999", width: 10 }),
    "no such window",
  );

  const even = await s.ok("select_layout", {
    windowId: w,
    layout: "even-horizontal",
  });
  assertEquals(even.window.layout, await show(fx, w, "#{window_layout}"));
  const panes = (await fx.tmux("list-panes", "-t", w, "-F", "#{pane_width}")).split("\n");
  assertEquals(panes.length, 2);
  assert(panes.every((width) => Math.abs(Number(width) - 39) <= 1), `even widths: ${panes}`);
  const saved = even.window.layout;
  await s.ok("select_layout", { windowId: w, layout: "even-vertical" });
  const restored = await s.ok("select_layout", { windowId: w, layout: saved });
  assertEquals(restored.window.layout, saved);
  // Strings tmux 3.3a would crash on never reach it; others come back as errors.
  for (
    const layout of ["#{window_layout}", "#abc", "zzzz,80x24,0,0,0", "tiledx", "abcd,80x24,0,0,1"]
  ) {
    const text = await s.fails("select_layout", { windowId: w, layout });
    assert(!text.includes(layout), `the rejected layout is not echoed: ${text}`);
  }
  // A checksum that matches does not make zero-sized cells acceptable (tmux
  // would take them).
  const flat = saved.slice(5).replaceAll(/\d+x\d+/g, "0x0");
  const zero = await s.fails("select_layout", {
    windowId: w,
    layout: `${layoutChecksum(flat).toString(16).padStart(4, "0")},${flat}`,
  });
  assertStringIncludes(zero, "no width or height");
  assertEquals(await show(fx, w, "#{window_width}x#{window_height}"), "80x24");
  // A layout string for another number of panes: too few cells (tmux refuses
  // with its own words) and too many (tmux would drop cells) say so alike.
  const forTwo = await show(fx, w, "#{window_layout}");
  const third = await fx.tmux("split-window", "-d", "-t", first, "-P", "-F", "#{pane_id}");
  const forThree = await show(fx, w, "#{window_layout}");
  const tooFew = await s.fails("select_layout", { windowId: w, layout: forTwo });
  assertStringIncludes(tooFew, `the layout string is for 2 panes, but window ${w} has 3 panes`);
  assertStringIncludes(tooFew, "get_window_info");
  assertStringIncludes(tooFew, "tiled");
  assertEquals(await show(fx, w, "#{window_layout}"), forThree, "the layout did not change");
  await fx.tmux("kill-pane", "-t", third);
  await fx.tmux("kill-pane", "-t", first);
  const tooMany = await s.fails("select_layout", { windowId: w, layout: forThree });
  assertStringIncludes(tooMany, `the layout string is for 3 panes, but window ${w} has 1 pane`);
  assertEquals(await fx.tmux("list-sessions", "-F", "#{session_name}"), "main", "tmux still runs");
  assertStringIncludes(
    await s.fails("select_layout", { windowId: "@999", layout: "tiled" }),
    "no such window",
  );
  assertStringIncludes(
    await s.fails("select_layout", { windowId: "@999", layout: forThree }),
    "no such window",
  );
});

/** `body` as a layout string with its checksum, as tmux prints one. */
function layoutString(body: string): string {
  return `${layoutChecksum(body).toString(16).padStart(4, "0")},${body}`;
}

workspaceTest(
  "select_layout refuses huge numbers and a layout of another window size",
  async (fx, s) => {
    const w = await show(fx, "main", "#{window_id}");
    const size = () => show(fx, w, "#{window_width}x#{window_height}");
    assertEquals(await size(), "100x30");
    // tmux 3.3a resizes the window to the top cell unbounded: a height of
    // 4e9 makes it allocate until it exits, with every session on it.
    for (
      const [body, number, at] of [
        ["80x4000000000,0,0,0", "4000000000", 9],
        ["4000000000x24,0,0,0", "4000000000", 6],
        ["100x30,0,10001,0", "10001", 15],
        ["100x30,0,0{50x30,0,0,1,10001x30,51,0,2}", "10001", 29],
      ] as const
    ) {
      const text = await s.fails("select_layout", { windowId: w, layout: layoutString(body) });
      assertStringIncludes(text, `number ${number} at character ${at} is over 10000`);
    }
    assertEquals(
      await fx.tmux("list-sessions", "-F", "#{session_name}"),
      "main",
      "tmux still runs",
    );
    // Within bounds, a top cell of another size would resize the window.
    const other = await s.fails("select_layout", {
      windowId: w,
      layout: layoutString("80x24,0,0,0"),
    });
    assertStringIncludes(
      other,
      `the layout string is for a 80x24 window, but window ${w} is 100x30`,
    );
    assertStringIncludes(other, "resize_window");
    assertEquals(await size(), "100x30", "the window kept its size");
    // Its own size fits; the pane id after a cell is not a size (tmux skips it).
    const same = await s.ok("select_layout", {
      windowId: w,
      layout: layoutString("100x30,0,0,123456"),
    });
    assertEquals([same.window.width, same.window.height], [100, 30]);
    await fx.tmux("resize-window", "-t", w, "-x", "80", "-y", "24");
    const resized = await s.ok("select_layout", {
      windowId: w,
      layout: layoutString("80x24,0,0,0"),
    });
    assertEquals([resized.window.width, resized.window.height], [80, 24]);
    assertEquals(resized.window.layout, await show(fx, w, "#{window_layout}"));
  },
);

workspaceTest("select_window resolves directions to ids and selects by id", async (fx, s) => {
  const sid = await show(fx, "main", "#{session_id}");
  const w0 = await show(fx, "main", "#{window_id}");
  const w1 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const w2 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const current = () => show(fx, "main", "#{window_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_window", args)).window;
  assertEquals((await pick({ windowId: w1 })).windowId, w1);
  assertEquals(await current(), w1);
  assertEquals((await pick({ session: sid, direction: "next" })).windowId, w2);
  assertEquals((await pick({ session: "main", direction: "next" })).windowId, w0, "wraps");
  assertEquals((await pick({ session: "main", direction: "previous" })).windowId, w2, "wraps back");
  assertEquals((await pick({ session: "main", direction: "last" })).windowId, w0);
  assertEquals(await current(), w0);
  assertEquals((await pick({ windowId: w1, direction: "next" })).windowId, w2);
  const selected = await pick({ windowId: w1 });
  assertEquals([selected.active, await current()], [true, w1]);
  await fx.tmux("new-session", "-d", "-s", "solo");
  assertStringIncludes(
    await s.fails("select_window", { session: "solo", direction: "last" }),
    "no previously selected window",
  );
  assertStringIncludes(
    await s.fails("select_window", { windowId: w1, session: "solo" }),
    "not in that session",
  );
  assertStringIncludes(await s.fails("select_window", { session: "main" }), "nothing to do");
  assertStringIncludes(await s.fails("select_window", { windowId: "@999" }), "no such window");
  assertStringIncludes(
    await s.fails("select_window", { windowId: w1, direction: "up" }),
    "'direction'",
  );
});

workspaceTest("select_pane resolves directions geometrically and by index", async (fx, s) => {
  // Layout: a | b on top, c across the bottom.
  const w = await show(fx, "main", "#{window_id}");
  const a = await show(fx, "main", "#{pane_id}");
  const c = await fx.tmux("split-window", "-d", "-v", "-t", a, "-P", "-F", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-h", "-t", a, "-P", "-F", "#{pane_id}");
  const active = () => show(fx, w, "#{pane_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_pane", args)).pane;
  assertEquals((await pick({ paneId: a, direction: "right" })).paneId, b);
  assertEquals(await active(), b);
  assertEquals((await pick({ windowId: w, direction: "down" })).paneId, c);
  assertEquals((await pick({ windowId: w, direction: "down" })).paneId, a, "wraps to the top");
  assertEquals((await pick({ paneId: b, direction: "up" })).paneId, c, "wraps to the bottom");
  assertEquals((await pick({ paneId: a, direction: "left" })).paneId, b, "wraps to the right edge");
  assertEquals((await pick({ paneId: b, direction: "left" })).paneId, a);
  const indexes = (await fx.tmux("list-panes", "-t", w, "-F", "#{pane_id}")).split("\n");
  assertEquals((await pick({ paneId: indexes[2], direction: "next" })).paneId, indexes[0]);
  assertEquals((await pick({ paneId: indexes[0], direction: "previous" })).paneId, indexes[2]);
  assertEquals((await pick({ windowId: w, direction: "last" })).paneId, indexes[0]);
  const chosen = await pick({ paneId: c });
  assertEquals([chosen.active, await active()], [true, c]);
  const single = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  assertStringIncludes(
    await s.fails("select_pane", { windowId: single, direction: "last" }),
    "no previously active pane",
  );
  assertStringIncludes(
    await s.fails("select_pane", { paneId: a, windowId: single }),
    "not in that window",
  );
  assertStringIncludes(await s.fails("select_pane", { windowId: w }), "nothing to do");
  assertStringIncludes(await s.fails("select_pane", { paneId: "%999" }), "no such pane");
});

workspaceTest(
  "move_window moves, refuses an occupied index, and replaces on request",
  async (fx, s) => {
    const main = await show(fx, "main", "#{session_id}");
    const w0 = await show(fx, "main", "#{window_id}");
    const w1 = await fx.tmux("new-window", "-d", "-t", "main:1", "-P", "-F", "#{window_id}");
    const w2 = await fx.tmux("new-window", "-d", "-t", "main:2", "-P", "-F", "#{window_id}");
    const index = (w: string) => show(fx, w, "#{window_index}");
    const moved = await s.ok<Action>("move_window", { windowId: w2, destinationIndex: 7 });
    assertEquals(moved, { changed: true, windowId: w2, sessionId: main });
    assertEquals(await index(w2), "7");
    const refused = await s.fails("move_window", { windowId: w1, destinationIndex: 7 });
    assertStringIncludes(refused, `the destination index already holds window ${w2}`);
    assertStringIncludes(refused, "replaceExisting");
    assertEquals(await index(w1), "1", "nothing moved");
    const same = await s.ok<Action>("move_window", { windowId: w1, destinationIndex: 1 });
    assertEquals(same.changed, false);
    const replaced = await s.ok<Action>("move_window", {
      windowId: w1,
      destinationIndex: 7,
      replaceExisting: true,
    });
    assertEquals(replaced.changed, true);
    assertEquals(await index(w1), "7");
    const ids = (await fx.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
    assertEquals(ids.sort(), [w0, w1].sort(), "the replaced window is gone");
    const other = await fx.tmux("new-session", "-d", "-s", "other", "-P", "-F", "#{session_id}");
    const across = await s.ok<Action>("move_window", { windowId: w1, destinationSession: "other" });
    assertEquals(across, { changed: true, windowId: w1, sessionId: other });
    assertEquals(await show(fx, w1, "#{session_id}"), other);
    assertEquals(await show(fx, "other", "#{window_id}") !== w1, true, "current window stays");
    assertStringIncludes(await s.fails("move_window", { windowId: w1 }), "nothing to do");
    assertStringIncludes(
      await s.fails("move_window", { windowId: "@999", destinationIndex: 3 }),
      "no such window",
    );
    assertStringIncludes(
      await s.fails("move_window", { windowId: w0, destinationSession: "nope" }),
      "no such session",
    );
  },
);

/** Every window link as `session:index=window`, sorted: a linked window shows once per session. */
async function links(fx: TmuxFixture): Promise<string[]> {
  return (await fx.tmux("list-windows", "-a", "-F", "#{session_name}:#{window_index}=#{window_id}"))
    .split("\n").sort();
}

/** `main` (@0 at 0, `w` at 1) and `b` (its own window at 0, `w` linked at 7). */
async function linkedWindow(fx: TmuxFixture): Promise<{ w: string; w0: string; b0: string }> {
  const w0 = await show(fx, "main", "#{window_id}");
  const b0 = await fx.tmux("new-session", "-d", "-s", "b", "-P", "-F", "#{window_id}");
  const w = await fx.tmux("new-window", "-d", "-t", "main:1", "-P", "-F", "#{window_id}");
  await fx.tmux("link-window", "-d", "-s", w, "-t", "b:7");
  return { w, w0, b0 };
}

workspaceTest("move_window moves a linked window's link in the session named", async (fx, s) => {
  const { w, w0, b0 } = await linkedWindow(fx);
  // tmux given a bare @N picks one of the window's links itself; each move
  // must take the link of the session it names, whichever tmux would pick.
  await s.ok<Action>("move_window", {
    windowId: w,
    destinationSession: "main",
    destinationIndex: 5,
  });
  assertEquals(await links(fx), [`b:0=${b0}`, `b:7=${w}`, `main:0=${w0}`, `main:5=${w}`]);
  await s.ok<Action>("move_window", { windowId: w, destinationSession: "b", destinationIndex: 3 });
  assertEquals(await links(fx), [`b:0=${b0}`, `b:3=${w}`, `main:0=${w0}`, `main:5=${w}`]);
}, [...TRANSPORTS]);

workspaceTest("select_window selects a linked window in the session named", async (fx, s) => {
  const { w, w0, b0 } = await linkedWindow(fx);
  const current = (session: string) => show(fx, `${session}:`, "#{window_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_window", args)).window;
  // Each session in turn: whichever link tmux would pick for a bare @N, the
  // window must become current in the session asked about, and only there.
  const inMain = await pick({ session: "main", direction: "next" });
  assertEquals([inMain.windowId, inMain.sessionId, inMain.active], [
    w,
    await show(fx, "main", "#{session_id}"),
    true,
  ]);
  assertEquals([await current("main"), await current("b")], [w, b0]);
  await s.ok("select_window", { windowId: w0 });
  const inB = await pick({ session: "b", direction: "previous" });
  assertEquals([inB.windowId, inB.sessionId, inB.active], [
    w,
    await show(fx, "b", "#{session_id}"),
    true,
  ]);
  assertEquals([await current("main"), await current("b")], [w0, w]);
  // By id alone tmux picks the session; the result shows the window where it became current.
  await s.ok("select_window", { session: "b", direction: "last" });
  const byId = await pick({ windowId: w });
  assertEquals(byId.active, true);
  assertEquals(
    await current(byId.sessionId === (await show(fx, "b", "#{session_id}")) ? "b" : "main"),
    w,
  );
}, [...TRANSPORTS]);

workspaceTest("swap_pane exchanges places and keeps the active pane", async (fx, s) => {
  const a = await show(fx, "main", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-t", a, "-P", "-F", "#{pane_id}");
  const other = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{pane_id}");
  const top = (p: string) => show(fx, p, "#{pane_top}");
  const [ta, tb] = [await top(a), await top(b)];
  const r = await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: b });
  assertEquals(r.changed, true);
  assertEquals([await top(a), await top(b)], [tb, ta]);
  assertEquals(await show(fx, "main", "#{pane_id}"), a, "active pane stays the same pane");
  const across = await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: other });
  assertEquals(across.windowId, await show(fx, a, "#{window_id}"));
  assertEquals((await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: a })).changed, false);
  assertStringIncludes(
    await s.fails("swap_pane", { paneId: a, targetPaneId: "%999" }),
    "no such pane",
  );
});

workspaceTest(
  "options: history limit, mouse and synchronize-panes report changes",
  async (fx, s) => {
    const sid = await show(fx, "main", "#{session_id}");
    const w = await show(fx, "main", "#{window_id}");
    const limit = await s.call("set_history_limit", { session: "main", lines: 12345 });
    assertEquals(limit.structuredContent, { changed: true, sessionId: sid });
    assertStringIncludes((limit.content[0] as { text: string }).text, "panes created from now on");
    assertEquals(await fx.tmux("show-options", "-v", "-t", "main", "history-limit"), "12345");
    const again = await s.ok<Action>("set_history_limit", { session: sid, lines: 12345 });
    assertEquals(again.changed, false);
    const created = await s.ok("create_window", { session: sid });
    assertEquals(await show(fx, created.pane.paneId, "#{history_limit}"), "12345");
    assertStringIncludes(
      await s.fails("set_history_limit", { session: "nope", lines: 1 }),
      "no such session",
    );
    assertStringIncludes(
      await s.fails("set_history_limit", { session: sid, lines: -1 }),
      "'lines'",
    );

    assertEquals(await s.ok<Action>("set_mouse_enabled", { enabled: true }), { changed: true });
    assertEquals(await fx.tmux("show-options", "-gv", "mouse"), "on");
    assertEquals(await s.ok<Action>("set_mouse_enabled", { enabled: true }), { changed: false });
    const session = await s.ok<Action>("set_mouse_enabled", { enabled: false, session: "main" });
    assertEquals(session, { changed: true, sessionId: sid });
    assertEquals(await fx.tmux("show-options", "-v", "-t", "main", "mouse"), "off");
    assertEquals(await fx.tmux("show-options", "-gv", "mouse"), "on", "global untouched");

    const sync = await s.ok<Action>("set_synchronize_panes", { windowId: w, enabled: true });
    assertEquals(sync, { changed: true, windowId: w });
    assertEquals(await show(fx, w, "#{synchronize-panes}"), "1");
    assertEquals(
      (await s.ok<Action>("set_synchronize_panes", { windowId: w, enabled: true })).changed,
      false,
    );
    assertEquals(
      (await s.ok<Action>("set_synchronize_panes", { windowId: w, enabled: false })).changed,
      true,
    );
    assertEquals(await show(fx, w, "#{synchronize-panes}"), "0");
    assertStringIncludes(
      await s.fails("set_synchronize_panes", { windowId: "@999", enabled: true }),
      "no such window",
    );
  },
);

workspaceTest("respawn_pane restarts a dead pane and refuses a live one", async (fx, s) => {
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  const pane = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{pane_id}");
  await fx.tmux("send-keys", "-t", pane, "exit", "Enter");
  // The shell's end is seen by tmux only; wait on tmux's own state, bounded.
  for (let i = 0; i < 1000 && await show(fx, pane, "#{pane_dead}") !== "1"; i++);
  assertEquals(await show(fx, pane, "#{pane_dead}"), "1");
  const oldPid = await show(fx, pane, "#{pane_pid}");
  const r = await s.ok("respawn_pane", { paneId: pane });
  assertEquals(r.pane.dead, false);
  assertEquals(await show(fx, pane, "#{pane_dead}"), "0");
  assert(String(r.pane.pid) !== oldPid, "a new process");
  assertEquals(String(r.pane.pid), await show(fx, pane, "#{pane_pid}"));
  const live = await s.fails("respawn_pane", { paneId: pane });
  assertStringIncludes(live, "still running");
  assertStringIncludes(live, "killFirst");
  const dir = `${fx.dir}/re #{pane_id}`;
  await Deno.mkdir(dir);
  const killed = await s.ok("respawn_pane", {
    paneId: pane,
    killFirst: true,
    startDirectory: dir,
  });
  assertEquals(killed.startDirectoryConfirmed, true);
  assertEquals(await show(fx, pane, "#{pane_current_path}"), dir);
  assert(killed.pane.pid !== r.pane.pid, "killFirst started another process");
  assertStringIncludes(await s.fails("respawn_pane", { paneId: "%999" }), "no such pane");
});

workspaceTest("tools list honest capability records", async (_fx, s) => {
  type Listed = {
    name: string;
    description?: string;
    inputSchema: unknown;
    _meta?: Record<string, unknown>;
  };
  const tools = (await s.client.listTools()).tools as Listed[];
  const meta = (name: string) => {
    const tool = tools.find((t) => t.name === name);
    assert(tool, `${name} is listed`);
    return tool._meta?.["com.git-pull.libtmux-mcp/capability"] as {
      toolset: string;
      processReach: string;
      tmuxEffects: string[];
      amplifiesFutureInput: boolean;
    };
  };
  for (const name of ["create_session", "create_window", "split_window", "respawn_pane"]) {
    assertEquals([meta(name).toolset, meta(name).processReach], ["execute", "configured-process"]);
  }
  for (const name of ["kill_pane", "kill_window", "kill_session", "clear_pane_scrollback"]) {
    assertEquals([meta(name).toolset, meta(name).tmuxEffects], ["teardown", ["delete"]]);
  }
  assertEquals(meta("move_window").tmuxEffects, ["change", "delete"]);
  assertEquals(meta("set_synchronize_panes").amplifiesFutureInput, true);
  assertEquals(meta("rename_window").toolset, "manage");
  const create = tools.find((t) => t.name === "create_window")!;
  assertEquals(
    (create.inputSchema as { additionalProperties: boolean }).additionalProperties,
    false,
  );
  assertStringIncludes(
    tools.find((t) => t.name === "set_history_limit")!.description!,
    "created afterwards",
  );
});

workspaceTest("the process transport gives the same results", async (fx, s) => {
  const r = await s.ok("create_session", {
    name: "#{pane_id} p",
    windowName: "w #(true)",
  });
  assertEquals([r.session.name, r.window.name], ["#{pane_id} p", "w #(true)"]);
  const split = await s.ok("split_window", {
    paneId: r.pane.paneId,
    direction: "Right",
  });
  assertEquals(split.pane.windowId, r.window.windowId);
  const zoom = await s.ok("resize_pane", { paneId: split.pane.paneId, zoom: true });
  assertEquals(zoom.pane.zoomed, true);
  assertEquals(await show(fx, r.window.windowId, "#{window_zoomed_flag}"), "1");
}, ["process"]);

workspaceTest("a session name tmux would read as an id is refused", async (fx, s) => {
  const before = await fx.tmux("list-sessions", "-F", "#{session_id}=#{session_name}");
  for (const name of ["$0", "$1x"]) {
    const created = await s.fails("create_session", { name });
    assertStringIncludes(created, "must not start with $");
    assert(!created.includes(name), "the rejected name is not echoed");
    assertStringIncludes(
      await s.fails("rename_session", { session: "main", newName: name }),
      "must not start with $",
    );
  }
  assertEquals(await fx.tmux("list-sessions", "-F", "#{session_id}=#{session_name}"), before);
  // A name with $ elsewhere, or shaped like another kind of id, is a name like any other.
  for (const name of ["a$0", "@0", "%0"]) {
    const { session } = await s.ok("create_session", { name });
    assertEquals(session.name, name);
    const info = await s.ok("get_session_info", {
      session: name,
    });
    assertEquals(info.session.sessionId, session.sessionId);
  }
  // A session argument that starts with $ but is no id: the error says why nothing matched
  // (the listed schema leaves this rule to the one failure it explains).
  assertStringIncludes(
    await s.fails("kill_session", { session: "$main" }),
    "a value starting with $ is a session id",
  );
});

// tmux 3.3a exits 0 without a word on stdout when it cannot create the
// socket of the server it was asked to start; the error used to blame tmux's
// version. No server runs, so the control transport takes its fallback too.
for (const transport of TRANSPORTS) {
  Deno.test(`create_session on a socket path whose directory is missing says so [${transport}]`, async () => {
    await using fx = await TmuxFixture.empty();
    await using s = await startServer(`${fx.dir}/no/such/dir/tmux.sock`, {
      args: [...ALL_TOOLSETS, "--transport", transport],
    });
    const error = await s.fails("create_session", { name: "x" });
    assertStringIncludes(error, `tmux cannot use socket ${fx.dir}/no/such/dir/tmux.sock`);
    assertStringIncludes(error, "(no such file or directory)");
    assertStringIncludes(error, "a directory that exists");
  });
}

// The fixture's panes start `env ... bash`, so PATH=/nope makes the new
// process fail at once; without remain-on-exit tmux then closes the pane (and
// a new window or session with it). Whether the tool reads the object back
// before or after tmux closes it is a race, so each tool runs a few times:
// either outcome is fine, a "no such" error blaming the caller's ids is not.
// Control transport only: a command from an unattached client (the process
// transport) gives the new process that client's PATH instead (tmux spawn.c).
workspaceTest(
  "a new process that exits at once is reported as such, not as a wrong id",
  async (fx, s, pane) => {
    const env = { environment: { PATH: "/nope" }, startDirectory: "/" };
    const calls: [string, Record<string, unknown>][] = [
      ["create_session", env],
      ["create_session", { environment: { PATH: "/nope" } }],
      ["create_window", { session: "main", ...env }],
      ["split_window", { paneId: pane, ...env }],
    ];
    for (const [tool, args] of calls) {
      for (let i = 0; i < 6; i++) {
        const result = await s.call(tool, args);
        if (result.isError) {
          const text = (result.content[0] as { text: string }).text;
          assertStringIncludes(text, "exited as soon as it started", `${tool}: ${text}`);
          assert(!text.includes("no such"), `${tool}: ${text}`);
        }
        // Nothing half-done: the pane that failed goes, with what it made.
        await eventually(
          async () => (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")) === pane,
          "only the fixture's pane is left",
        );
      }
    }
  },
);

workspaceTest(
  "environment.PATH reaches the new process through the control client, and not through a one-shot tmux (docs/behaviour.md)",
  async (fx, s) => {
    const path = "/tmux-mcp-custom:/usr/bin:/bin";
    const created = await s.ok("create_window", {
      session: "main",
      environment: { PATH: path, TMUX_MCP_MARK: "set" },
    });
    // Read once the process has exec'd: until then /proc shows tmux's own
    // environment, without the variables asked for. (Through cat: Deno lets
    // only --allow-all read /proc, and the test task does not have it.)
    const environ = async (pid: number) => {
      const read = async () => {
        const out = await new Deno.Command("cat", { args: [`/proc/${pid}/environ`] }).output();
        return new TextDecoder().decode(out.stdout).split("\0");
      };
      await eventually(async () => (await read()).includes("TMUX_MCP_MARK=set"), "exec'd");
      return await read();
    };
    let env = await environ(created.pane.pid!);
    assert(env.includes(`PATH=${path}`), "the control client's window has the PATH asked for");
    // A one-shot tmux (what --transport process uses) hands its own PATH over.
    const pid = await fx.tmux(
      "new-window",
      "-P",
      "-F",
      "#{pane_pid}",
      "-t",
      "main:",
      "-e",
      `PATH=${path}`,
      "-e",
      "TMUX_MCP_MARK=set",
    );
    env = await environ(Number(pid));
    assert(!env.includes(`PATH=${path}`), "tmux 3.3a replaced PATH with the client's own");
  },
);

workspaceTest(
  "create_session and create_window return names as tmux stored them, escapes included (docs/behaviour.md)",
  async (fx, s) => {
    const odd = "back\\slash\ttab $HOME";
    const created = await s.ok("create_session", {
      name: odd,
      windowName: odd,
    });
    const window = await s.ok("create_window", { session: "main", name: odd });
    // tmux escapes a new session's name, but stores a new window's name
    // (new-session -n, new-window -n) as given; only rename-window escapes.
    // 3.3 also escapes $ before a letter (docs/tmux-quirks.md).
    const sessionName = await show(fx, created.session.sessionId, "#{session_name}");
    const dollar = escapesDollarInNames(await tmuxVersion()) ? "\\$" : "$";
    assertEquals(sessionName, `back\\\\slash\\ttab ${dollar}HOME`);
    assertEquals(created.session.name, sessionName);
    assertEquals(created.window.name, await show(fx, created.window.windowId, "#{window_name}"));
    assertEquals(window.window.name, await show(fx, window.window.windowId, "#{window_name}"));
    assertEquals([created.window.name, window.window.name], [odd, odd]);
  },
);
