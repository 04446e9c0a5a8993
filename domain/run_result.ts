/**
 * Watching a `run_shell_command` run and reading its result. The run's
 * waiter is a `tmux wait-for` process started as its line is typed; it
 * marks itself registered in a pane option (the frame ends only once it
 * sees that mark, when the result is wanted) and, right after the frame's
 * signal, reads the status option and copies the pane's rows: tmux runs
 * both in the same pass of its command queue, before it reads the shell's
 * next output, so the rows are the command's own, with no paste buffer.
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";
import { splitCapture, trimTrailingBlank } from "../core/panes.ts";
import type { ToolContext } from "../core/registry.ts";
import {
  type Frame,
  type FrameStatus,
  parseFramedOutput,
  parseFrameStatus,
  type RunNames,
  TAIL_ROWS,
  widenOutput,
} from "./shell_frame.ts";
import { TmuxError } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";
import { HISTORY_READ_TIMEOUT_MS } from "../tmux/transport.ts";
import {
  type ChannelWatch,
  checkServer,
  type PendingWatch,
  reserveWatch,
} from "../tmux/wait_for.ts";

/** How a run's wait ended. */
export const OUTCOMES = ["completed", "timed_out", "pane_exited", "cancelled"] as const;
/** One of {@link OUTCOMES}. */
export type Outcome = typeof OUTCOMES[number];

/** A run's frame with the watch on its end and the server pid read when it was typed. */
export type WatchedFrame = Frame & { watch: ChannelWatch; serverPid: string };

/** What was read of a run that ended. */
export interface Ended {
  exitStatus: number;
  lines: string[];
  outputIncomplete: boolean;
  /** The cursor where the frame ended, when it stored it. */
  end?: { x: number; y: number };
}

/** Starts the watch's line of the server's pid and the run's status. */
const STATE_TAG = "tmux-mcp-state";

/**
 * The watch on run `names` in `paneId`, counted before its line is typed:
 * once started, it ends when the frame signals, or when released, or after
 * `timeoutMs`.
 */
function reserveRunWatch(
  ctx: ToolContext,
  paneId: string,
  names: RunNames,
  timeoutMs: number,
): PendingWatch {
  const target = paneTarget(paneId);
  const unset = (name: string) => ["set-option", "-pu", "-t", target, name];
  return reserveWatch(ctx.tmux, names.channel, {
    before: [["set-option", "-p", "-t", target, names.watchOption, "1"]],
    then: [
      ["display-message", "-p", "-t", target, `${STATE_TAG} #{pid} #{${names.statusOption}}`],
      ["capture-pane", "-p", "-J", "-S", `-${TAIL_ROWS}`, "-t", target],
      // Read: nobody needs them any more, and a run still going stores nothing.
      unset(names.statusOption),
      unset(names.awaitOption),
      unset(names.watchOption),
    ],
    timeoutMs,
  });
}

/**
 * Types run `names`'s line with `type`, with the run's watch: counted before
 * (a full house refuses the run before any key), started once the typing
 * round trip is on its way (tmux forks a shell to check the prompt
 * meanwhile; a frame whose result is wanted ends only once its watch is
 * registered), and ended again when the line was not typed.
 */
export async function typeWatched<T>(
  ctx: ToolContext,
  paneId: string,
  names: RunNames,
  timeoutMs: number,
  type: () => Promise<T>,
): Promise<{ typed: T; watch: ChannelWatch }> {
  const pending = reserveRunWatch(ctx, paneId, names, timeoutMs);
  let watch: ChannelWatch | undefined;
  const starter = setTimeout(() => watch ??= pending.start(), 0);
  let typed: T;
  try {
    typed = await type();
  } catch (error) {
    clearTimeout(starter);
    pending.cancel();
    if (watch) await endUnused(watch, error);
    throw error;
  }
  clearTimeout(starter);
  return { typed, watch: watch ?? pending.start() };
}

/** Ends the watch of a run whose line was not typed, `error` being why. */
async function endUnused(watch: ChannelWatch, error: unknown): Promise<void> {
  // Signalling goes through tmux: a tmux that does not answer gets none.
  const unanswered = error instanceof TmuxError &&
    ["timeout", "no_server", "missing", "bad_socket"].includes(error.kind);
  if (unanswered) watch.abandon();
  else watch.release();
  await watch.ended.catch(() => {});
}

/**
 * The result in a watch's outputs; null when the run had not ended (the
 * watch was released). Throws when the server is not the one the line was
 * typed into, or the line reached a program other than the pane's shell.
 */
export async function readEnded(
  ctx: ToolContext,
  paneId: string,
  frame: WatchedFrame,
  [stateOutput, rows]: string[],
): Promise<Ended | null> {
  // Tagged: a person's hook after display-message prints around it.
  const tagged = stateOutput.split("\n").find((line) => line.startsWith(`${STATE_TAG} `));
  const state = tagged?.slice(STATE_TAG.length + 1) ?? "";
  const space = state.indexOf(" ");
  checkServer(ctx.tmux, frame.serverPid, space < 0 ? state : state.slice(0, space));
  const value = space < 0 ? "" : state.slice(space + 1);
  if (value === "") return null;
  const stored = parseFrameStatus(value);
  if (stored.refused) {
    throw new ToolError(
      `the line typed into pane ${paneId} was read by a program other than its shell, ` +
        "so nothing ran",
      "Look at the pane (snapshot_pane); talk to that program with send_keys, or use another pane.",
    );
  }
  if (stored.exitStatus === null) {
    throw new ToolError(
      "the shell signalled the end of the command without storing its exit status",
      "Something else may have changed the pane's options; run the command again.",
    );
  }
  const output = await framedOutput(ctx, paneTarget(paneId), frame, stored.end, rows);
  return { exitStatus: stored.exitStatus, ...output, end: stored.end ?? undefined };
}

/** The output of an ended run in the rows its watch copied. */
async function framedOutput(
  ctx: ToolContext,
  target: string,
  frame: Frame,
  end: FrameStatus["end"],
  rows: string,
): Promise<Pick<Ended, "lines" | "outputIncomplete">> {
  if (end === null) {
    // The frame could not tell when tmux had read its output (or was killed):
    // the status stands, the output is what the rows show after the echo.
    return { lines: afterEcho(splitCapture(rows), frame), outputIncomplete: true };
  }
  const framed = parseFramedOutput(splitCapture(rows), end, frame.echoMark, frame.echoTail);
  if (framed.startFound) return { lines: framed.lines, outputIncomplete: false };
  const whole = await ctx.tmux.one(["capture-pane", "-p", "-J", "-S", "-", "-t", target], {
    timeoutMs: HISTORY_READ_TIMEOUT_MS,
  });
  const widened = widenOutput(splitCapture(whole), framed.lines, frame.echoMark);
  return { lines: widened ?? framed.lines, outputIncomplete: widened === null };
}

/** What follows the last echo of the frame's line in `lines`; nothing when it is not there. */
function afterEcho(lines: string[], frame: Frame): string[] {
  const after = parseFramedOutput(lines, { x: 1, y: 0, height: 1 }, frame.echoMark, frame.echoTail);
  return after.startFound ? trimTrailingBlank(after.lines) : [];
}

/** Rows of history read for the output of a run that has not ended. */
const SOFAR_ROWS = 1000;

/** The output a run that has not ended has printed so far. */
export async function outputSoFar(
  ctx: ToolContext,
  paneId: string,
  frame: Frame,
): Promise<string[]> {
  const [screen] = await ctx.tmux.run([
    ["capture-pane", "-p", "-J", "-S", `-${SOFAR_ROWS}`, "-t", paneTarget(paneId)],
  ]);
  return afterEcho(splitCapture(screen), frame);
}

/** The output in a released watch's rows (a dead pane's last screen). */
export function releasedOutput(frame: Frame, outputs: string[]): string[] {
  return afterEcho(splitCapture(outputs[1] ?? ""), frame);
}
