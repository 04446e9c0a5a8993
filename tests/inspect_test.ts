/**
 * The inspect toolset over stdio against a real tmux: every tool on a small
 * topology, errors, budgets, the read batch, caller detection and selection.
 */

import type { z } from "zod";
import type { paneView } from "../core/schemas.ts";
import { assert, assertEquals, assertStringIncludes, assertWithinBytes } from "./assert.ts";
import {
  atNamedBudget,
  eventually,
  rawServer,
  serverTest,
  startServer,
  TmuxFixture,
  TRANSPORTS,
} from "./harness.ts";

type Pane = z.infer<typeof paneView>;

serverTest("list tools read the topology tmux reports", async (fx, s) => {
  await fx.tmux("new-window", "-t", "main:", "-n", "second");
  await fx.tmux("split-window", "-t", "main:second");
  await fx.tmux("new-session", "-d", "-s", "other");
  const { sessions } = await s.ok("list_sessions");
  assertEquals(sessions.map((x) => [x.name, x.windows]).sort(), [["main", 2], ["other", 1]]);
  const { windows } = await s.ok("list_windows", {
    session: "main",
  });
  assertEquals(windows.map((w) => w.panes), [1, 2]);
  assertEquals(windows[1].name, "second");
  const all = await s.ok("list_panes");
  const expected = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  assertEquals(all.panes.map((p) => p.paneId), expected);
  // The text block tells the same panes, one line each, to clients that ignore structure.
  const text = ((await s.call("list_panes")).content as { text: string }[])[0].text.split("\n");
  assertEquals(text[0], `${expected.length} panes:`);
  assertEquals(text.slice(1).map((line) => line.split(" ")[0]), expected);
  const secondId = await fx.tmux("display-message", "-p", "-t", "main:second", "#{window_id}");
  const inWindow = await s.ok("list_panes", { windowId: secondId });
  assertEquals(inWindow.panes.length, 2);
  const mismatched = await s.ok("list_panes", {
    windowId: secondId,
    session: "other",
  });
  assertEquals(mismatched.panes.length, 0);
});

serverTest("info tools return one object, read back from tmux", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  const { pane } = await s.ok("get_pane_info", {
    paneId,
  });
  assertEquals(pane.paneId, paneId);
  assertEquals(pane.width, 100);
  const session = await s.ok("get_session_info", {
    session: "main",
  });
  assertEquals([session.session.name, session.windows.length], ["main", 1]);
  const window = await s.ok("get_window_info", {
    windowId: pane.windowId,
  });
  assertEquals(window.panes.map((p) => p.paneId), [paneId]);
  const server = await s.ok<
    {
      socketPath: string;
      sessions: number;
      panes: number;
      clients: number;
      ownedByThisServer: boolean;
    }
  >("get_server_info");
  // The control transport's own client is attached by now; it is not a person's.
  assertEquals(
    [server.socketPath, server.sessions, server.panes, server.clients, server.ownedByThisServer],
    [fx.socketPath, 1, 1, 0, false],
  );
  // A person's client (here a control-mode one) is counted.
  const person = new Deno.Command("tmux", {
    args: ["-S", fx.socketPath, "-C", "attach-session", "-t", "main"],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await eventually(
      async () =>
        (await fx.tmux("list-clients", "-F", "#{client_pid}")).split("\n").includes(
          String(person.pid),
        ),
      "the person's client attached",
    );
    assertEquals((await s.ok("get_server_info")).clients, 1);
  } finally {
    await person.stdin.close();
    await person.status;
  }
  const vars = await s.ok<{ values: Record<string, string | null> }>("get_tmux_variables", {
    names: ["session_name", "no_such_variable"],
    paneId,
  });
  assertEquals(vars.values, { session_name: "main", no_such_variable: null });
});

serverTest("find_pane_by_position resolves corners and indexes", async (fx, s) => {
  const left = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  const right = await fx.tmux("split-window", "-h", "-t", left, "-P", "-F", "#{pane_id}");
  const windowId = await fx.tmux("display-message", "-p", "-t", left, "#{window_id}");
  const at = async (args: Record<string, unknown>) =>
    (await s.ok("find_pane_by_position", { windowId, ...args })).pane.paneId;
  assertEquals(await at({ corner: "top-left" }), left);
  assertEquals(await at({ corner: "bottom-right" }), right);
  assertEquals(await at({ position: 1 }), right);
  assertStringIncludes(await s.fails("find_pane_by_position", { windowId }), "exactly one");
  assertStringIncludes(
    await s.fails("find_pane_by_position", { windowId, corner: "top-left", position: 0 }),
    "exactly one",
  );
});

serverTest(
  "find_pane_by_position counts position from 0 whatever pane-base-index is",
  async (fx, s) => {
    await fx.tmux("set-option", "-g", "pane-base-index", "1");
    const first = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    const second = await fx.tmux("split-window", "-t", first, "-P", "-F", "#{pane_id}");
    const windowId = await fx.tmux("display-message", "-p", "-t", first, "#{window_id}");
    const at = async (position: number) =>
      (await s.ok("find_pane_by_position", {
        windowId,
        position,
      }))
        .pane;
    assertEquals([(await at(0)).paneId, (await at(0)).index], [first, 1]);
    assertEquals((await at(1)).paneId, second);
    // A position past the last pane is named as such: the window exists.
    assertEquals(
      await s.fails("find_pane_by_position", { windowId, position: 2 }),
      "find_pane_by_position failed: the window has 2 panes, so none is at that position. " +
        "Give a position from 0 to 1 (0 is the window's first pane), " +
        "or list the window's panes with list_panes and windowId.",
    );
  },
);

serverTest("options, environment and hooks", async (fx, s) => {
  await fx.tmux("set-option", "-g", "history-limit", "4321");
  await fx.tmux("set-option", "-s", "@theme", "dark #{x}");
  await fx.tmux("set-environment", "-g", "PLAIN_VAR", "visible");
  await fx.tmux("set-environment", "-g", "GITHUB_TOKEN", "s3cr3t");
  await fx.tmux("set-hook", "-t", "main", "after-split-window", "display-message hi");
  const option = await s.ok("show_option", {
    name: "history-limit",
    scope: "Session",
  });
  assertEquals(option.value, "4321");
  const user = await s.ok("show_option", {
    name: "@theme",
    scope: "Server",
  });
  assertEquals(user.value, "dark #{x}");
  const unset = await s.ok("show_option", { name: "@unset" });
  assertEquals(unset.value, null);
  const bad = await s.fails("show_option", { name: "not-an-option" });
  assert(!bad.includes("not-an-option"), "the rejected name is not echoed");
  // The error says what was wrong with the name and what to give instead.
  assertStringIncludes(bad, "show_option failed: tmux has no option by that name.");
  assertStringIncludes(bad, "full tmux option name such as history-limit");
  const ambiguous = await s.fails("show_option", { name: "status-l" });
  assertStringIncludes(ambiguous, "no option by that name (it starts several option names)");
  const names = await s.ok("show_environment");
  const plain = names.variables.find((v) => v.name === "PLAIN_VAR");
  assert(plain && plain.value === undefined, "no values without a name");
  assertEquals(names.variables.find((v) => v.name === "GITHUB_TOKEN")?.withheld, true);
  const one = await s.ok("show_environment", {
    name: "PLAIN_VAR",
  });
  assertEquals(one.variables[0].value, "visible");
  const secret = await s.ok("show_environment", {
    name: "GITHUB_TOKEN",
  });
  assertEquals([secret.variables[0].value, secret.variables[0].withheld], [undefined, true]);
  assert(!JSON.stringify(secret).includes("s3cr3t"));
  const hooks = await s.ok("show_hooks", {});
  assertEquals(hooks.hooks, [{
    name: "after-split-window",
    index: 0,
    command: "display-message hi",
  }]);
});

serverTest(
  "a live server without sessions: server-wide reads work, pane reads say why not",
  async (fx, s) => {
    await fx.tmux("set-option", "-s", "exit-empty", "off");
    await fx.tmux("set-option", "-s", "@theme", "dark");
    await fx.tmux("set-hook", "-g", "after-new-window", "display-message hi");
    // Through the server, so the control transport knows its session is gone.
    await s.ok("kill_session", { session: "main" });
    const server = await s.ok<Record<string, unknown>>("get_server_info");
    assertEquals(
      [server.pid, server.sessions, server.windows, server.panes, server.clients],
      [Number(await fx.tmux("display-message", "-p", "#{pid}")), 0, 0, 0, 0],
    );
    const limit = await s.ok("show_option", {
      name: "history-limit",
      scope: "Server",
    });
    assertEquals(limit.value, await fx.tmux("show-options", "-g", "-v", "history-limit"));
    const theme = await s.ok("show_option", {
      name: "@theme",
      scope: "Server",
    });
    assertEquals(theme.value, "dark");
    const hooks = await s.ok("show_hooks", { scope: "Server" });
    assertEquals(hooks.hooks.map((h) => h.name), ["after-new-window"]);
    assert((await s.ok("show_environment")).variables.length > 0);
    assertEquals(await s.ok("list_sessions"), { sessions: [] });
    assertEquals(await s.ok("list_windows"), { windows: [] });
    assertEquals(await s.ok("list_panes"), { panes: [] });
    // A read that needs a pane says the server has no sessions, never that there is no server.
    for (
      const [tool, args] of [["capture_pane", {}], ["show_option", { name: "mouse" }]] as const
    ) {
      const error = await s.fails(tool, args);
      assertStringIncludes(error, "has no sessions");
      assert(!error.includes("no tmux server"), error);
    }
  },
  { args: ["--toolsets", "inspect,teardown"] },
);

serverTest("environment values with newlines and quotes are read exactly", async (fx, s, pane) => {
  const tricky = "x\"; export Y; $z `w` \\ 'q'";
  await fx.tmux("set-environment", "-g", "MULTI", "a\nINJECTED=1\nsession_name=x");
  await fx.tmux("set-environment", "-g", "TRICKY", tricky);
  await fx.tmux("set-environment", "-g", "-r", "GONE");
  const all = await s.ok("show_environment");
  const names = all.variables.map((v) => v.name);
  assert(names.includes("MULTI") && names.includes("TRICKY"), names.join(" "));
  assert(!names.includes("INJECTED") && !names.includes("session_name"), "no invented variables");
  assertEquals(all.variables.find((v) => v.name === "GONE")?.isRemoved, true);
  const value = async (name: string) =>
    (await s.ok("show_environment", { name })).variables[0]
      .value;
  assertEquals(await value("MULTI"), "a\nINJECTED=1\nsession_name=x");
  assertEquals(await value("TRICKY"), tricky);
  // A line inside a value is not a variable that shadows a format variable.
  const vars = await s.ok<{ values: Record<string, string | null>; withheld: string[] }>(
    "get_tmux_variables",
    { names: ["session_name", "MULTI"], paneId: pane },
  );
  assertEquals([vars.values.session_name, vars.withheld], ["main", ["MULTI"]]);
});

serverTest("capture_pane and snapshot_pane read what the pane shows", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.runInPane(paneId, "clear; printf 'alpha\\nbeta ü 日本\\n'");
  const capture = await s.ok("capture_pane", { paneId });
  assert(capture.content.lines.includes("alpha"));
  assert(capture.content.lines.includes("beta ü 日本"));
  const snap = await s.ok<
    { pane: Pane; content: { lines: string[] }; cursorY: number; alternateScreen: boolean }
  >(
    "snapshot_pane",
    { paneId },
  );
  assertEquals(snap.pane.paneId, paneId);
  assert(snap.content.lines.includes("alpha"));
  const expectedY = Number(await fx.tmux("display-message", "-p", "-t", paneId, "#{cursor_y}"));
  assertEquals(snap.cursorY, expectedY);
  assertEquals(snap.alternateScreen, false);
});

serverTest(
  "budgets: maxLines keeps the newest lines; bytes cut on character boundaries",
  async (fx, s) => {
    const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    await fx.runInPane(paneId, "clear; seq -f 'row %g ééé日本' 1 300");
    const few = await s.ok<
      { content: { lines: string[]; truncated: boolean; droppedLines: number } }
    >(
      "capture_pane",
      { paneId, includeHistory: true, maxLines: 5 },
    );
    assertEquals(few.content.lines.length, 5);
    assert(few.content.truncated && few.content.droppedLines > 0);
    assert(few.content.lines.some((l) => l.startsWith("row 300")), "newest kept");
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: a list that cannot fit --max-bytes is refused; one that fits is whole",
  async (fx, s) => {
    const small = await s.call("list_panes", {});
    assert(!small.isError);
    assertWithinBytes(small, 4000);
    for (let i = 0; i < 12; i++) await fx.tmux("new-window", "-d", "-t", "main");
    const big = await s.call("list_panes", {});
    assert(big.isError, "13 panes do not fit 4,000 bytes");
    const bigText = String((big.content as { text: string }[])[0].text);
    assertStringIncludes(bigText, "byte budget");
    assertStringIncludes(bigText, "Give windowId");
    assertEquals(big.structuredContent, undefined);
    // One window of ten panes: the error names the narrower reads, and they work.
    const windowId = await fx.tmux("display-message", "-p", "-t", "main:0", "#{window_id}");
    for (let i = 0; i < 9; i++) {
      await fx.tmux("split-window", "-t", windowId, ";", "select-layout", "-t", windowId, "tiled");
    }
    // Long titles, so the listing is over budget whatever the checkout's path length.
    const panes = (await fx.tmux("list-panes", "-t", windowId, "-F", "#{pane_id}")).split("\n");
    for (const pane of panes) await fx.tmux("select-pane", "-t", pane, "-T", "t".repeat(120));
    for (const tool of ["list_panes", "get_window_info"]) {
      const error = await s.fails(tool, { windowId });
      assertStringIncludes(error, "byte budget");
      assertStringIncludes(error, "find_pane_by_position {windowId, position}");
      assertStringIncludes(error, "call_read_tools_batch");
    }
    const operations = Array.from({ length: 10 }, (_, position) => ({
      tool: "find_pane_by_position",
      arguments: { windowId, position },
    }));
    const batch = await s.ok<{ results: { result: { pane: Pane } | null }[]; succeeded: number }>(
      "call_read_tools_batch",
      { operations },
    );
    assertEquals(batch.succeeded, 10);
    assertEquals(new Set(batch.results.map((r) => r.result?.pane.paneId)).size, 10);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: every session over --max-bytes is refused with the reads that work and the budget it needs",
  async (fx, s) => {
    const args: string[] = [];
    for (let i = 0; i < 40; i++) args.push(";", "new-session", "-d", "-s", `extra${i}`);
    await fx.tmux(...args.slice(1));
    const error = await s.fails("list_sessions", {});
    assertStringIncludes(error, "byte budget");
    // The sessions one by one, 16 to a batch (whose limit is not --max-bytes).
    assertStringIncludes(error, "get_session_info {session}");
    assertStringIncludes(error, "call_read_tools_batch");
    let succeeded = 0;
    for (let from = 0; from < 41; from += 16) {
      const operations = Array.from({ length: Math.min(16, 41 - from) }, (_, n) => ({
        tool: "get_session_info",
        arguments: { session: `$${from + n}` },
      }));
      const batch = await s.ok<{ succeeded: number; truncated: boolean }>(
        "call_read_tools_batch",
        { operations, onError: "continue" },
      );
      assertEquals(batch.truncated, false);
      succeeded += batch.succeeded;
    }
    assertEquals(succeeded, 41);
    // The budget the error names is enough for the whole list.
    await atNamedBudget(fx.socketPath, error, async (wider, needed) => {
      assert(needed > 4000, `${needed} is over the budget`);
      const whole = await wider.ok("list_sessions", {});
      assertEquals(whole.sessions.length, 41);
    });
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: every session's windows over --max-bytes are refused with session as the narrower read",
  async (fx, s) => {
    const args: string[] = [];
    for (let i = 0; i < 30; i++) args.push(";", "new-session", "-d", "-s", `extra${i}`);
    await fx.tmux(...args.slice(1));
    const error = await s.fails("list_windows", {});
    assertStringIncludes(error, "byte budget");
    assertStringIncludes(error, "Give session");
    const one = await s.call("list_windows", { session: "extra0" });
    assert(!one.isError);
    assertWithinBytes(one, 4000);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest("budgets: the whole result fits --max-bytes", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.runInPane(paneId, "clear; seq -f 'row %g ééé日本' 1 400");
  const result = await s.call("capture_pane", { paneId, includeHistory: true });
  assert(!result.isError);
  assertWithinBytes(result, 4000);
  const content =
    (result.structuredContent as { content: { lines: string[]; droppedBytes: number } }).content;
  assert(content.droppedBytes > 0);
  for (const line of content.lines) assert(!line.includes("\ufffd"), "no broken characters");
  assert(
    content.lines.at(-1)!.includes("row 400") || content.lines.some((l) => l.includes("row 400")),
  );
}, { args: ["--max-bytes", "4000"] });

serverTest(
  "budgets: backslash-heavy history keeps the newest lines that fit, not none",
  async (fx, s, pane) => {
    // 600 lines of 150 backslashes: each byte costs several on the wire (escaped twice).
    await fx.runInPane(
      pane,
      "clear; yes \"$(printf '%0150d' 0 | tr 0 '\\\\')\" | head -n 600",
    );
    for (const maxLines of [undefined, 300]) {
      const result = await s.call("capture_pane", { paneId: pane, includeHistory: true, maxLines });
      assert(!result.isError);
      const bytes = assertWithinBytes(result, 128_000);
      const content = (result.structuredContent as { content: { lines: string[] } }).content;
      const full = content.lines.filter((l) => l === "\\".repeat(150)).length;
      // About 128000 / (150 * 6) lines fit; the bug kept none.
      assert(full > 100, `${full} full lines kept, ${bytes} bytes`);
    }
  },
  { fixture: { width: 200, height: 50 } },
);

serverTest(
  "errors: unknown ids, unknown arguments, wrong types, never echoing values",
  async (_fx, s) => {
    assertStringIncludes(await s.fails("get_pane_info", { paneId: "%999" }), "no such pane");
    assertStringIncludes(await s.fails("get_window_info", { windowId: "@999" }), "no such window");
    assertStringIncludes(
      await s.fails("get_session_info", { session: "no-such-session" }),
      "no such session",
    );
    const unknownArg = await s.fails("list_sessions", { wait_for_previous: true });
    assertStringIncludes(unknownArg, "wait_for_previous");
    assertStringIncludes(unknownArg, "list_sessions failed:");
    const badId = await s.fails("get_pane_info", { paneId: "PANE-SECRET-VALUE" });
    assert(!badId.includes("PANE-SECRET-VALUE"), "the rejected value is not echoed");
    assertStringIncludes(await s.fails("capture_pane", { maxLines: "many" }), "maxLines");
    assertStringIncludes(await s.fails("capture_pane", { maxLines: 0 }), "at least 1");
    assertStringIncludes(await s.fails("no_such_tool"), "does not offer");
  },
);

serverTest(
  "a session named like a format or command is shown as text and runs nothing",
  async (fx, s) => {
    const marker = `${fx.dir}/created`;
    const name = `#(touch ${marker})`;
    // rename-session expands formats, so the fixture escapes '#' to store the text itself.
    await fx.tmux("rename-session", "-t", "main", name.replaceAll("#", "##"));
    const listed = await fx.tmux("list-sessions", "-F", "#{session_name}");
    assertEquals(listed, name);
    const { sessions } = await s.ok("list_sessions");
    assertEquals(sessions.map((x) => x.name), [name]);
    await s.ok("get_session_info", { session: listed });
    await s.ok("list_panes", { session: listed });
    let exists = true;
    try {
      await Deno.stat(marker);
    } catch {
      exists = false;
    }
    assert(!exists, "no file was created");
  },
);

serverTest("read batch: 16 full-history captures stay under 1,000,000 bytes", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.tmux("set-option", "-g", "history-limit", "50000");
  const big = await fx.tmux("new-window", "-P", "-F", "#{pane_id}", "-t", "main:");
  // One process prints it all: a loop forking per line takes minutes on a loaded machine.
  await fx.runInPane(
    big,
    "seq -f 'history line %g xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' 1 6000",
  );
  const operations = Array.from({ length: 16 }, () => ({
    tool: "capture_pane",
    arguments: { paneId: big, includeHistory: true, maxLines: 100000 },
  }));
  const result = await s.client.request(
    { method: "tools/call", params: { name: "call_read_tools_batch", arguments: { operations } } },
    (await import("@modelcontextprotocol/sdk/types.js")).CallToolResultSchema,
  );
  const structured = result.structuredContent as {
    results: { result: unknown; resultTruncated: boolean; success: boolean }[];
    truncated: boolean;
    truncatedBytes: number;
    succeeded: number;
  };
  const line = JSON.stringify({ result, jsonrpc: "2.0", id: 999 }) + "\n";
  assert(new TextEncoder().encode(line).length <= 1_000_000, "the response line fits");
  assertEquals(structured.succeeded, 16);
  assert(structured.truncated);
  const nulled = structured.results.filter((r) => r.resultTruncated);
  assert(nulled.length > 0 && nulled.every((r) => r.result === null));
  // Nulled from the last row backwards: every nulled row comes after every kept one.
  const firstNulled = structured.results.findIndex((r) => r.resultTruncated);
  assert(structured.results.slice(firstNulled).every((r) => r.resultTruncated));
  const keptSize = JSON.stringify(structured.results[0].result).length;
  assert(
    structured.truncatedBytes >= nulled.length * keptSize * 0.9,
    "truncatedBytes counts the nulled results",
  );
  void paneId;
}, { args: ["--max-bytes", "4000000", "--max-lines", "100000"] });

Deno.test("read batch: a non-ASCII request id counts in UTF-8 bytes toward the 1,000,000", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath, "--max-bytes", "4000000"], { stderr: "null" });
  try {
    const pane = await fx.shellPane();
    await fx.runInPane(pane, "seq -f 'history line %g xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' 1 2000");
    await server.initialize();
    // JSON-RPC allows string ids. This one is 600,000 UTF-8 bytes but 300,000
    // UTF-16 units: counted in units, the line overshoots by far more than one
    // row takes (about 50,000 bytes), so nulling rows cannot hide the miscount.
    const id = "\u{1F600}".repeat(150_000);
    const operations = Array.from({ length: 16 }, () => ({
      tool: "capture_pane",
      arguments: { paneId: pane, includeHistory: true, maxLines: 400 },
    }));
    await server.send({
      id,
      method: "tools/call",
      params: { name: "call_read_tools_batch", arguments: { operations } },
    });
    const answer = await server.answer(id);
    const result = answer.result as {
      structuredContent: { truncated: boolean; succeeded: number };
    };
    // The line is the message's JSON and a newline.
    assertWithinBytes(answer, 1_000_000 - 1);
    assertEquals(result.structuredContent.succeeded, 16);
    assert(result.structuredContent.truncated, "rows were nulled to fit");
  } finally {
    await server.hangUp();
    await server.child.status;
  }
});

serverTest("read batch: 16 mixed rows equal the same calls made one by one", async (fx, s) => {
  // Window names follow the running command (env, then bash) unless fixed:
  // both reads must see the same topology.
  await fx.tmux("set-option", "-g", "automatic-rename", "off");
  await fx.tmux("split-window", "-t", "main");
  await fx.tmux("new-window", "-t", "main:");
  await fx.tmux("split-window", "-t", "main:1");
  const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  const windows = (await fx.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
  // Each row must get its own answer, in its own row.
  const operations = Array.from({ length: 16 }, (_, i) => {
    const paneId = panes[i % panes.length];
    return [
      { tool: "get_pane_info", arguments: { paneId } },
      { tool: "capture_pane", arguments: { paneId } },
      { tool: "get_window_info", arguments: { windowId: windows[i % windows.length] } },
      { tool: "get_tmux_variables", arguments: { paneId, names: ["pane_id", "window_id"] } },
    ][i % 4];
  });
  const batch = await s.ok<{ results: { success: boolean; result: unknown }[] }>(
    "call_read_tools_batch",
    { operations },
  );
  assert(batch.results.every((r) => r.success));
  for (const [i, op] of operations.entries()) {
    assertEquals(batch.results[i].result, await s.ok(op.tool, op.arguments), `row ${i}`);
  }
});

serverTest("read batch: limits, refusals and onError", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  const op = { tool: "get_pane_info", arguments: { paneId } };
  assertStringIncludes(
    await s.fails("call_read_tools_batch", { operations: Array.from({ length: 17 }, () => op) }),
    "at most 16",
  );
  // The refusal lists the tools a batch can run.
  const notARead = await s.fails("call_read_tools_batch", {
    operations: [{ tool: "kill_session", arguments: { session: "main" } }],
  });
  assertStringIncludes(notARead, "'operations.0.tool' must be one of ");
  assertStringIncludes(notARead, '"get_pane_info"');
  await s.fails("call_read_tools_batch", {
    operations: [{ tool: "wait_for_text", arguments: {} }],
  });
  const bad = { tool: "get_pane_info", arguments: { paneId: "%999" } };
  const stop = await s.ok<
    { results: unknown[]; stoppedAt: number; failed: number; succeeded: number }
  >(
    "call_read_tools_batch",
    { operations: [op, bad, op] },
  );
  assertEquals([stop.results.length, stop.stoppedAt, stop.failed, stop.succeeded], [2, 1, 1, 1]);
  const cont = await s.ok<
    { results: { success: boolean; error: string | null }[]; stoppedAt: number | null }
  >(
    "call_read_tools_batch",
    { operations: [op, bad, op], onError: "continue" },
  );
  assertEquals(cont.results.map((r) => r.success), [true, false, true]);
  assertEquals(cont.stoppedAt, null);
  assertStringIncludes(cont.results[1].error!, "get_pane_info failed:");
});

serverTest(
  "caller: TMUX/TMUX_PANE on the driven socket mark the pane and make it the default",
  async (fx, s) => {
    const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    await fx.tmux("new-window", "-t", "main:");
    const { panes } = await s.ok("list_panes");
    assertEquals(panes.filter((p) => p.isCaller).map((p) => p.paneId), [paneId]);
    const snap = await s.ok("snapshot_pane", {});
    assertEquals(snap.pane.paneId, paneId);
  },
  { env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%0" }) },
);

for (const transport of TRANSPORTS) {
  Deno.test(
    `caller: the driven socket spelled another way (symlinked directory, //, /./) is still the caller's server [${transport}]`,
    async () => {
      await using fx = await TmuxFixture.start();
      const [pid, socketPath] = (await fx.tmux("display-message", "-p", "#{pid} #{socket_path}"))
        .split(" ");
      const caller = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
      await fx.tmux("split-window", "-t", "main");
      await Deno.symlink(fx.dir, `${fx.dir}/via-link`);
      for (
        const spelled of [
          `${fx.dir}/via-link/tmux.sock`,
          fx.socketPath.replace(/\/tmux\.sock$/, "//tmux.sock"),
          fx.socketPath.replace(/\/tmux\.sock$/, "/./tmux.sock"),
        ]
      ) {
        await using s = await startServer(spelled, {
          args: ["--transport", transport, "--toolsets", "inspect,execute,teardown"],
          env: { TMUX: `${socketPath},${pid},0`, TMUX_PANE: caller },
        });
        const { panes } = await s.ok("list_panes");
        assertEquals(panes.filter((p) => p.isCaller).map((p) => p.paneId), [caller], spelled);
        assertStringIncludes(await s.fails("kill_pane", { paneId: caller }), "this server");
      }
      assertStringIncludes(await fx.tmux("list-panes", "-a", "-F", "#{pane_id}"), caller);
    },
  );
}

serverTest(
  "ids with leading zeros are refused: tmux reads %01 as %1, a spelling the caller guard would miss",
  async (fx, s) => {
    const caller = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    const padded = caller.replace("%", "%0");
    for (const tool of ["kill_pane", "send_keys", "capture_pane", "get_pane_info"]) {
      const args = tool === "send_keys" ? { paneId: padded, text: "x" } : { paneId: padded };
      assertStringIncludes(await s.fails(tool, args), "no leading zeros", tool);
    }
    assertStringIncludes(await s.fails("list_panes", { windowId: "@00" }), "no leading zeros");
    assertStringIncludes(await s.fails("list_windows", { session: "$00" }), "no such session");
    assertStringIncludes(await fx.tmux("list-panes", "-a", "-F", "#{pane_id}"), caller);
  },
  {
    args: ["--toolsets", "inspect,execute,teardown"],
    env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%0" }),
  },
);

serverTest(
  "caller: a TMUX_PANE the driven server does not have (inherited from a closed pane) is no caller",
  async (fx, s) => {
    // An editor started from a shell in tmux keeps TMUX and TMUX_PANE after
    // that pane closed, and hands them to the servers it starts later.
    const first = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    assert(first !== "%99", "the fixture has no pane %99");
    const { panes } = await s.ok("list_panes");
    assert(panes.every((p) => !p.isCaller), "no pane is marked");
    // Reading tools default to the active pane of the first session, not to a missing pane.
    assertEquals((await s.ok("snapshot_pane", {})).pane.paneId, first);
    assertEquals((await s.ok("capture_pane", {})).paneId, first);
    assert(
      !(s.client.getInstructions() ?? "").includes("%99"),
      "the instructions name no own pane",
    );
  },
  { env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%99" }) },
);

serverTest(
  "caller: TMUX pointing at another socket marks nothing",
  async (_fx, s) => {
    const { panes } = await s.ok("list_panes");
    assert(panes.every((p) => !p.isCaller));
  },
  { env: () => ({ TMUX: "/tmp/some-other-socket,1,0", TMUX_PANE: "%0" }) },
);

serverTest(
  "selection: --toolsets inspect lists only inspect tools; excluded tools cannot be called",
  async (_fx, s) => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t: { name: string }) => t.name);
    assert(names.includes("list_panes"));
    assert(!names.includes("capture_pane"), "excluded");
    for (const tool of tools) {
      const meta = (tool._meta as Record<string, { toolset: string; outputClasses: string[] }>)[
        "com.git-pull.libtmux-mcp/capability"
      ];
      assertEquals(meta.toolset, "inspect");
      // Inspect tools only observe: read-only, never destructive, safe to repeat;
      // the open world is the text panes show.
      assertEquals(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: meta.outputClasses.includes("terminal-content"),
      }, tool.name);
      assertEquals(
        (tool.inputSchema as { additionalProperties?: boolean }).additionalProperties,
        false,
      );
    }
    const refusal = await s.fails("capture_pane", {});
    assertStringIncludes(refusal, "does not offer");
    assertStringIncludes(refusal, "toolsets on: inspect.");
  },
  { args: ["--toolsets", "inspect", "--exclude-tools", "capture_pane"] },
);

Deno.test("tools/list advertises the default of every argument that has one", async () => {
  // A client (and the model) only sees a default through the input schema's
  // `default` (docs/tools.md lists them).
  const defaults: Record<string, Record<string, unknown>> = {
    show_option: { scope: "Pane" },
    show_hooks: { scope: "Session" },
    capture_pane: { includeHistory: false, joinWrappedLines: false },
    search_panes: {
      literal: false,
      includeHistory: false,
      ignoreCase: true,
      maxMatchesPerPane: 20,
    },
    wait_for_text: { literal: false, ignoreCase: true },
    call_read_tools_batch: { onError: "stop" },
    move_window: { replaceExisting: false },
    swap_pane: { keepZoom: false },
    split_window: { direction: "Below" },
    respawn_pane: { killFirst: false },
    run_shell_command: { suppressHistory: true },
    send_keys: { enter: false },
    send_keys_batch: { onError: "stop" },
    paste_text: { bracketed: true, enter: false },
  };
  await using fx = await TmuxFixture.start();
  await using s = await startServer(fx.socketPath, {
    args: ["--toolsets", "inspect,manage,execute,teardown", "--transport", "process"],
  });
  const { tools } = await s.client.listTools();
  const wrong: string[] = [];
  for (const [name, expected] of Object.entries(defaults)) {
    const tool = tools.find((t: { name: string }) => t.name === name);
    assert(tool, `${name} is listed`);
    const properties = tool.inputSchema.properties as Record<string, { default?: unknown }>;
    for (const [argument, value] of Object.entries(expected)) {
      const advertised = properties[argument]?.default;
      if (advertised !== value) {
        wrong.push(`${name}.${argument}: ${JSON.stringify(advertised)}, not ${value}`);
      }
    }
  }
  assertEquals(wrong, []);
});

serverTest(
  "selection: with no toolset on, a refused tool says so rather than listing none",
  async (_fx, s) => {
    const refusal = await s.fails("kill_pane", { paneId: "%0" });
    assertStringIncludes(refusal, "does not offer");
    assertStringIncludes(refusal, "no toolset is on");
    assert(!refusal.includes("toolsets on:"), refusal);
  },
  { args: ["--toolsets", "", "--tools", "list_panes"], transports: ["process"] },
);

Deno.test("an error hint naming a tool the settings left out says it is not offered", async () => {
  await using fx = await TmuxFixture.empty();
  await using readonly = await startServer(fx.socketPath, { env: { LIBTMUX_SAFETY: "readonly" } });
  await using all = await startServer(fx.socketPath, { args: ["--toolsets", "inspect,execute"] });
  // No tmux server: the hint says to create a session, which only execute can.
  const refused = await readonly.fails("get_pane_info", { paneId: "%0" });
  assertStringIncludes(refused, "(create_session)");
  assertStringIncludes(
    refused,
    "Not offered by this server: create_session (toolsets on: inspect).",
  );
  const offered = await all.fails("get_pane_info", { paneId: "%0" });
  assertStringIncludes(offered, "(create_session)");
  assert(!offered.includes("Not offered"), offered);
});

serverTest(
  "selection: a teardown-only server's 'no such pane' hint says the list tools are not offered",
  async (_fx, s) => {
    const refusal = await s.fails("kill_pane", { paneId: "%999" });
    assertStringIncludes(
      refusal,
      "Not offered by this server: list_sessions, list_windows, list_panes (toolsets on: teardown).",
    );
  },
  { args: ["--toolsets", "teardown"], transports: ["process"] },
);

// The control transport has no client to attach here: every call takes its fallback.
for (const transport of TRANSPORTS) {
  Deno.test(`no tmux server on the socket: lists are empty, targeted tools say so [${transport}]`, async () => {
    await using fx = await TmuxFixture.empty();
    await using s = await startServer(fx.socketPath, { args: ["--transport", transport] });
    assertEquals(await s.ok("list_sessions"), { sessions: [] });
    assertEquals(await s.ok("list_panes"), { panes: [] });
    assertEquals(await s.ok("list_windows"), { windows: [] });
    assertStringIncludes(await s.fails("get_pane_info", { paneId: "%0" }), "no tmux server");
    assertStringIncludes(await s.fails("capture_pane", {}), "no tmux server");
  });
}

Deno.test("the capabilities resource describes the socket, toolsets and tools", async () => {
  await using fx = await TmuxFixture.start();
  await using s = await startServer(fx.socketPath, { args: ["--toolsets", "inspect"] });
  const read = await s.client.readResource({ uri: "tmux://capabilities" });
  const doc = JSON.parse((read.contents[0] as { text: string }).text);
  assertEquals(doc.tmux.socket, { path: fx.socketPath });
  assertEquals(doc.toolsets, ["inspect"]);
  assert(
    doc.tools.length > 0 && doc.tools.every((t: { toolset: string }) => t.toolset === "inspect"),
  );
  const instructions = s.client.getInstructions() ?? "";
  assert(new TextEncoder().encode(instructions).length <= 2048);
});

serverTest("get_tmux_variables never returns environment variables", async (fx, s, pane) => {
  await fx.tmux("set-environment", "-g", "GITHUB_TOKEN", "ghp_secretvalue123");
  await fx.tmux("set-environment", "-t", "main", "DB_PASSWORD", "hunter2");
  const result = await s.ok<{ values: Record<string, string | null>; withheld: string[] }>(
    "get_tmux_variables",
    { names: ["GITHUB_TOKEN", "DB_PASSWORD", "session_name"], paneId: pane },
  );
  assertEquals(result.values, { GITHUB_TOKEN: null, DB_PASSWORD: null, session_name: "main" });
  assertEquals(result.withheld.sort(), ["DB_PASSWORD", "GITHUB_TOKEN"]);
  assert(!JSON.stringify(result).includes("hunter2"));
});

serverTest(
  "budgets: a long pane title is cut in views, so setting it succeeds and the pane stays readable",
  async (fx, s, pane) => {
    const view = (p: Pane) => new TextEncoder().encode(p.title!).length;
    const title = "é".repeat(1000);
    const set = await s.ok("set_pane_title", { paneId: pane, title });
    assertEquals(await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}"), title);
    assert(view(set.pane) <= 256 && set.pane.title!.endsWith("é\u2026"), set.pane.title!);
    // A program sets a longer one with an escape sequence; reads of its pane still fit.
    await fx.runInPane(pane, `printf '\\033]2;%s\\033\\\\' "$(printf 'T%.0s' $(seq 1 5000))"`);
    await eventually(
      async () =>
        (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}")).length > 4000,
      "the program's title is set",
    );
    const info = await s.ok("get_pane_info", { paneId: pane });
    assert(view(info.pane) <= 256 && info.pane.title!.startsWith("TTT"), info.pane.title!);
    const listed = await s.ok("list_panes", {});
    assertEquals(listed.panes[0].title, info.pane.title);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: over-budget errors name only what helps; a change tool says the change was made",
  async (fx, s, pane) => {
    for (let i = 0; i < 60; i++) {
      await fx.tmux("set-environment", "-g", `VAR_${i}_${"X".repeat(60)}`, "v");
    }
    const listing = await s.fails("show_environment", {});
    assertStringIncludes(listing, "byte budget");
    assertStringIncludes(listing, "--max-bytes");
    assert(!/maxLines|fewer lines|fewer panes/.test(listing), listing);
    // A path no label cut can shorten: the title is set, and the error says so.
    let dir = fx.dir;
    for (let i = 0; i < 12; i++) dir += `/${"d".repeat(250)}`;
    await Deno.mkdir(dir, { recursive: true });
    await fx.runInPane(pane, `cd ${dir}`);
    const error = await s.fails("set_pane_title", { paneId: pane, title: "done" });
    assertStringIncludes(error, "tmux made the change");
    assertStringIncludes(error, "Do not repeat the call");
    assertEquals(await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}"), "done");
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "capture_pane: a reversed range is refused; rows outside the pane are counted, not replaced",
  async (fx, s, pane) => {
    const file = `${fx.dir}/rows.txt`;
    await Deno.writeTextFile(file, Array.from({ length: 50 }, (_, i) => `n${i}`).join("\n") + "\n");
    await fx.runInPane(pane, `clear; cat ${file}`);
    const history = Number(await fx.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
    type Capture = { content: { lines: string[]; truncated: boolean }; rowsNotHeld?: number };
    const read = async (range: Record<string, unknown>) => {
      const r = await s.ok<Capture>("capture_pane", { paneId: pane, ...range });
      return [r.content.lines, r.rowsNotHeld];
    };
    for (const range of [{ start: 5, end: 2 }, { end: -1 }]) {
      assertStringIncludes(
        await s.fails("capture_pane", { paneId: pane, ...range }),
        "start is below end",
      );
    }
    assertEquals(await read({ start: 100, end: 200 }), [[], 101]);
    assertEquals(await read({ start: -1000, end: -999 }), [[], 2]);
    assertEquals(await read({ start: -history - 2, end: -history }), [["n0"], 2]);
    assertEquals(await read({ start: 20 }), [[], 1]);
    assertEquals(await read({ end: -1000, includeHistory: true }), [[], 1]);
    assertEquals(await read({ start: -history, end: -history + 1 }), [["n0", "n1"], 0]);
    assertEquals((await read({}))[1], undefined);
  },
  { fixture: { width: 40, height: 10 } },
);

serverTest(
  "capture_pane: joinWrappedLines joins tmux's wrapped rows and trims trailing spaces as a plain capture does",
  async (fx, s, pane) => {
    // A line wrapped at a space (kept: it is inside the joined line), a line
    // ending in spaces, and a row of spaces (a blank row to a plain capture).
    await fx.runInPane(pane, "clear; printf '%019d %s\\nabc   \\n%20s\\n' 0 tail ''");
    // The wait-for ends before the shell has drawn its next prompt.
    await eventually(
      async () => (await fx.tmux("capture-pane", "-p", "-J", "-t", pane)).includes("\n$"),
      "the prompt after the printf",
    );
    const plain = (await fx.tmux("capture-pane", "-p", "-t", pane)).split("\n");
    assertEquals(plain.slice(0, 4), ["0".repeat(19), "tail", "abc", ""]);
    const joined = ["0".repeat(19) + " tail", "abc", "", "$"];
    // What tmux joins, with each line's trailing spaces trimmed.
    const tmuxJoined = (await fx.tmux("capture-pane", "-p", "-J", "-t", pane)).split("\n")
      .map((line) => line.trimEnd());
    assertEquals(tmuxJoined.slice(0, 4), joined);
    type Capture = { content: { lines: string[] }; rowsNotHeld?: number };
    for (const range of [{}, { start: 0, end: 4 }, { includeHistory: true }]) {
      const r = await s.ok<Capture>("capture_pane", {
        paneId: pane,
        joinWrappedLines: true,
        ...range,
      });
      assertEquals(r.content.lines, joined, JSON.stringify(range));
    }
  },
  { fixture: { width: 20, height: 8 } },
);

serverTest(
  "budgets: capture_since over budget on a tall pane says its cursor is the cause, not maxLines",
  async (fx, s, pane) => {
    // The cursor remembers the screen's rows down to the last written one.
    await fx.runInPane(pane, "seq 1 500");
    for (const args of [{}, { maxLines: 1 }]) {
      const error = await s.fails("capture_since", { paneId: pane, ...args });
      assertStringIncludes(error, "cursor alone");
      assertStringIncludes(error, "--max-bytes");
      assert(!error.includes("maxLines"), error);
    }
    await s.ok("snapshot_pane", { paneId: pane, maxLines: 1 });
  },
  { args: ["--max-bytes", "4000"], fixture: { width: 80, height: 400 } },
);

serverTest(
  "list_panes and search_panes with a session named like a window (tmux's default names 0, 1, ...) read that session",
  async (fx, s) => {
    // tmux names sessions 0, 1, 2... by default. Session "1" made first, then
    // session "0" with a window at index 1: "0" is now tmux's current session,
    // where a bare "1" would name its window 1.
    await fx.tmux("new-session", "-d", "-s", "1");
    await fx.tmux("new-session", "-d", "-s", "0", ";", "new-window", "-d", "-t", "=0:");
    const one = await fx.tmux("list-panes", "-s", "-t", "=1:", "-F", "#{pane_id}");
    await fx.runInPane(one, "echo needle-in-one");
    const zero = (await fx.tmux("list-panes", "-s", "-t", "=0:", "-F", "#{pane_id}")).split("\n");
    for (const pane of zero) await fx.runInPane(pane, "echo needle-in-zero");
    const listed = await s.ok("list_panes", { session: "1" });
    assertEquals(listed.panes.map((p) => p.paneId), [one]);
    const found = await s.ok("search_panes", {
      pattern: "needle-in",
      session: "1",
    });
    assertEquals(found.panes.map((p) => p.paneId), [one]);
    // A session named like another session's window id ("@N" names are allowed).
    const windowOfMain = await fx.tmux("display-message", "-p", "-t", "main", "#{window_id}");
    await fx.tmux("new-session", "-d", "-s", windowOfMain);
    const named = await fx.tmux("list-panes", "-s", "-t", `=${windowOfMain}:`, "-F", "#{pane_id}");
    const byName = await s.ok("list_panes", { session: windowOfMain });
    assertEquals(byName.panes.map((p) => p.paneId), [named]);
    // A session that does not exist is named as such, not as a missing window.
    assertStringIncludes(await s.fails("list_panes", { session: "no-such" }), "no such session");
  },
);

serverTest(
  "a missing session reads as 'tmux has no such session' in every tool that names one",
  async (fx, s) => {
    // show_environment's tmux command says "no such session: NAME" where most
    // say "can't find session: NAME"; the agent gets the same error either way.
    for (
      const [tool, args] of [
        ["show_environment", { session: "gone-session" }],
        ["show_environment", { session: "gone-session", name: "PATH" }],
        ["list_windows", { session: "gone-session" }],
      ] as const
    ) {
      const text = await s.fails(tool, args);
      assertEquals(
        text,
        `${tool} failed: tmux has no such session. ` +
          "List what exists with list_sessions, list_windows or list_panes and use an id from there.",
      );
    }
    assertEquals(await fx.tmux("list-sessions", "-F", "#{session_name}"), "main");
  },
);

serverTest(
  "get_server_info counts each window and pane once, however many sessions show it",
  async (fx, s, pane) => {
    await fx.tmux("split-window", "-t", pane);
    const window = await fx.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:");
    await fx.tmux("new-session", "-d", "-s", "other");
    await fx.tmux("link-window", "-s", window, "-t", "=other:");
    await fx.tmux("new-session", "-d", "-s", "group", "-t", "=main");
    // What tmux lists once per session that shows it, counted once.
    const distinct = async (list: string, id: string) =>
      new Set((await fx.tmux(list, "-a", "-F", `#{${id}}`)).split("\n")).size;
    const server = await s.ok("get_server_info");
    assertEquals(
      [server.sessions, server.windows, server.panes],
      [3, await distinct("list-windows", "window_id"), await distinct("list-panes", "pane_id")],
    );
    assertEquals([server.windows, server.panes], [3, 4]);
  },
);

serverTest(
  "get_tmux_variables withholds hidden environment variables (set-environment -h) too",
  async (fx, s, pane) => {
    // tmux falls back to the environment, hidden variables included, for a name no format has.
    await fx.tmux("set-environment", "-g", "-h", "API_TOKEN", "hidden-s3cr3t");
    await fx.tmux("set-environment", "-h", "-t", "main", "SESSION_HIDDEN", "also-hidden");
    assertEquals(
      await fx.tmux("display-message", "-p", "-t", pane, "#{API_TOKEN} #{SESSION_HIDDEN}"),
      "hidden-s3cr3t also-hidden",
    );
    const vars = await s.ok<{ values: Record<string, string | null>; withheld: string[] }>(
      "get_tmux_variables",
      { names: ["API_TOKEN", "SESSION_HIDDEN", "session_name"], paneId: pane },
    );
    assertEquals(vars.values, { API_TOKEN: null, SESSION_HIDDEN: null, session_name: "main" });
    assertEquals(vars.withheld, ["API_TOKEN", "SESSION_HIDDEN"]);
  },
);

serverTest(
  "show_option Server reads a user option set with set -g (as tmux.conf sets @plugin) or set -gw",
  async (fx, s, pane) => {
    await fx.tmux("set-option", "-g", "@plugin", "tmux-plugins/tpm");
    await fx.tmux("set-option", "-gw", "@window-theme", "dark");
    await fx.tmux("set-option", "-s", "@both", "server");
    await fx.tmux("set-option", "-g", "@both", "session");
    const value = async (name: string, paneId?: string) =>
      (await s.ok("show_option", { name, scope: "Server", paneId }))
        .value;
    for (const paneId of [undefined, pane]) {
      assertEquals(await value("@plugin", paneId), "tmux-plugins/tpm");
      assertEquals(await value("@window-theme", paneId), "dark");
      // The server's own table comes first.
      assertEquals(await value("@both", paneId), "server");
      assertEquals(await value("@unset", paneId), null);
    }
    // Built-in options still read their own global value.
    assertEquals(
      (await s.ok("show_option", {
        name: "history-limit",
        scope: "Server",
      })).value,
      await fx.tmux("show-options", "-g", "-v", "history-limit"),
    );
  },
);
