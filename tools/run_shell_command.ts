/** `run_shell_command`: runs a command in a pane's shell and returns its exit status and output. */

import { z } from "zod";
import { budgetLines, type Content, contentText } from "../mcp/budget.ts";
import { ToolError } from "../mcp/errors.ts";
import { checkInputTargetWith, sendInput } from "../mcp/input.ts";
import { type KeptRun, KeptRuns } from "../mcp/kept_runs.ts";
import { budget, splitCapture } from "../mcp/panes.ts";
import { withProgress } from "../mcp/progress_ticker.ts";
import { promptBack } from "../mcp/prompt_back.ts";
import { defineTool, type ToolContext } from "../mcp/registry.ts";
import { content, maxLines, paneId, timeoutSeconds } from "../mcp/schemas.ts";
import {
  buildFrame,
  COMMAND_OPTION_PREFIX,
  type Frame,
  type FramedOutput,
  isPosixShell,
  parseFramedOutput,
  parseRunningMark,
  parseStatus,
  programName,
  RUNNING_OPTION,
  type RunningMark,
  runningMark,
  STATUS_OPTION_PREFIX,
  TYPED_PATH_OPTION,
} from "../mcp/shell_frame.ts";
import { chunkText } from "../tmux/chunks.ts";
import { TmuxError } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";
import { HISTORY_READ_TIMEOUT_MS } from "../tmux/transport.ts";
import { paneLineCommand } from "../tmux/views.ts";
import { waitForChannel } from "../tmux/wait_for.ts";

const OUTCOMES = ["completed", "timed_out", "pane_exited", "cancelled"] as const;
/** A run's id, as {@link buildFrame} makes it. */
const RUN_ID = /^[0-9a-f]{16}$/;
type Outcome = typeof OUTCOMES[number];

/** How often the wait checks that the pane still exists. */
const PANE_CHECK_MS = 500;
/** How long a finished run may take to show its end marker (the pane's output is read asynchronously). */
const SETTLE_MS = 2_000;

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
    "Runs a command line in a pane's POSIX shell and returns its exit status and output. " +
    "Runs in a subshell (cd, export do not stay). On timeout it keeps running: call again " +
    "with its runId instead of command to keep waiting, or send_keys C-c. " +
    "For interactive programs use send_keys.",
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

/** How long a foreground program may take to give a new pane back to its shell. */
const SHELL_GRACE_MS = 2_000;
const SHELL_POLL_MS = 100;

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
  const target = paneTarget(args.paneId);
  // The pane's options (marks of earlier runs) come in the same round trip.
  const readOptions = ["show-options", "-p", "-t", target];
  let [pane, [options]] = await checkInputTargetWith(ctx, args.paneId, [readOptions]);
  // A new pane's shell runs its start-up files first (a login shell's
  // `mesg n`, for one), so a program in the foreground may be about to hand
  // the pane back: look again for a moment before refusing.
  for (
    let waited = 0;
    !isPosixShell(pane.currentCommand) && waited < SHELL_GRACE_MS && !ctx.signal.aborted;
    waited += SHELL_POLL_MS
  ) {
    await new Promise((resolve) => setTimeout(resolve, SHELL_POLL_MS));
    [pane, [options]] = await checkInputTargetWith(ctx, args.paneId, [readOptions]);
  }
  if (!isPosixShell(pane.currentCommand)) {
    const name = pane.currentCommand ? programName(pane.currentCommand) : "an unknown program";
    throw new ToolError(
      `pane ${args.paneId} runs ${name} in the foreground, not a POSIX shell (sh, bash, zsh, dash, ksh), ` +
        "so a typed command line would go to that program",
      "Talk to that program with send_keys, or run the command in a pane with a shell " +
        "(split_window or create_window make one).",
    );
  }
  const owner = String(pane.pid ?? "");
  const cleanup = await previousRun(ctx, args.paneId, owner, options);
  const frame = buildFrame({
    paneId: args.paneId,
    tmuxBinary: ctx.tmux.binary,
    socketPath: await ctx.tmux.socketPath(),
    suppressHistory: args.suppressHistory ?? true,
    owner,
  }, args.command);
  const stored: string[][] = [];
  if (frame.commandOption !== null) {
    const [first, ...rest] = chunkText(args.command);
    stored.push(["set-option", "-p", "-t", target, "--", frame.commandOption, first]);
    for (const chunk of rest) {
      stored.push(["set-option", "-pa", "-t", target, "--", frame.commandOption, chunk]);
    }
  }
  const started = performance.now();
  // Checked again by tmux right before the line is typed: the pane may have
  // died or entered a mode since the first look. Refused, the marks go again.
  // alone: synchronize-panes would type the line into the window's other
  // panes, run it there too, and let their frames report to this run.
  await sendInput(ctx, args.paneId, {
    alone: true,
    setup: [
      ...cleanup,
      ...stored,
      [
        "set-option",
        "-p",
        "-t",
        target,
        RUNNING_OPTION,
        runningMark({ id: frame.id, owner, started: false }),
      ],
      // -F: tmux stores the path as it is now.
      ["set-option", "-pF", "-t", target, TYPED_PATH_OPTION, "#{pane_path}"],
    ],
    input: [
      // C-u first: text left on the prompt would otherwise be glued to the line.
      ["send-keys", "-t", target, "C-u"],
      ["send-keys", "-t", target, "-l", "--", frame.line],
      ["send-keys", "-t", target, "Enter"],
    ],
    refused: [
      ["set-option", "-pu", "-t", target, RUNNING_OPTION],
      ["set-option", "-pu", "-t", target, TYPED_PATH_OPTION],
      ...(frame.commandOption === null
        ? []
        : [["set-option", "-pu", "-t", target, frame.commandOption]]),
    ],
  });

  const typed = { id: frame.id, label: ctx.tmux.label, paneId: args.paneId, owner, frame };
  return await waitAndCollect(ctx, { ...typed, startedAt: started }, args);
}

/**
 * Waits for `run` within this call's timeout and reads its result; a run
 * that outlives the call is kept for a later call with its runId.
 */
async function waitAndCollect(ctx: ToolContext, run: KeptRun<Frame>, args: WaitArgs) {
  const ceiling = ctx.settings.waitMaxSeconds;
  const effective = Math.min(args.timeoutSeconds ?? ceiling, ceiling);
  const since = (at: number) => Math.round(at - run.startedAt) / 1000;
  const outcome = await withProgress(
    ctx,
    `running in ${run.paneId}`,
    since(performance.now()),
    effective,
    () => waitForRun(ctx, run.paneId, run.frame, effective * 1000),
  );
  const elapsedSeconds = since(performance.now());
  const result = await collect(ctx, run.paneId, run.frame, outcome);
  // The next line typed (or cursor taken) must find the prompt drawn.
  if (result.outcome === "completed") await promptBack(ctx, run.paneId);
  const stillRunning = result.outcome === "timed_out" || result.outcome === "cancelled";
  if (stillRunning) kept.keep(run);
  else kept.forget(run.id, "its result was returned already");
  const output = budget(ctx, result.framed.lines, args.maxLines);
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

/** How long the check of an earlier run waits for it to end, or to begin. */
const EARLIER_RUN_GRACE_MS = 2_000;

/**
 * Refuses a pane whose earlier run is still going (it timed out and was left
 * running), and returns commands that drop what earlier runs left behind:
 * that of a run that ended, and the mark of a run whose line the shell
 * never ran (it waited for a closing quote, its editor was in vi command
 * mode, and C-c threw the line away), which would otherwise never end.
 * `listing` is the pane's `show-options -p`; `owner` the pid of its shell.
 */
async function previousRun(
  ctx: ToolContext,
  paneId: string,
  owner: string,
  listing: string,
): Promise<string[][]> {
  const names = listing.split("\n").map((line) => line.split(" ", 1)[0]);
  const running = listing.split("\n").find((line) => line.startsWith(`${RUNNING_OPTION} `));
  const mark = running ? parseRunningMark(running.slice(RUNNING_OPTION.length + 1)) : null;
  // A respawned pane has a new shell: the mark belongs to the old one.
  if (mark && mark.owner === owner) {
    // The earlier run signals its channel when it ends; its own wait was
    // released, so tmux remembers a signal nobody waited for and this
    // returns at once when the run has just ended.
    const state = await waitForChannel(ctx.tmux, `tmux-mcp-run-${mark.id}`, {
      timeoutMs: EARLIER_RUN_GRACE_MS,
      signal: ctx.signal,
      release: true,
    });
    // Not ended: only a frame that began can be running a command. The
    // grace above let a shell that was slow to read the line begin it.
    if (state === "timeout" && (mark.started || await hasStarted(ctx, paneId, mark))) {
      throw busy(
        paneId,
        "the command of an earlier run_shell_command (which timed out or was cancelled) is still running",
        kept.has(mark.id) ? mark.id : undefined,
      );
    }
    if (state === "signalled") names.push(`${STATUS_OPTION_PREFIX}${mark.id}`);
  }
  await settleKept(ctx, paneId, owner, names);
  const stale = names.filter((name) =>
    name === RUNNING_OPTION || name === TYPED_PATH_OPTION ||
    name.startsWith(STATUS_OPTION_PREFIX) ||
    name.startsWith(COMMAND_OPTION_PREFIX)
  );
  // The marked run may have ended after `listing` was read (in the grace
  // above): its status is not listed yet, and no call will read it (its own
  // timed out or was cancelled). Unsetting an option that is not set is no
  // error, and this is the last call that knows the run's id.
  if (mark && !stale.includes(`${STATUS_OPTION_PREFIX}${mark.id}`)) {
    stale.push(`${STATUS_OPTION_PREFIX}${mark.id}`);
  }
  return stale.map((name) => ["set-option", "-pu", "-t", paneTarget(paneId), name]);
}

/**
 * True when the run of `mark` began, read again now: its mark says so (a
 * long command's frame), or the pane's path is no longer what it was when
 * the line was typed (a short command's frame sets it, and a command that
 * reports its directory may set it again; a line never run changes nothing).
 */
async function hasStarted(ctx: ToolContext, paneId: string, mark: RunningMark): Promise<boolean> {
  const read = await ctx.tmux.one([
    "display-message",
    "-p",
    "-t",
    paneTarget(paneId),
    `#{pane_path}\n#{${TYPED_PATH_OPTION}}\n#{${RUNNING_OPTION}}`,
  ]);
  const [path, typedPath = "", value = ""] = read.split("\n");
  const now = parseRunningMark(value);
  return path !== typedPath || (now !== null && now.id === mark.id && now.started);
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
        const result = await collect(ctx, paneId, run.frame, "completed");
        run.ended = {
          exitStatus: result.exitStatus ?? 0,
          output: budget(ctx, result.framed.lines),
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

/** Waits for the run's channel while checking that the pane lives on. */
async function waitForRun(
  ctx: ToolContext,
  paneId: string,
  frame: Frame,
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
      // The wait itself reports a vanished server; anything else ends the wait too.
      if (!(error instanceof TmuxError)) throw error;
      paneGone.abort();
      return;
    }
    if (checking) timer = setTimeout(check, PANE_CHECK_MS);
  };
  timer = setTimeout(check, PANE_CHECK_MS);
  try {
    const state = await waitForChannel(ctx.tmux, frame.channel, {
      timeoutMs,
      signal: AbortSignal.any([ctx.signal, paneGone.signal]),
      // The channel is this run's alone. A killed waiter would stay in tmux
      // and swallow the shell's later signal, which the next run waits for.
      release: true,
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

interface Collected {
  outcome: Outcome;
  exitStatus: number | null;
  framed: FramedOutput;
  outputIncomplete: boolean;
}

/** Reads the status and output of a run that ended its wait with `outcome`. */
async function collect(
  ctx: ToolContext,
  paneId: string,
  frame: Frame,
  outcome: Outcome,
): Promise<Collected> {
  const none: FramedOutput = { lines: [], startFound: false, endFound: false };
  if (outcome === "cancelled") {
    return { outcome, exitStatus: null, framed: none, outputIncomplete: false };
  }
  const target = paneTarget(paneId);
  let status: string;
  let captured: string;
  try {
    [status, captured] = await ctx.tmux.run([
      ["show-options", "-pqv", "-t", target, frame.statusOption],
      captureCommand(target, false),
      // A run still going sets its status later; the next run drops it then.
      ["set-option", "-pu", "-t", target, frame.statusOption],
    ]);
  } catch (error) {
    if (outcome === "pane_exited" && error instanceof TmuxError && error.kind === "no_target") {
      return { outcome, exitStatus: null, framed: none, outputIncomplete: false };
    }
    throw error;
  }
  const exitStatus = parseStatus(status);
  let framed: FramedOutput;
  try {
    framed = await widen(ctx, target, frame, parseFramedOutput(splitCapture(captured), frame));
  } catch (error) {
    // A pane that exited may be gone by the second read.
    if (outcome !== "pane_exited" || !(error instanceof TmuxError)) throw error;
    framed = none;
  }
  if (outcome === "pane_exited" || (outcome === "timed_out" && exitStatus === null)) {
    // Unfinished: only what follows the start marker is this run's output.
    return {
      outcome,
      exitStatus: null,
      framed: framed.startFound ? framed : none,
      outputIncomplete: false,
    };
  }
  if (exitStatus === null) {
    throw new ToolError(
      "the shell signalled the end of the command without storing its exit status",
      "Something else may have signalled the channel or removed the pane option; run the command again.",
    );
  }
  const settleBy = performance.now() + SETTLE_MS;
  // tmux reads the pane's output and the shell's signal on separate paths;
  // the last output can arrive a moment after the signal.
  while (!framed.endFound && performance.now() < settleBy) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await ctx.tmux.one(captureCommand(target, false));
    framed = await widen(ctx, target, frame, parseFramedOutput(splitCapture(again), frame));
  }
  if (!framed.endFound) {
    // The command left the screen in a state (alternate screen, reset) that
    // hides its end: the status stands, the output is lost.
    return { outcome: "completed", exitStatus, framed: none, outputIncomplete: true };
  }
  return { outcome: "completed", exitStatus, framed, outputIncomplete: !framed.startFound };
}

/** Lines read first: most output is near the end, and a long history is costly to read whole. */
const TAIL_LINES = 1000;

function captureCommand(target: string, whole: boolean): string[] {
  return ["capture-pane", "-p", "-J", "-S", whole ? "-" : `-${TAIL_LINES}`, "-t", target];
}

/** Reads the whole history when the start marker is not among the last lines read. */
async function widen(
  ctx: ToolContext,
  target: string,
  frame: Frame,
  framed: FramedOutput,
): Promise<FramedOutput> {
  if (framed.startFound) return framed;
  const whole = await ctx.tmux.one(captureCommand(target, true), {
    timeoutMs: HISTORY_READ_TIMEOUT_MS,
  });
  return parseFramedOutput(splitCapture(whole), frame);
}
