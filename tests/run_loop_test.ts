/**
 * The agent's loop around run_shell_command against real tmux: a run
 * returns with the prompt drawn, so a cursor taken next and a wait on it
 * see the typed line as an echo.
 *
 * @module
 */

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { eventually, type Session, startServer, TmuxFixture } from "./harness.ts";

/** A fixture with a window running `shell`, and a server driving it. */
async function setup(
  shell: string,
  args: string[] = [],
): Promise<{ fixture: TmuxFixture; session: Session; pane: string }> {
  const fixture = await TmuxFixture.start();
  const pane = await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", shell);
  const session = await startServer(fixture.socketPath, { args });
  return { fixture, session, pane };
}

async function teardown(fixture: TmuxFixture, session: Session): Promise<void> {
  await session.close();
  await fixture.close();
}

/** bash whose prompt takes a while to draw (as a git-status prompt does). */
const SLOW_PROMPT_BASH = `env PS1='$(sleep 0.3)$ ' bash --norc --noprofile`;

Deno.test("run_shell_command returns once the prompt is back: a wait on the next cursor skips the typed line", async () => {
  const { fixture, session, pane } = await setup(SLOW_PROMPT_BASH);
  const screen = () => fixture.tmux("capture-pane", "-p", "-t", pane);
  try {
    for (let trial = 0; trial < 10; trial++) {
      const run = await session.ok<{ exitStatus: number }>("run_shell_command", {
        paneId: pane,
        command: "true",
      });
      assertEquals(run.exitStatus, 0);
      const { cursor } = await session.ok<{ cursor: string }>("capture_since", { paneId: pane });
      const line = `tmux wait-for gate-${trial}; echo 'listening on port'`;
      await session.ok("send_keys", { paneId: pane, text: line, enter: true });
      // The echo is on screen before the wait begins: only the command's own
      // line, printed once the gate opens, may end it.
      await eventually(
        async () => (await screen()).includes(`gate-${trial}; echo`),
        "the typed line is echoed",
      );
      const early = await session.ok<{ outcome: string }>("wait_for_text", {
        paneId: pane,
        patterns: ["listening on port"],
        cursor,
        timeoutSeconds: 0.3,
      });
      assertEquals(early.outcome, "timeout", `trial ${trial}: the echo matched`);
      await fixture.tmux("wait-for", "-S", `gate-${trial}`);
      const late = await session.ok<{ outcome: string; tail: { lines: string[] } }>(
        "wait_for_text",
        { paneId: pane, patterns: ["^listening on port$"], cursor, timeoutSeconds: 20 },
      );
      assertEquals(late.outcome, "matched", `trial ${trial}`);
      assertStringIncludes(late.tail.lines.join("\n"), "listening on port");
    }
  } finally {
    await teardown(fixture, session);
  }
});
