/**
 * The agent's loop around run_shell_command against real tmux: a run
 * returns with the prompt drawn, so a cursor taken next and a wait on it
 * see the typed line as an echo; a run that outlives its call is waited
 * for again by its runId, with progress meanwhile.
 *
 * @module
 */

import type { z } from "zod";
import type { runShellCommand } from "../tools/run_shell_command.ts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { KeptRuns } from "../domain/kept_runs.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { eventually, type ServerTestOptions, withServer } from "./harness.ts";

/** {@link withServer} options: the pane is a fresh window running `shell`. */
function setup(shell: string, args: string[] = []): ServerTestOptions {
  return { args, pane: (fixture) => fixture.tmux("new-window", "-P", "-F", "#{pane_id}", shell) };
}

/** bash without rc files and a plain prompt. */
const PLAIN_BASH = `env PS1='$ ' bash --norc --noprofile`;
/** bash whose prompt takes a while to draw (as a git-status prompt does). */
const SLOW_PROMPT_BASH = `env PS1='$(sleep 0.3)$ ' bash --norc --noprofile`;

Deno.test("run_shell_command returns once the prompt is back: a wait on the next cursor skips the typed line", async () => {
  await withServer(setup(SLOW_PROMPT_BASH), async (fixture, session, pane) => {
    const screen = () => fixture.tmux("capture-pane", "-p", "-t", pane);
    // Output without a final newline leaves the cursor off column 0 before the prompt too.
    for (let trial = 0; trial < 13; trial++) {
      const run = await session.ok("run_shell_command", {
        paneId: pane,
        command: trial < 10 ? "true" : "printf ok",
      });
      assertEquals(run.exitStatus, 0);
      const { cursor } = await session.ok("capture_since", { paneId: pane });
      const line = `tmux wait-for gate-${trial}; echo 'listening on port'`;
      await session.ok("send_keys", { paneId: pane, text: line, enter: true });
      // The echo is on screen before the wait begins: only the command's own
      // line, printed once the gate opens, may end it.
      await eventually(
        async () => (await screen()).includes(`gate-${trial}; echo`),
        "the typed line is echoed",
      );
      const early = await session.ok("wait_for_text", {
        paneId: pane,
        patterns: ["listening on port"],
        cursor,
        timeoutSeconds: 0.3,
      });
      assertEquals(early.outcome, "timeout", `trial ${trial}: the echo matched`);
      await fixture.tmux("wait-for", "-S", `gate-${trial}`);
      const late = await session.ok("wait_for_text", {
        paneId: pane,
        patterns: ["^listening on port$"],
        cursor,
        timeoutSeconds: 20,
      });
      assertEquals(late.outcome, "matched", `trial ${trial}`);
      assertStringIncludes(late.tail.lines.join("\n"), "listening on port");
    }
  });
});

type Run = z.infer<typeof runShellCommand.output>;

function text(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

Deno.test("run_shell_command: a run that outlives its call is waited for again by its runId", async () => {
  // A 1 s ceiling stands for the 30 s one: a longer timeout is clamped.
  await withServer(
    setup(PLAIN_BASH, ["--wait-max-seconds", "1"]),
    async (fixture, session, pane) => {
      const other = await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", PLAIN_BASH);
      const first = await session.call("run_shell_command", {
        paneId: pane,
        command: "echo before; tmux wait-for gate-a; echo after; exit 4",
        timeoutSeconds: 5,
      });
      const r = first.structuredContent as unknown as Run;
      assertEquals([r.outcome, r.stillRunning, r.timeoutClamped], ["timed_out", true, true]);
      assertEquals(r.effectiveTimeoutSeconds, 1);
      assert(r.runId !== null, "a timed-out run has a runId");
      assertStringIncludes(text(first), "timeout clamped to the 1 s ceiling");
      assertStringIncludes(text(first), `runId ${r.runId}`);
      // Reads and runs elsewhere do not disturb it.
      for (let i = 0; i < 3; i++) {
        await session.ok("capture_pane", { paneId: pane });
        const elsewhere = await session.ok<Run>("run_shell_command", {
          paneId: other,
          command: `echo elsewhere ${i}`,
        });
        assertEquals(elsewhere.output.lines, [`elsewhere ${i}`]);
      }
      const again = await session.ok<Run>("run_shell_command", {
        paneId: pane,
        runId: r.runId,
        timeoutSeconds: 0.5,
      });
      assertEquals([again.outcome, again.stillRunning, again.runId], ["timed_out", true, r.runId]);
      assertEquals(again.output.lines, ["before"]);
      await fixture.tmux("wait-for", "-S", "gate-a");
      const done = await session.ok<Run>("run_shell_command", { paneId: pane, runId: r.runId });
      assertEquals([done.outcome, done.exitStatus, done.stillRunning, done.runId], [
        "completed",
        4,
        false,
        null,
      ]);
      assertEquals(done.output.lines, ["before", "after"]);
      // Timed from the start, as if one call had waited all along.
      const elapsed = [r.elapsedSeconds, again.elapsedSeconds, done.elapsedSeconds];
      assert(elapsed[1] >= elapsed[0] + 0.5 && elapsed[2] > elapsed[1], `elapsed ${elapsed}`);
      assertStringIncludes(
        await session.fails("run_shell_command", { paneId: pane, runId: r.runId }),
        "returned already",
      );
      assertStringIncludes(
        await session.fails("run_shell_command", { paneId: pane, runId: "0a1b2c" }),
        "no run with this id",
      );
      assertStringIncludes(await session.fails("run_shell_command", { paneId: pane }), "runId");
    },
  );
});

Deno.test("run_shell_command: a run that ended unwatched keeps its result when a later run takes the pane", async () => {
  await withServer(
    setup(PLAIN_BASH, ["--wait-max-seconds", "1"]),
    async (fixture, session) => {
      // A short history, set before the pane is made (tmux sizes it then).
      await fixture.tmux("set-option", "-g", "history-limit", "100");
      const pane = await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", PLAIN_BASH);
      const slow = await session.ok<Run>("run_shell_command", {
        paneId: pane,
        command: "echo one; tmux wait-for gate-b; echo two; exit 5",
      });
      assertEquals(slow.outcome, "timed_out");
      // Still running: the pane is busy, and the refusal names the run to wait for.
      const busy = await session.fails("run_shell_command", { paneId: pane, command: "true" });
      assertStringIncludes(busy, `runId ${slow.runId}`);
      await fixture.tmux("wait-for", "-S", "gate-b");
      // Its frame drops the pane's busy mark when it ends.
      await eventually(
        async () =>
          (await fixture.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running")) === "",
        "the run has ended",
      );
      // The next run clears the pane's options, and its output pushes the
      // earlier run's out of the history.
      const next = await session.ok<Run>("run_shell_command", {
        paneId: pane,
        command: "seq 1 300",
      });
      assertEquals([next.outcome, next.exitStatus], ["completed", 0]);
      const screen = await fixture.tmux("capture-pane", "-p", "-S", "-", "-t", pane);
      assert(!screen.includes("one"), "the earlier output is gone from the pane");
      const late = await session.ok<Run>("run_shell_command", { paneId: pane, runId: slow.runId });
      assertEquals([late.outcome, late.exitStatus, late.output.lines], ["completed", 5, [
        "one",
        "two",
      ]]);
    },
  );
});

Deno.test("run_shell_command: a long wait reports progress", async () => {
  await withServer(setup(PLAIN_BASH), async (fixture, session, pane) => {
    const seen: number[] = [];
    let twice!: () => void;
    const reported = new Promise<void>((resolve) => (twice = resolve));
    const call = session.client.callTool(
      { name: "run_shell_command", arguments: { paneId: pane, command: "tmux wait-for gate-c" } },
      undefined,
      {
        onprogress: (p: { progress: number }) => {
          seen.push(p.progress);
          if (seen.length === 2) twice();
        },
        timeout: 60_000,
      },
    );
    // A failure bound, not a pace: without progress the assertion below fails.
    const bound = setTimeout(twice, 20_000);
    await reported;
    clearTimeout(bound);
    await fixture.tmux("wait-for", "-S", "gate-c");
    const r = (await call).structuredContent as unknown as Run;
    assertEquals([r.outcome, r.exitStatus], ["completed", 0]);
    assert(seen.length >= 2 && seen[1] > seen[0] && seen[1] >= 1, `progress ${seen}`);
  });
});

Deno.test("kept runs: bounded in count and time, and say what became of a dropped one", () => {
  let now = 0;
  // Each run no longer kept is handed back once (its watch is ended then).
  const dropped: string[] = [];
  const runs = new KeptRuns<null>({ count: 2, ms: 60_000 }, () => now, (r) => dropped.push(r.id));
  const run = (id: string) => ({
    id,
    label: "s",
    paneId: "%1",
    owner: "1",
    frame: null,
    startedAt: 0,
  });
  runs.keep(run("a"));
  runs.keep(run("b"));
  runs.keep(run("c"));
  assertEquals(runs.onPane("s", "%1").map((r) => r.id), ["b", "c"]);
  assertStringIncludes(JSON.stringify(runs.take("s", "%1", "a")), "at most 2 runs");
  assertStringIncludes(JSON.stringify(runs.take("s", "%2", "b")), "runs in pane %1");
  now = 60_000;
  assertStringIncludes(JSON.stringify(runs.take("s", "%1", "c")), "within 1 minutes");
  // Evicted (a), expired (b, c); forgetting one no longer kept drops nothing more.
  runs.forget("b", "collected");
  assertEquals(dropped, ["a", "b", "c"]);
  // Waited for again, a run's time starts over.
  now = 0;
  const fresh = new KeptRuns<null>({ count: 2, ms: 60_000 }, () => now);
  fresh.keep(run("d"));
  now = 50_000;
  const taken = fresh.take("s", "%1", "d");
  assert(!("why" in taken), "kept within its time");
  fresh.keep(taken);
  now = 100_000;
  assertEquals(fresh.has("d"), true);
});
