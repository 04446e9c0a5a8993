/**
 * The parts under wait_for_text and capture_since, without the MCP server:
 * watchPaneOutput against real tmux (which output and events wake a watch,
 * polling for a missing pane), and how rows tmux wrapped are joined into
 * lines (wrapFlags, logicalLines).
 *
 * @module
 */

import { assertEquals } from "./assert.ts";
import { TmuxFixture } from "./harness.ts";
import { logicalLines } from "../domain/logical_lines.ts";
import type { Snapshot } from "../domain/since.ts";
import { wrapFlags } from "../domain/wrapped.ts";
import { Tmux } from "../tmux/client.ts";
import { liveWatchClients, watchPaneOutput } from "../tmux/output_watch.ts";
import { ProcessTransport } from "../tmux/process_transport.ts";
import { BOUND_MS, SHELL } from "./watch_helpers.ts";

Deno.test("wrapFlags: reads tmux's wraps off the joined capture, not off row lengths", () => {
  // A full row tmux did not wrap, a wrap at a space, and a wrap after wide characters.
  const padded = ["abcd", "ERROR", "abc ", "HELLO", "ああ", "了", ""];
  assertEquals(wrapFlags(padded, "abcd\nERROR\nabc HELLO\nああ了\n\n"), [
    false,
    false,
    true,
    false,
    true,
    false,
    false,
  ]);
  assertEquals(wrapFlags([], ""), []);
  assertEquals(wrapFlags(["ab", "cd"], "ab\nce"), undefined, "not the same rows");
  assertEquals(wrapFlags(["ab", "cd"], "ab\ncd\nef"), undefined, "a row more");
});

Deno.test("logicalLines: joins the rows tmux wrapped, from the start of the first row's line", () => {
  const snap: Snapshot = {
    state: {
      paneId: "%1",
      sessionId: "$0",
      pid: 1,
      historySize: 2,
      historyLimit: 100,
      height: 4,
      width: 4,
      cursorY: 3,
      alternate: false,
      dead: false,
    },
    first: 0,
    rows: ["abcd", "ef", "abcd", "x", "ab c", "d"],
    wrapped: [null, null, "abcd", null, "ab c", null],
  };
  assertEquals(logicalLines(snap, 0, 6), ["abcd", "ef", "abcdx", "ab cd"]);
  // Rows 3 and 5 were written onto lines that started above them.
  assertEquals(logicalLines(snap, 3, 4), ["abcdx"]);
  assertEquals(logicalLines(snap, 5, 6), ["ab cd"]);
  assertEquals(logicalLines(snap, 5, 5), []);
  // Without wrap information every row stands alone.
  assertEquals(logicalLines({ ...snap, wrapped: undefined }, 2, 4), ["abcd", "x"]);
});

Deno.test("watchPaneOutput: wakes on the pane's output, not on others', and on focus changes in its window; polls for a missing pane", async () => {
  await using fixture = await TmuxFixture.start({ width: 80, height: 10 });
  const args = ["-S", fixture.socketPath, "-f", "/dev/null"];
  const tmux = new Tmux(
    "tmux",
    { kind: "path", path: fixture.socketPath, source: "flag" },
    new ProcessTransport("tmux", args, "test socket"),
  );
  try {
    const pane = await fixture.windowPane(SHELL);
    const other = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    await fixture.runInPane(pane, "true");
    await fixture.runInPane(other, "true");
    const watch = await watchPaneOutput(tmux, pane);
    const witness = await watchPaneOutput(tmux, other);
    assertEquals(watch.mechanism, "control-mode");
    assertEquals(liveWatchClients(), 1, "one client per session, shared");
    // Output of another pane of the same session does not wake this watch:
    // once the other pane's watch woke, the client has passed that output.
    await fixture.runInPane(other, "echo elsewhere");
    assertEquals(await witness.next(BOUND_MS), true);
    assertEquals(await watch.next(0), false, "no wake for another pane");
    // The pane's own output does (runInPane returns after it printed).
    await fixture.runInPane(pane, "echo here");
    assertEquals(await watch.next(BOUND_MS), true);
    // Focus moving between the two panes prints nothing, yet changes the
    // pane's view (active): tmux says %window-pane-changed, which wakes it.
    // (The first wake may also come from the prompt bash printed after the
    // echo; nothing but the focus change can give the second.)
    // (split-window left the other pane active.)
    await fixture.tmux("select-pane", "-t", pane);
    assertEquals(await watch.next(BOUND_MS), true, "a wake when the pane gains focus");
    await fixture.tmux("select-pane", "-t", other);
    assertEquals(await watch.next(BOUND_MS), true, "a wake when the pane loses focus");
    await witness.close();
    await watch.close();
    const missing = await watchPaneOutput(tmux, "%999");
    assertEquals(missing.mechanism, "polling");
    assertEquals(await missing.next(BOUND_MS), true, "a poll says: look now");
    await missing.close();
    // The client left with its last watcher (closing waits for it).
    assertEquals(liveWatchClients(), 0);
  } finally {
    await tmux.close();
  }
});
