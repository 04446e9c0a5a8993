/**
 * Round trips per tool call: each tool does its work in as few tmux commands
 * as it can, chained into as few round trips as it can. In process mode every
 * round trip is one tmux process, counted here through a wrapper binary; the
 * expected counts are the design, so a change to one is a decision, not an
 * accident.
 *
 * @module
 */

import { assertEquals } from "./assert.ts";
import { ALL_TOOLSETS, countingTmux, startServer, TmuxFixture } from "./harness.ts";

/** Failure bound of the wait for the listing check a topology change schedules. */
const BOUND_MS = 20_000;

Deno.test("round trips per call: one for every tool with nothing to look up first (process mode, counted)", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("new-window", "-t", "main:");
  await fx.tmux("split-window", "-t", "main:1");
  await fx.tmux("new-session", "-d", "-s", "other");
  const [p0, p1, p2] = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  const [w0, w1] = (await fx.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
  const counter = await countingTmux(fx.dir);
  await using s = await startServer(fx.socketPath, {
    args: ["--transport", "process", "--tmux", counter.binary, ...ALL_TOOLSETS],
    denoFlags: [`--allow-run=${counter.binary}`],
  });
  // [tool, arguments, round trips, whether it changes the topology]
  const calls: [string, Record<string, unknown>, number, boolean?][] = [
    ["list_sessions", {}, 1],
    ["list_windows", {}, 1],
    ["list_panes", {}, 1],
    ["get_server_info", {}, 1],
    ["get_session_info", { session: "main" }, 1],
    ["get_window_info", { windowId: w1 }, 1],
    ["get_pane_info", { paneId: p1 }, 1],
    ["find_pane_by_position", { windowId: w1, corner: "top-left" }, 1],
    ["get_tmux_variables", { names: ["pane_id"], paneId: p1 }, 1],
    ["show_option", { name: "history-limit", scope: "Pane", paneId: p1 }, 1],
    ["show_environment", {}, 1],
    ["show_hooks", { scope: "Session", paneId: p1 }, 1],
    ["capture_pane", { paneId: p1 }, 1],
    // No paneId (and no caller pane): the first session's active pane is looked up first.
    ["capture_pane", {}, 2],
    ["snapshot_pane", { paneId: p1 }, 1],
    // The pane's state first: how much history to read depends on it.
    ["capture_since", { paneId: p1 }, 2],
    // The panes first, then every capture in one round trip.
    ["search_panes", { pattern: "x" }, 2],
    // Again: the panes last listed are captured and listed in one round trip.
    ["search_panes", { pattern: "x" }, 1],
    [
      "call_read_tools_batch",
      {
        operations: [p0, p1].map((paneId) => ({
          tool: "get_pane_info",
          arguments: { paneId },
        })),
      },
      2,
    ],
    ["resize_pane", { paneId: p2, height: 10 }, 1],
    ["resize_window", { windowId: w1, width: 90, height: 25 }, 1],
    ["select_layout", { windowId: w1, layout: "even-vertical" }, 1],
    ["set_history_limit", { session: "main", lines: 5000 }, 1],
    ["set_mouse_enabled", { enabled: true, session: "main" }, 1],
    ["set_pane_title", { paneId: p1, title: "t" }, 1],
    ["set_synchronize_panes", { windowId: w1, enabled: false }, 1],
    ["signal_channel", { channel: "early" }, 1],
    // The server's pid, the waiter (tmux keeps the early signal), the pid again.
    ["wait_for_channel", { channel: "early", timeoutSeconds: 5 }, 3],
    ["select_pane", { paneId: p1 }, 1],
    ["select_window", { windowId: w0 }, 1],
    // A direction is resolved from tmux's lists first.
    ["select_pane", { paneId: p1, direction: "next" }, 2],
    ["send_keys", { paneId: p1, text: "echo a", keys: ["C-u"] }, 1],
    ["paste_text", { paneId: p1, text: "echo b\necho c" }, 1],
    [
      "send_keys_batch",
      { operations: [{ paneId: p1, text: "x" }, { paneId: p2, keys: ["C-u"] }] },
      2,
    ],
    ["respawn_pane", { paneId: p2, killFirst: true }, 1],
    ["clear_pane_scrollback", { paneId: p1 }, 1],
    ["rename_window", { windowId: w1, newName: "renamed" }, 1, true],
    ["rename_session", { session: "other", newName: "other2" }, 1, true],
    ["swap_pane", { paneId: p1, targetPaneId: p2 }, 1, true],
    ["create_window", { session: "main", name: "made" }, 1, true],
    ["split_window", { paneId: p0 }, 1, true],
    ["create_session", { name: "made" }, 1, true],
    // The move is decided from the session's windows: read first, then move.
    ["move_window", { windowId: w1, destinationIndex: 7 }, 2, true],
    ["kill_pane", { paneId: p2 }, 1, true],
    // The rows, the caller check (by tmux) and the kill in one round trip.
    ["kill_window", { windowId: w1 }, 1, true],
    ["kill_session", { session: "other2" }, 1, true],
  ];
  for (const [tool, args, expected, changesTopology] of calls) {
    await counter.reset();
    await s.ok(tool, args);
    const started = await counter.started();
    assertEquals(started.length, expected, `${tool}: ${started.join(" | ")}`);
    if (changesTopology) {
      // A topology change schedules one listing check (200 ms later); let it
      // start so that its process is not counted for the next call.
      const deadline = Date.now() + BOUND_MS;
      while ((await counter.started()).length < expected + 1) {
        if (Date.now() > deadline) throw new Error(`${tool}: no listing check followed`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
});

Deno.test("round trips per call: run_shell_command in a warm pane (process mode, counted)", async () => {
  const fx = await TmuxFixture.start();
  try {
    const pane = await fx.shellPane();
    const counter = await countingTmux(fx.dir);
    const s = await startServer(fx.socketPath, {
      args: ["--transport", "process", "--tmux", counter.binary],
      denoFlags: [`--allow-run=${counter.binary}`],
    });
    try {
      for (let run = 0; run < 4; run++) {
        await counter.reset();
        await s.ok("run_shell_command", { paneId: pane, command: "printf ok" });
        // Looks for the prompt after the run and at the pane during the
        // wait depend on how fast the shell is: not counted.
        // (A process's commands end with the transport's marker.)
        const started = (await counter.started())
          .map((line) => line.replace(/ ; display-message -p tmux-mcp-split-\S+$/, ""))
          .filter((line) =>
            !/^[^;]*display-message -p -t \S+ #\{cursor_x\} [^;]*$/.test(line) &&
            !line.endsWith(" #{pane_dead}")
          );
        // The run's watch (it reads the status and the rows when the frame
        // signals); the guarded line (tmux checks the shell the last run
        // found, and reads the server's pid and the earlier runs' marks); the
        // frame's report.
        if (run > 0) assertEquals(started.length, 3, started.join(" | "));
      }
    } finally {
      await s.close();
    }
  } finally {
    await fx.close();
  }
});
