/** `run_shell_command`: runs a command in a pane's shell and returns its exit status and output. */

import { z } from "zod";
import { budgetLines, type Content, contentText } from "../core/budget.ts";
import { ToolError } from "../core/errors.ts";
import { type KeptRun, KeptRuns } from "../domain/kept_runs.ts";
import { budget } from "../core/panes.ts";
import { withProgress } from "../core/progress_ticker.ts";
import { earlierRun, leftovers } from "../domain/earlier_runs.ts";
import { promptBack, promptRead } from "../domain/prompt_back.ts";
import { collect, type Outcome, OUTCOMES } from "../domain/run_result.ts";
import { defineTool, type ToolContext } from "../core/registry.ts";
import { content, maxLines, paneId, timeoutSeconds } from "../core/schemas.ts";
import { AWAIT_ROWS, type Frame, newRunId, type RunningMark } from "../domain/shell_frame.ts";
import { typeRunLine } from "../domain/run_typing.ts";
import { TmuxError } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";
import { paneLineCommand } from "../tmux/views.ts";
import { waitForChannel } from "../tmux/wait_for.ts";

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
// Runs that outlived their call, for a later call with their runId.
const kept = new KeptRuns<Frame>();

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
      // A cancelled call waits no more: a run it typed is now an earlier run
      // that the pane's marks describe (previousRun). It only ends its wait by
      // signalling the run's channel, which previousRun waits on too; let
      // that signal pass first (a few ms, RELEASE_GRACE_MS at most), or it
      // could wake previousRun and pass a run still going for ended.
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
  const { frame, owner, serverPid, listing } = await typeRunLine(
    ctx,
    request,
    newRunId(),
    earlierBusy,
  );
  await settleEarlier(ctx, args.paneId, owner, frame.id, listing);
  const typed = { id: frame.id, label: ctx.tmux.label, paneId: args.paneId, owner, frame };
  return await waitAndCollect(ctx, { ...typed, startedAt: started }, args, serverPid);
}

/**
 * Once a line is typed, no earlier run of the pane is still going (the
 * shell was at its prompt): reads the results of kept runs that ended,
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
  await settleKept(ctx, paneId, owner, listing.split("\n").map((line) => line.split(" ", 1)[0]));
  const cleanup = leftovers(paneId, listing, earlier, current);
  if (cleanup.length > 0) await ctx.tmux.run(cleanup);
}

/**
 * Waits for `run` within this call's timeout and reads its result; a run
 * that outlives the call is kept for a later call with its runId.
 * `serverPid`, read before the line was typed, saves reading it around the wait.
 */
async function waitAndCollect(
  ctx: ToolContext,
  run: KeptRun<Frame>,
  args: WaitArgs,
  serverPid?: string,
) {
  const ceiling = ctx.settings.waitMaxSeconds;
  const effective = Math.min(args.timeoutSeconds ?? ceiling, ceiling);
  const since = (at: number) => Math.round(at - run.startedAt) / 1000;
  const outcome = await withProgress(
    ctx,
    `running in ${run.paneId}`,
    since(performance.now()),
    effective,
    () => waitForRun(ctx, run.paneId, run.frame.channel, effective * 1000, serverPid),
  );
  const elapsedSeconds = since(performance.now());
  const result = await collect(ctx, run.paneId, run.frame, outcome, true, serverPid, [
    promptRead(run.paneId),
  ]);
  // The next line typed (or cursor taken) must find the prompt drawn.
  if (result.outcome === "completed") {
    await promptBack(ctx, run.paneId, result.also?.[0], result.end);
  }
  const stillRunning = result.outcome === "timed_out" || result.outcome === "cancelled";
  if (stillRunning) kept.keep(run);
  else kept.forget(run.id, "its result was returned already");
  const output = budget(ctx, result.lines, args.maxLines);
  if (result.outputIncomplete) output.truncated = true;
  return {
    paneId: run.paneId,
    outcome: result.outcome,
    exitStatus: result.exitStatus,
    output,
    outputIncomplete: result.outputIncomplete,
    elapsedSeconds,
    effectiveTimeoutSeconds: effective,
    timeoutClamped: (args.timeoutSeconds ?? 0) > ceiling,
    stillRunning,
    runId: stillRunning ? run.id : null,
  };
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
  const ended = run.ended ?? (await sameShell(ctx, run) ? undefined : null);
  if (ended === undefined) {
    try {
      // A call waits again: the frame copies its rows at the end.
      await ctx.tmux.run([
        ["set-option", "-p", "-t", paneTarget(run.paneId), run.frame.awaitOption, AWAIT_ROWS],
      ]);
      return await waitAndCollect(ctx, run, args);
    } catch (error) {
      // Not waited for to the end (the server went, a read failed): a later call may.
      if (!kept.has(run.id)) kept.keep(run);
      throw error;
    }
  }
  kept.forget(run.id, "its result was returned already");
  const ceiling = ctx.settings.waitMaxSeconds;
  return {
    paneId: run.paneId,
    // null: the pane's shell was respawned or the pane closed, with the run.
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
async function sameShell(ctx: ToolContext, run: KeptRun<Frame>): Promise<boolean> {
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

/**
 * Before a new run clears the pane's options: reads the result of each kept
 * run of the pane that ended (`options` names its status option), which no
 * call could read afterwards, and drops kept runs that cannot end (their
 * line never ran, or their shell was restarted).
 */
async function settleKept(
  ctx: ToolContext,
  paneId: string,
  owner: string,
  options: string[],
): Promise<void> {
  for (const run of kept.onPane(ctx.tmux.label, paneId)) {
    if (run.ended) continue;
    if (run.owner !== owner) {
      kept.forget(run.id, "the pane's shell was restarted, which ended it");
    } else if (!options.includes(run.frame.statusOption)) {
      kept.forget(run.id, "the shell never ran its line (a later run took the pane)");
    } else {
      try {
        // Other lines follow its output on the screen by now: rows or nothing.
        const result = await collect(ctx, paneId, run.frame, "completed", false);
        run.ended = {
          exitStatus: result.exitStatus ?? 0,
          output: budget(ctx, result.lines),
          outputIncomplete: result.outputIncomplete,
          elapsedSeconds: Math.round(performance.now() - run.startedAt) / 1000,
        };
      } catch (error) {
        if (!(error instanceof ToolError || error instanceof TmuxError)) throw error;
        kept.forget(run.id, `its result could not be read: ${error.message}`);
      }
    }
  }
}

/**
 * Waits for the run's channel while checking that the pane lives on. With
 * `serverPid`, the wait does not read the server's pid: {@link collect} checks it.
 */
async function waitForRun(
  ctx: ToolContext,
  paneId: string,
  channel: string,
  timeoutMs: number,
  serverPid?: string,
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
      // The wait itself reports a vanished server; anything else ends the wait too.
      if (!(error instanceof TmuxError)) throw error;
      paneGone.abort();
      return;
    }
    if (checking) timer = setTimeout(check, PANE_CHECK_MS);
  };
  timer = setTimeout(check, PANE_CHECK_MS);
  try {
    const state = await waitForChannel(ctx.tmux, channel, {
      timeoutMs,
      signal: AbortSignal.any([ctx.signal, paneGone.signal]),
      // The channel is this run's alone. A killed waiter would stay in tmux
      // and swallow the shell's later signal.
      release: true,
      serverPid,
      confirm: serverPid === undefined,
    });
    return state === "signalled" ? "completed" : "timed_out";
  } catch (error) {
    if (error instanceof TmuxError && error.kind === "cancelled") {
      return ctx.signal.aborted ? "cancelled" : "pane_exited";
    }
    throw error;
  } finally {
    checking = false;
    clearTimeout(timer);
  }
}

async function paneAlive(ctx: ToolContext, paneId: string): Promise<boolean> {
  const out = await ctx.tmux.one(paneLineCommand(paneId, "#{pane_dead}"));
  return out === "0";
}
