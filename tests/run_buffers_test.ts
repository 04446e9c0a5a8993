/**
 * A `run_shell_command` run changes no paste buffer. tmux 3.4+ tells every
 * control client of each buffer change, and one that lands while a control
 * client attaches crashes tmux (docs/tmux-quirks.md): a run may meet the
 * attach of any control client, ours or a person's.
 *
 * @module
 */

import { assert, assertEquals } from "./assert.ts";
import { type Session, type TmuxFixture, withServer } from "./harness.ts";

/** A control client of the test's own, attached to the fixture's first session; `heard()` ends it. */
function listen(fx: TmuxFixture) {
  const child = new Deno.Command("tmux", {
    args: ["-S", fx.socketPath, "-C", "attach-session", "-f", "no-output,ignore-size,read-only"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const output = new Response(child.stdout).text();
  return {
    async heard(): Promise<string> {
      await child.stdin.close();
      await child.status;
      return await output;
    },
  };
}

/** Control clients attaching one after another (each leaves at the end of its input) until `stop`. */
async function attachAgainAndAgain(fx: TmuxFixture, stop: { now: boolean }): Promise<number> {
  let count = 0;
  while (!stop.now) {
    await new Deno.Command("tmux", {
      args: ["-S", fx.socketPath, "-C", "attach-session", "-f", "no-output,ignore-size,read-only"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    count++;
  }
  return count;
}

/** Runs of every kind: typed inline, carried in the body, timed out and waited for again. */
async function runsOfEveryKind(fx: TmuxFixture, s: Session, pane: string, round: number) {
  const inline = await s.ok<{ output: { lines: string[] } }>("run_shell_command", {
    paneId: pane,
    command: `echo inline-${round}`,
  });
  assertEquals(inline.output.lines, [`inline-${round}`]);
  const body = await s.ok<{ output: { lines: string[] } }>("run_shell_command", {
    paneId: pane,
    command: `echo body-${round}\necho é`,
  });
  assertEquals(body.output.lines, [`body-${round}`, "é"]);
  const slow = await s.ok<{ runId: string }>("run_shell_command", {
    paneId: pane,
    command: `tmux wait-for gate-${round}; echo late-${round}`,
    timeoutSeconds: 0.2,
  });
  await fx.tmux("wait-for", "-S", `gate-${round}`);
  const late = await s.ok<{ exitStatus: number; output: { lines: string[] } }>(
    "run_shell_command",
    { paneId: pane, runId: slow.runId },
  );
  assertEquals([late.exitStatus, late.output.lines], [0, [`late-${round}`]]);
}

Deno.test("run_shell_command changes no paste buffer, so control clients attaching meanwhile are safe", async () => {
  await withServer({}, async (fx, s, pane) => {
    const pid = await fx.tmux("display-message", "-p", "#{pid}");
    const listener = listen(fx);
    const stop = { now: false };
    const attaches = attachAgainAndAgain(fx, stop);
    try {
      for (let round = 0; round < 8; round++) await runsOfEveryKind(fx, s, pane, round);
    } finally {
      stop.now = true;
    }
    assert(await attaches > 0, "control clients attached during the runs");
    assertEquals(await fx.tmux("display-message", "-p", "#{pid}"), pid, "tmux lives on");
    const heard = await listener.heard();
    assert(heard.includes("%begin"), `the listener attached: ${heard}`);
    assertEquals(heard.split("\n").filter((line) => line.startsWith("%paste-buffer")), []);
    assertEquals(await fx.tmux("list-buffers"), "");
  });
});
