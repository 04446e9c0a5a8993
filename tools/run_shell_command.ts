/** `run_shell_command`: runs a command in a pane's shell and returns its exit status and output. */

import { z } from "zod";
import { budgetLines, type Content, contentText } from "../core/budget.ts";
import { ToolError } from "../core/errors.ts";
import { KEPT_LIMITS, type KeptRun, KeptRuns } from "../domain/kept_runs.ts";
import { budget } from "../core/panes.ts";
import { withProgress } from "../core/progress_ticker.ts";
import { earlierRun, leftovers } from "../domain/earlier_runs.ts";
import { promptBack } from "../domain/prompt_back.ts";
import {
  type Ended,
  type Outcome,
  OUTCOMES,
  outputSoFar,
  readEnded,
  releasedOutput,
  typeWatched,
  type WatchedFrame,
} from "../domain/run_result.ts";
import { defineTool, type ToolContext } from "../core/registry.ts";
import { content, maxLines, paneId, timeoutSeconds } from "../core/schemas.ts";
import { newRunId, runNames, type RunningMark } from "../domain/shell_frame.ts";
import { typeRunLine } from "../domain/run_typing.ts";
import { TmuxError } from "../tmux/errors.ts";
import { paneLineCommand } from "../tmux/views.ts";
import type { ChannelWatch } from "../tmux/wait_for.ts";

/** A run's id, as {@link newRunId} makes it. */
const RUN_ID = /^[0-9a-z]{6}$/;

/** How often the wait checks that the pane still exists. */
const PANE_CHECK_MS = 500;

/** A call running a command in a pane: its request's signal, and when it has ended. */
interface ActiveRun {
  signal: AbortSignal;
  ended: Promise<void>;
}

// Calls running a command in a pane right now, by socket + pane.
const active = new Map<string, ActiveRun>();
// Runs that outlived their call, for a later call with their runId; a run
// no longer kept has its watch ended.
const kept = new KeptRuns<WatchedFrame>(
  KEPT_LIMITS,
  undefined,
  (run) => run.frame.watch.release(),
);

/** The run_shell_command tool. */
export const runShellCommand = defineTool({
  name: "run_shell_command",
  title: "Run shell command",
  description:
    "Runs a command in a pane's shell (sh, bash, zsh, dash, fish); returns exit status and output. " +
    "Subshell: cd, export do not stay. On timeout it keeps running: call again with its runId " +
    "instead of command, or send_keys C-c. Interactive programs: send_keys.",
  capability: {
    toolset: "execute",
    processReach: "pane-command",
    tmuxEffects: ["observe", "change"],
    outputClasses: ["tmux-metadata", "terminal-content"],
    mayExposeSecrets: true,
    mayReturnUntrustedContent: true,
    amplifiesFutureInput: false,
  },
  input: z.strictObject({
    paneId,
    command: z.string().min(1).max(100_000).nullish().describe(
      "May span lines (here-documents work). Omit with runId.",
    ),
    runId: z.string().regex(RUN_ID, { error: "must be a runId as a timed-out run returned it" })
      .nullish().describe("A timed-out run's runId: keep waiting for it."),
    timeoutSeconds,
    maxLines,
    suppressHistory: z.boolean().nullish().default(true).describe(
      "Start the line with a space, out of shell history.",
    ),
  }),
  output: z.object({
    paneId: z.string(),
    outcome: z.enum(OUTCOMES),
    exitStatus: z.int().nullable().describe("The command's exit status; null unless completed."),
    output: content,
    outputIncomplete: z.boolean().describe(
      "Part of the output could not be read back: its start scrolled out of the pane's history " +
        "(history-limit) or the screen was cleared or switched; output holds what remained.",
    ),
    elapsedSeconds: z.number(),
    effectiveTimeoutSeconds: z.number(),
    timeoutClamped: z.boolean().describe("The timeout asked for was above the server's ceiling."),
    stillRunning: z.boolean(),
    runId: z.string().nullable().describe("With stillRunning: pass it back to keep waiting."),
  }),
  async handler(args, ctx) {
    if ((args.command == null) === (args.runId == null)) {
      throw new ToolError(
        args.command == null ? "give command or runId" : "give command or runId, not both",
        "Pass command to run a new command, or runId (from a timed-out result) to keep waiting for it.",
      );
    }
    const key = `${ctx.tmux.label} ${args.paneId}`;
    for (let earlier = active.get(key); earlier; earlier = active.get(key)) {
      if (!earlier.signal.aborted) {
        throw busy(args.paneId, "another run_shell_command call is waiting on it");
      }
      // A cancelled call waits no more, but is still keeping the run it
      // typed for a later call: let it finish, so that this call's busy
      // message can name that run.
      await earlier.ended;
    }
    const ended = Promise.withResolvers<void>();
    active.set(key, { signal: ctx.signal, ended: ended.promise });
    try {
      const { command, runId } = args;
      return command != null
        ? await run({ ...args, command }, ctx)
        : await resume(args, runId!, ctx);
    } finally {
      active.delete(key);
      ended.resolve();
    }
  },
  render: (r) =>
    contentText(
      `pane ${r.paneId}: ${r.outcome}${
        r.exitStatus === null ? "" : `, exit status ${r.exitStatus}`
      }` +
        `${r.stillRunning ? ", still running" : ""} after ${r.elapsedSeconds} s` +
        `${
          r.timeoutClamped ? ` (timeout clamped to the ${r.effectiveTimeoutSeconds} s ceiling)` : ""
        }` +
        `${r.outputIncomplete ? " (start of the output scrolled out of the history)" : ""}` +
        `${r.runId === null ? "" : `; keep waiting with runId ${r.runId}`}`,
      r.output,
    ),
});

/** What a call waiting for a run was asked. */
interface WaitArgs {
  paneId: string;
  timeoutSeconds?: number | null;
  maxLines?: number | null;
}

interface RunArgs extends WaitArgs {
  command?: string | null;
  suppressHistory?: boolean | null;
}

async function run(args: RunArgs & { command: string }, ctx: ToolContext) {
  if (args.command.includes("\0")) {
    throw new ToolError("the command contains a NUL character", "Remove it and try again.");
  }
  const started = performance.now();
  const earlierBusy = (earlier: RunningMark) =>
    busy(
      args.paneId,
      "the command of an earlier run_shell_command (which timed out or was cancelled) is still running",
      kept.has(earlier.id) ? earlier.id : undefined,
    );
  const request = { ...args, suppressHistory: args.suppressHistory ?? true };
  const id = newRunId();
  // The watch outlives a call that times out.
  const watchMs = KEPT_LIMITS.ms + ctx.settings.waitMaxSeconds * 1000;
  const { typed, watch } = await typeWatched(
    ctx,
    args.paneId,
    runNames(id),
    watchMs,
    () => typeRunLine(ctx, request, id, earlierBusy),
  );
  const { frame, owner, serverPid, listing } = typed;
  const run: KeptRun<WatchedFrame> = {
    id,
    label: ctx.tmux.label,
    paneId: args.paneId,
    owner,
    frame: { ...frame, watch, serverPid },
    startedAt: started,
  };
  try {
    await settleEarlier(ctx, args.paneId, owner, id, listing);
  } catch (error) {
    kept.keep(run);
    throw error;
  }
  return await waitAndCollect(ctx, run, args);
}

/**
 * Once a line is typed, no earlier run of the pane is still going (the
 * shell was at its prompt): takes the results of kept runs that ended,
 * then drops what earlier runs left behind (run `current` is the new one).
 * `listing` is the pane's options right before the line.
 */
async function settleEarlier(
  ctx: ToolContext,
  paneId: string,
  owner: string,
  current: string,
  listing: string,
): Promise<void> {
  const earlier = earlierRun(listing, owner);
  await settleKept(ctx, paneId, owner, earlier);
  const cleanup = leftovers(paneId, listing, earlier, current);
  if (cleanup.length > 0) await ctx.tmux.run(cleanup);
}

/** What a call learned of a run when its wait ended. */
interface Concluded {
  outcome: Outcome;
  ended: Ended | null;
  lines: string[];
}

/**
 * Waits for `run` within this call's timeout and reads its result; a run
 * that outlives the call is kept for a later call with its runId.
 */
async function waitAndCollect(ctx: ToolContext, run: KeptRun<WatchedFrame>, args: WaitArgs) {
  const ceiling = ctx.settings.waitMaxSeconds;
  const effective = Math.min(args.timeoutSeconds ?? ceiling, ceiling);
  const since = (at: number) => Math.round(at - run.startedAt) / 1000;
  const waited = await withProgress(
    ctx,
    `running in ${run.paneId}`,
    since(performance.now()),
    effective,
    () => waitForRun(ctx, run.paneId, run.frame.watch, effective * 1000),
  );
  const elapsedSeconds = since(performance.now());
  const { outcome, ended, lines } = await conclude(ctx, run, waited);
  const stillRunning = outcome === "timed_out" || outcome === "cancelled";
  const output = budget(ctx, ended?.lines ?? lines, args.maxLines);
  if (ended?.outputIncomplete) output.truncated = true;
  return {
    paneId: run.paneId,
    outcome,
    exitStatus: ended?.exitStatus ?? null,
    output,
    outputIncomplete: ended?.outputIncomplete ?? false,
    elapsedSeconds,
    effectiveTimeoutSeconds: effective,
    timeoutClamped: (args.timeoutSeconds ?? 0) > ceiling,
    stillRunning,
    runId: stillRunning ? run.id : null,
  };
}

/**
 * Reads what a wait that ended with `outcome` left: the result of a run
 * that ended (once its shell has drawn the prompt again), the output so far
 * of one that goes on (kept for a later call), a dead pane's last rows.
 */
async function conclude(
  ctx: ToolContext,
  run: KeptRun<WatchedFrame>,
  outcome: Outcome,
): Promise<Concluded> {
  const { watch } = run.frame;
  if (outcome === "timed_out" || outcome === "cancelled") {
    kept.keep(run);
    const lines = outcome === "timed_out" ? await outputSoFar(ctx, run.paneId, run.frame) : [];
    return { outcome, ended: null, lines };
  }
  kept.forget(run.id, "its result was returned already");
  if (outcome === "pane_exited") {
    watch.release();
    const outputs = await watch.ended.catch(() => null);
    return { outcome, ended: null, lines: outputs ? releasedOutput(run.frame, outputs) : [] };
  }
  let ended: Ended | null;
  try {
    ended = await readEnded(ctx, run.paneId, run.frame, await watch.ended);
  } catch (error) {
    if (error instanceof TmuxError && error.kind === "no_target") {
      return { outcome: "pane_exited", ended: null, lines: [] };
    }
    throw error;
  }
  if (ended === null) {
    throw new ToolError(
      "the run's channel was signalled before the command ended",
      "Something else may have signalled it; look at the pane and run the command again.",
    );
  }
  // The next line typed (or cursor taken) must find the prompt drawn.
  await promptBack(ctx, run.paneId, ended.end);
  return { outcome, ended, lines: [] };
}

/** Waits again for run `runId`, which an earlier call left running. */
async function resume(args: WaitArgs, runId: string, ctx: ToolContext) {
  const run = kept.take(ctx.tmux.label, args.paneId, runId);
  if ("why" in run) {
    throw new ToolError(
      `run ${runId} cannot be waited for: ${run.why}`,
      "Check the pane (capture_pane), and run the command again if needed.",
    );
  }
  const ended = run.ended;
  if (ended === undefined && await sameShell(ctx, run)) {
    try {
      return await waitAndCollect(ctx, run, args);
    } catch (error) {
      // Not waited for to the end (the server went, a read failed): a later call may.
      if (!kept.has(run.id)) kept.keep(run);
      throw error;
    }
  }
  // Its shell was respawned or its pane closed, with the run.
  if (ended === undefined) run.frame.watch.release();
  kept.forget(run.id, "its result was returned already");
  const ceiling = ctx.settings.waitMaxSeconds;
  return {
    paneId: run.paneId,
    outcome: ended ? "completed" as const : "pane_exited" as const,
    exitStatus: ended?.exitStatus ?? null,
    output: rebudget(ctx, ended?.output, args.maxLines),
    outputIncomplete: ended?.outputIncomplete ?? false,
    elapsedSeconds: ended?.elapsedSeconds ?? Math.round(performance.now() - run.startedAt) / 1000,
    effectiveTimeoutSeconds: Math.min(args.timeoutSeconds ?? ceiling, ceiling),
    timeoutClamped: (args.timeoutSeconds ?? 0) > ceiling,
    stillRunning: false,
    runId: null,
  };
}

/** True when the shell `run` was typed into still runs in its pane. */
async function sameShell(ctx: ToolContext, run: KeptRun<WatchedFrame>): Promise<boolean> {
  try {
    return await ctx.tmux.one(paneLineCommand(run.paneId, "#{pane_pid}")) === run.owner;
  } catch (error) {
    if (error instanceof TmuxError && error.kind === "no_target") return false;
    throw error;
  }
}

/** `output` (kept within the default budget) within this call's `maxLines`. */
function rebudget(ctx: ToolContext, output: Content | undefined, maxLines?: number | null) {
  if (!output) return budget(ctx, []);
  const fitted = budgetLines(
    output.lines,
    maxLines ?? ctx.settings.maxLines,
    ctx.settings.maxBytes,
  );
  fitted.droppedLines += output.droppedLines;
  fitted.droppedBytes += output.droppedBytes;
  fitted.truncated ||= output.truncated;
  return fitted;
}

function busy(paneId: string, why: string, runId?: string): ToolError {
  const wait = runId
    ? `Wait for it with run_shell_command paneId ${paneId} runId ${runId}`
    : "Wait for it to finish (wait_for_text)";
  return new ToolError(
    `pane ${paneId} is busy: ${why}`,
    `${wait}, or interrupt it with send_keys keys ["C-c"], then call ` +
      "run_shell_command again (respawn_pane also clears it, by restarting the pane's shell).",
  );
}

/** How long a kept run that ended may take to hand over its result. */
const SETTLE_MS = 2_000;

/**
 * Once a new line was typed into the pane of `owner`: takes the result of
 * each kept run of the pane that ended (its watch read it), and drops kept
 * runs that cannot end: their shell was restarted, or their line never ran
 * (`earlier`, the pane's busy mark before the line, still names them).
 */
async function settleKept(
  ctx: ToolContext,
  paneId: string,
  owner: string,
  earlier: RunningMark | null,
): Promise<void> {
  for (const run of kept.onPane(ctx.tmux.label, paneId)) {
    if (run.ended) continue;
    if (run.owner !== owner) {
      kept.forget(run.id, "the pane's shell was restarted, which ended it");
    } else if (earlier?.id === run.id) {
      kept.forget(run.id, "the shell never ran its line (a later run took the pane)");
    } else {
      try {
        const outputs = await within(run.frame.watch.ended, SETTLE_MS);
        const ended = await readEnded(ctx, paneId, run.frame, outputs);
        if (ended === null) throw new ToolError("it stored no exit status", "");
        run.ended = {
          exitStatus: ended.exitStatus,
          output: budget(ctx, ended.lines),
          outputIncomplete: ended.outputIncomplete,
          elapsedSeconds: Math.round(performance.now() - run.startedAt) / 1000,
        };
      } catch (error) {
        if (!(error instanceof ToolError || error instanceof TmuxError)) throw error;
        kept.forget(run.id, `its result could not be read: ${error.message}`);
      }
    }
  }
}

/** `promise`, or a ToolError once `ms` passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolError(`it did not end within ${ms} ms`, "")), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for the run's watch to end, within `timeoutMs`, while checking that
 * the pane lives on; the watch itself goes on.
 */
async function waitForRun(
  ctx: ToolContext,
  paneId: string,
  watch: ChannelWatch,
  timeoutMs: number,
): Promise<Outcome> {
  const paneGone = new AbortController();
  let checking = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = async () => {
    if (!checking) return;
    try {
      if (!(await paneAlive(ctx, paneId))) {
        paneGone.abort();
        return;
      }
    } catch (error) {
      // The watch itself reports a vanished server; anything else ends the wait too.
      if (!(error instanceof TmuxError)) throw error;
      paneGone.abort();
      return;
    }
    if (checking) timer = setTimeout(check, PANE_CHECK_MS);
  };
  timer = setTimeout(check, PANE_CHECK_MS);
  const stop = AbortSignal.any([ctx.signal, paneGone.signal]);
  let onStop = () => {};
  let deadline: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<Outcome>((resolve) => {
      watch.ended.then(() => resolve("completed"), () => resolve("completed"));
      deadline = setTimeout(() => resolve("timed_out"), Math.max(0, timeoutMs));
      onStop = () => resolve(ctx.signal.aborted ? "cancelled" : "pane_exited");
      if (stop.aborted) onStop();
      else stop.addEventListener("abort", onStop, { once: true });
    });
  } finally {
    checking = false;
    clearTimeout(timer);
    clearTimeout(deadline);
    stop.removeEventListener("abort", onStop);
  }
}

async function paneAlive(ctx: ToolContext, paneId: string): Promise<boolean> {
  const out = await ctx.tmux.one(paneLineCommand(paneId, "#{pane_dead}"));
  return out === "0";
}
