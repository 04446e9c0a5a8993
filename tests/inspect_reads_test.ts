/**
 * The inspect toolset's reads over stdio against a real tmux: the list and
 * info tools, find_pane_by_position, options, environment and hooks, and
 * the errors for ids, sessions and servers that are not there.
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { eventually, serverTest, startServer, TmuxFixture, TRANSPORTS } from "./harness.ts";

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
