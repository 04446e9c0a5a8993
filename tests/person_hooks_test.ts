/**
 * A person's tmux hooks run after our commands, in our clients: one that
 * fails must not fail a call that did its work (an agent told so would do
 * it again: type the keys twice, open a second window), and what one prints
 * must not reach a read's result (the control transport; the process
 * transport cannot tell it apart: docs/tmux-quirks.md#a-persons-hooks).
 *
 * @module
 */

import { assertEquals } from "./assert.ts";
import { withServer } from "./harness.ts";
import { run, setup } from "./run_helpers.ts";

/** Hooks after the commands typing, running and creating use, each failing. */
const FAILING_HOOKS = ["after-send-keys", "after-set-option", "after-new-window"];

for (const transport of ["control", "process"]) {
  Deno.test(`a person's failing hooks do not fail calls that did their work [${transport}]`, async () => {
    await withServer(
      setup({ args: ["--transport", transport] }),
      async (fixture, session, pane) => {
        for (const hook of FAILING_HOOKS) {
          await fixture.tmux("set-hook", "-g", hook, "select-pane -t %999");
        }
        const text = "echo typed-$((6*7)); tmux wait-for -S typed";
        await session.ok("send_keys", { paneId: pane, text, keys: ["Enter"] });
        await fixture.tmux("wait-for", "typed");
        const r = await run(session, pane, "echo ran");
        assertEquals([r.outcome, r.exitStatus, r.output.lines], ["completed", 0, ["ran"]]);
        // Typed once: the line and its output each show once.
        const screen = (await fixture.tmux("capture-pane", "-p", "-t", pane)).split("\n");
        assertEquals(screen.filter((line) => line === "typed-42").length, 1, screen.join("\n"));
        const windows = await fixture.tmux("list-windows", "-a", "-F", "#{window_name}");
        await session.ok("create_window", { session: "main", name: "hooked" });
        const after = await fixture.tmux("list-windows", "-a", "-F", "#{window_name}");
        assertEquals(after.split("\n").length, windows.split("\n").length + 1);
      },
    );
  });
}

/** Hooks after the commands the read tools send, each printing to the client that ran it. */
const PRINTING_HOOKS = [
  "after-capture-pane",
  "after-display-message",
  "after-list-panes",
  "after-list-sessions",
  "after-list-windows",
  "after-show-options",
];

Deno.test("a person's printing hooks do not reach the reads [control]", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    for (const hook of PRINTING_HOOKS) {
      await fixture.tmux("set-hook", "-g", hook, "display-message -p hook-printed");
    }
    // The hooks print into a tmux process's output: a fixture process sees them.
    assertEquals((await fixture.tmux("list-sessions", "-F", "#{session_name}")).split("\n"), [
      "main",
      "hook-printed",
    ]);
    const reads: [string, Record<string, unknown>][] = [
      ["list_sessions", {}],
      ["list_panes", {}],
      ["get_pane_info", { paneId: pane }],
      ["capture_pane", { paneId: pane }],
      ["snapshot_pane", { paneId: pane }],
      ["capture_since", { paneId: pane }],
      ["search_panes", { pattern: "hook" }],
    ];
    for (const [tool, args] of reads) {
      const result = JSON.stringify(await session.ok(tool, args));
      assertEquals(result.includes("hook-printed"), false, `${tool}: ${result}`);
    }
  });
});

Deno.test("a person's printing hook fails a listing on the process transport, naming hooks", async () => {
  await withServer(setup({ args: ["--transport", "process"] }), async (fixture, session) => {
    await fixture.tmux("set-hook", "-g", "after-list-sessions", "display-message -p hook-printed");
    // Its line lands in the process's output after the records, where nothing tells it apart.
    const error = await session.fails("list_sessions");
    assertEquals(error.includes("A tmux hook that prints"), true, error);
  });
});

Deno.test("a person's printing hooks around a run's watch leave its result whole [control]", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    // The watch's commands after its wait: markers, the state line, option unsets.
    for (const hook of ["after-display-message", "after-set-option"]) {
      await fixture.tmux("set-hook", "-g", hook, "display-message -p hook-printed");
    }
    const r = await run(session, pane, "printf 'a\\nb\\n'");
    assertEquals([r.outcome, r.exitStatus, r.output.lines], ["completed", 0, ["a", "b"]]);
  });
});
