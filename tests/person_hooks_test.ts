/**
 * A person's tmux hooks run after our commands, in our clients: one that
 * fails must not fail a call that did its work (an agent told so would do
 * it again: type the keys twice, open a second window).
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
