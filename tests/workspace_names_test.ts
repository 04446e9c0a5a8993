/**
 * Naming and setting up the workspace over stdio against a real tmux:
 * rename_session, rename_window and set_pane_title, names tmux would read as
 * an id or stores escaped (as each tmux version does), and the history,
 * mouse and synchronize-panes options.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { tmuxVersion } from "./harness.ts";
import { parseTmuxVersion } from "../tmux/version.ts";
import {
  type Action,
  assertNoFile,
  show,
  trickyNames,
  workspaceTest,
} from "./workspace_helpers.ts";

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
