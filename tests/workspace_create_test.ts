/**
 * Creating the workspace over stdio against a real tmux: create_session,
 * create_window and split_window with their names, environment and start
 * directory, a new process that exits at once, respawn_pane, and the
 * workspace tools' capability records. Every result is checked against what
 * tmux itself reports afterwards.
 *
 * @module
 */

import type { z } from "zod";
import type { paneView } from "../core/schemas.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { ALL_TOOLSETS, eventually, startServer, TmuxFixture, TRANSPORTS } from "./harness.ts";
import { assertNoFile, show, trickyNames, workspaceTest } from "./workspace_helpers.ts";

type Pane = z.infer<typeof paneView>;

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
