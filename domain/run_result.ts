/**
 * Reading what a `run_shell_command` run left in tmux once its wait ended:
 * the status option, the rows the frame copied into its buffer (or the
 * screen when it copied none), and dropping both.
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";
import { splitCapture, trimTrailingBlank } from "../core/panes.ts";
import type { ToolContext } from "../core/registry.ts";
import {
  AWAIT_STATUS,
  type Frame,
  type FrameStatus,
  parseFramedOutput,
  parseFrameStatus,
  widenOutput,
} from "./shell_frame.ts";
import { appendCanary, parseAppended, readBuffer } from "../tmux/buffer_read.ts";
import { TmuxError } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";
import { HISTORY_READ_TIMEOUT_MS } from "../tmux/transport.ts";
import { checkServer, SERVER_PID } from "../tmux/wait_for.ts";

/** How a run's wait ended. */
export const OUTCOMES = ["completed", "timed_out", "pane_exited", "cancelled"] as const;
/** One of {@link OUTCOMES}. */
export type Outcome = typeof OUTCOMES[number];

/** What {@link collect} read of a run. */
export interface Collected {
  outcome: Outcome;
  exitStatus: number | null;
  lines: string[];
  outputIncomplete: boolean;
  /** The outputs of the reads `also` asked for, when they ran (a run that was not kept). */
  also?: string[];
  /** The cursor where the frame ended, when it stored it. */
  end?: { x: number; y: number };
}

/** Splits a buffer of captured rows (each ends with a newline) into lines. */
function bufferLines(data: string): string[] {
  return splitCapture(data.endsWith("\n") ? data.slice(0, -1) : data);
}

/**
 * Reads the status and output of a run that ended its wait with `outcome`;
 * with `serverPid`, first checks that the server is still the one whose
 * pid that is (a wait that did not check it itself). The reads `also` go
 * along in the round trip that reads the end of a run that is not kept.
 */
export async function collect(
  ctx: ToolContext,
  paneId: string,
  frame: Frame,
  outcome: Outcome,
  fromScreen = true,
  serverPid?: string,
  also: string[][] = [],
): Promise<Collected> {
  const none = { exitStatus: null, lines: [], outputIncomplete: false };
  if (outcome === "cancelled") {
    await keepForLater(ctx, paneId, frame);
    return { outcome, ...none };
  }
  const target = paneTarget(paneId);
  let status: string;
  let rows: string | null;
  let screen: string;
  let alsoRead: string[] | undefined;
  try {
    [status, rows, screen, alsoRead] = await readEnd(ctx, target, frame, {
      keep: outcome === "timed_out",
      fromScreen,
      serverPid,
      also,
    });
  } catch (error) {
    if (outcome === "pane_exited" && error instanceof TmuxError) return { outcome, ...none };
    throw error;
  }
  const stored = parseFrameStatus(status);
  if (stored.refused) {
    throw new ToolError(
      `the line typed into pane ${paneId} was read by a program other than its shell, ` +
        "so nothing ran",
      "Look at the pane (snapshot_pane); talk to that program with send_keys, or use another pane.",
    );
  }
  if (outcome !== "completed" || stored.exitStatus === null) {
    if (outcome === "completed") {
      throw new ToolError(
        "the shell signalled the end of the command without storing its exit status",
        "Something else may have signalled the channel or removed the pane option; run the command again.",
      );
    }
    // Unfinished: what follows the echo is this run's output so far.
    const sofar = parseFramedOutput(bufferLines(screen), { x: 1, y: 0, height: 1 }, frame.echoMark);
    return { outcome, ...none, lines: sofar.startFound ? trimTrailingBlank(sofar.lines) : [] };
  }
  const output = await completedOutput(ctx, target, frame, stored.end, rows, screen);
  const end = stored.end ?? undefined;
  return { outcome, exitStatus: stored.exitStatus, ...output, also: alsoRead, end };
}

/**
 * Kept for a later call: the frame stores its status, not its rows; rows
 * it copied before it learned that (the command ended meanwhile) go.
 */
async function keepForLater(ctx: ToolContext, paneId: string, frame: Frame): Promise<void> {
  await ctx.tmux.run([
    keepStatus(paneTarget(paneId), frame),
    ["set-buffer", "-b", frame.outputBuffer, "x"],
    ["delete-buffer", "-b", frame.outputBuffer],
  ]).catch(() => {});
}

/** The output of a completed run: the rows the frame copied, else what the screen shows. */
async function completedOutput(
  ctx: ToolContext,
  target: string,
  frame: Frame,
  end: FrameStatus["end"],
  rows: string | null,
  screen: string,
): Promise<Pick<Collected, "lines" | "outputIncomplete">> {
  if (end === null || rows === null) {
    // The frame could not tell when tmux had read its output (or was killed):
    // the status stands, the output is what the screen shows after the echo.
    const after = parseFramedOutput(bufferLines(screen), { x: 1, y: 0, height: 1 }, frame.echoMark);
    return {
      lines: after.startFound ? trimTrailingBlank(after.lines) : [],
      outputIncomplete: true,
    };
  }
  const framed = parseFramedOutput(bufferLines(rows), end, frame.echoMark);
  if (framed.startFound) return { lines: framed.lines, outputIncomplete: false };
  const whole = await ctx.tmux.one(["capture-pane", "-p", "-J", "-S", "-", "-t", target], {
    timeoutMs: HISTORY_READ_TIMEOUT_MS,
  });
  const widened = widenOutput(splitCapture(whole), framed.lines, frame.echoMark);
  return { lines: widened ?? framed.lines, outputIncomplete: widened === null };
}

/** Rows of history read when the frame copied none (it did not end, or could not tell). */
const SCREEN_ROWS = 1000;

/** Commands that stop the frame from copying its rows, and drop rows it copied. */
function dropRows(target: string, frame: Frame): string[][] {
  return [
    ["set-option", "-pu", "-t", target, frame.awaitOption],
    // Set first, so that deleting succeeds whether or not the frame copied them.
    ["set-buffer", "-b", frame.outputBuffer, "x"],
    ["delete-buffer", "-b", frame.outputBuffer],
  ];
}

/**
 * Reads the run's status option, the rows its frame copied (null when it
 * copied none) and, unless those are there, the screen; then drops the
 * option and the buffer (a run still going sets them later, and the next
 * run drops them then). A run that is not kept has its rows read and
 * dropped in the round trip that reads its status, with the reads `also`.
 */
async function readEnd(
  ctx: ToolContext,
  target: string,
  frame: Frame,
  { keep, fromScreen, serverPid, also }: {
    keep: boolean;
    fromScreen: boolean;
    serverPid?: string;
    also: string[][];
  },
): Promise<[string, string | null, string, string[] | undefined]> {
  const pid = serverPid === undefined ? [] : [SERVER_PID];
  // Not kept: the frame, ended, makes no buffer after this round trip. The
  // tail appended makes one when it made none: the status says which.
  const taken = keep ? [] : [
    appendCanary(frame.outputBuffer),
    ["show-buffer", "-b", frame.outputBuffer],
    ...dropRows(target, frame),
    ...also,
  ];
  let answers: string[];
  try {
    answers = await ctx.tmux.run([
      ...pid,
      ["show-options", "-pqv", "-t", target, frame.statusOption],
      ["set-option", "-pu", "-t", target, frame.statusOption],
      ...taken,
    ]);
  } catch (error) {
    // A pane missing from a server that replaced the one waited on: say so.
    if (serverPid !== undefined && error instanceof TmuxError) {
      const [now] = await ctx.tmux.run([SERVER_PID]).catch(() => [null]);
      checkServer(ctx.tmux, serverPid, now);
    }
    throw error;
  }
  if (serverPid !== undefined) checkServer(ctx.tmux, serverPid, answers[0]);
  const status = answers[pid.length];
  // The frame stores the cursor only in the command that copies the rows.
  const copied = parseFrameStatus(status).end !== null;
  if (!keep) {
    const alsoRead = answers.slice(answers.length - also.length);
    const rows = copied ? parsedOrNull(answers[pid.length + 3]) : null;
    if (rows !== null) return [status, rows, "", alsoRead];
    return [status, null, fromScreen ? await readScreen(ctx, target) : "", alsoRead];
  }
  // A run kept for a later call stores its result when it ends.
  if (copied) {
    const rows = await readBuffer(ctx.tmux, frame.outputBuffer).catch(() => null);
    await ctx.tmux.run(dropRows(target, frame));
    if (rows !== null) return [status, rows, "", undefined];
  }
  return [status, null, fromScreen ? await readScreen(ctx, target) : "", undefined];
}

/** The buffer text in `shown`; null when tmux printed it in no form this server knows. */
function parsedOrNull(shown: string): string | null {
  try {
    return parseAppended(shown);
  } catch {
    return null;
  }
}

/** The last {@link SCREEN_ROWS} rows of the pane's history and screen. */
async function readScreen(ctx: ToolContext, target: string): Promise<string> {
  const [screen] = await ctx.tmux.run([
    ["capture-pane", "-p", "-J", "-S", `-${SCREEN_ROWS}`, "-t", target],
  ]);
  return screen;
}

/** The command that has the frame store its status only (for a later call), not its rows. */
export function keepStatus(target: string, frame: Frame): string[] {
  return ["set-option", "-p", "-t", target, frame.awaitOption, AWAIT_STATUS];
}
