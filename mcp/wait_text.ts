/**
 * The wait behind `wait_for_text`: remember the pane at entry, arm an output
 * watch (tmux/output_watch.ts), and on every wake-up read only the rows
 * written or rewritten since the previous look (mcp/since.ts), testing them
 * against the stop patterns and the patterns in a worker (mcp/match_worker.ts),
 * ended at the wait's deadline. Text on screen at entry never
 * matches: it was not written after the call began, unless the caller gave
 * a capture_since cursor taken earlier, and it was written after that.
 *
 * @module
 */

import { isNoServer, TmuxError } from "../tmux/errors.ts";
import { FollowingWatch, type WakeMechanism } from "../tmux/output_watch.ts";
import { budgetLines, type Content, utf8Length } from "./budget.ts";
import { type CursorState, keepsPrefix } from "./cursor.ts";
import { firstMatch, MatchDeadline } from "./match_worker.ts";
import type { Matcher } from "./pattern.ts";
import type { ToolContext } from "./registry.ts";
import {
  compareReading,
  type Delta,
  markOf,
  neededFrom,
  readSnapshot,
  refuseRestarted,
  type Snapshot,
} from "./since.ts";

/** How a wait ended. */
export type WaitOutcome =
  | "matched"
  | "stopped"
  | "any_output"
  | "timeout"
  | "pane_exited"
  | "cancelled";

/** What a wait found. */
export interface WaitResult {
  outcome: WaitOutcome;
  /** The pattern (or stop pattern) that ended the wait. */
  matchedPattern: string | null;
  /** Its index in `patterns` (matched) or `stopPatterns` (stopped). */
  matchedIndex: number | null;
  /** A pattern (with no patterns: any text) was on the visible screen at entry. */
  presentAtEntry: boolean;
  /** What was written during the wait, newest kept. */
  tail: Content;
  elapsedSeconds: number;
  /** How the wait learned about output. */
  wakeup: WakeMechanism;
  /** The pane as last read: a cursor from here makes the next wait count only later output. */
  cursor: CursorState;
}

/** What to wait for. */
export interface WaitRequest {
  paneId: string;
  patterns: Matcher[];
  stopPatterns: Matcher[];
  timeoutMs: number;
  /** A capture_since cursor's state: output written since it counts, not only since the call. */
  since?: CursorState;
}

/** How to wait without a cursor that cannot be used. */
export const WITHOUT_CURSOR =
  "Call wait_for_text without a cursor, or take a new one with capture_since before sending input.";

/** Progress is reported at least this often while waiting. */
const PROGRESS_MS = 1_000;
/** Matching may run this long past the wait's deadline, for output read before it. */
const MIN_MATCH_MS = 250;
/** A control-mode watch still re-reads this often, in case a notification was missed. */
const SAFETY_MS = 1_000;

/** Rows written during the wait, keyed by absolute line so a rewritten row replaces itself. */
class Tail {
  rows: string[] = [];
  start = 0;
  droppedLines = 0;
  droppedBytes = 0;

  constructor(readonly limit: number) {}

  /**
   * Rows `rows` now start at absolute line `start`: tail rows from there on
   * were rewritten and are replaced. `fresh` starts over (line numbers lost).
   */
  put(start: number, rows: string[], fresh = false): void {
    const offset = start - this.start;
    if (fresh || this.rows.length === 0 || offset < 0 || offset > this.rows.length) {
      this.rows = [];
      this.start = start;
    } else {
      this.rows.length = offset;
    }
    this.rows.push(...rows);
    if (this.rows.length > this.limit) this.#drop(this.rows.length - this.limit);
  }

  /**
   * The place in the pane was lost (tmux dropped or cleared the rows the
   * wait remembered): the rows held so far and at least one unseen line
   * count as dropped, and the tail starts again with `rows` at `start`.
   */
  lose(start: number, rows: string[]): void {
    this.#drop(this.rows.length);
    this.droppedLines += 1;
    this.droppedBytes += 1;
    this.put(start, rows, true);
  }

  /** History dropped above: every line number moved up by `shift`. */
  shift(shift: number): void {
    this.start -= shift;
  }

  #drop(count: number): void {
    const gone = this.rows.splice(0, count);
    this.start += count;
    this.droppedLines += gone.length;
    this.droppedBytes += gone.reduce((sum, row) => sum + utf8Length(row) + 1, 0);
  }

  content(maxLines: number, maxBytes: number): Content {
    let end = this.rows.length;
    while (end > 0 && this.rows[end - 1] === "") end--;
    const content = budgetLines(this.rows.slice(0, end), maxLines, maxBytes);
    content.droppedLines += this.droppedLines;
    content.droppedBytes += this.droppedBytes;
    content.truncated ||= this.droppedLines > 0;
    return content;
  }
}

/** A logical line: its text and the absolute rows `[from, to)` it spans. */
interface LogicalLine {
  text: string;
  from: number;
  to: number;
}

/**
 * The logical lines of `snap` covering its absolute lines `[start, end)`,
 * joined where tmux wrapped a row onto the next (its wrap flag, as
 * `capture-pane -J` reads it), so a pattern may span the wrap. The line the
 * first row belongs to is taken whole from where it starts in the read: a
 * row written onto the end of a wrapped line completes that line.
 */
export function logicalLines(snap: Snapshot, start: number, end: number): string[] {
  return logicalSpans(snap, start, end).map((line) => line.text);
}

/** {@link logicalLines} with the rows each line spans. */
function logicalSpans(snap: Snapshot, start: number, end: number): LogicalLine[] {
  if (end <= start) return [];
  const wrappedAt = (abs: number) => snap.wrapped?.[abs - snap.first] ?? null;
  let from = Math.max(start, snap.first);
  while (from > snap.first && wrappedAt(from - 1) !== null) from--;
  const lines: LogicalLine[] = [];
  let current: LogicalLine | undefined;
  const last = Math.min(end, snap.first + snap.rows.length);
  for (let abs = from; abs < last; abs++) {
    const wrapped = wrappedAt(abs);
    current ??= { text: "", from: abs, to: abs };
    current.text += wrapped ?? snap.rows[abs - snap.first];
    current.to = abs + 1;
    if (wrapped === null) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) lines.push(current);
  return lines;
}

/**
 * The row a capture_since cursor was taken on (the prompt, where keys sent
 * after it are echoed), while it still starts with the text it held then.
 */
interface TypedRow {
  /** Absolute line number, in the numbering of the latest read. */
  abs: number;
  /** Length of the text it held (UTF-16 units). */
  length: number;
  /** Hash of that text. */
  hash: number;
}

/**
 * The cursor's {@link TypedRow}; none when the row held no text (a program
 * printing onto an empty row is not told apart from an echo there).
 */
function typedRowOf(mark: CursorState): TypedRow | undefined {
  const i = mark.open - mark.base;
  if (mark.openLength === 0 || i < 0 || i >= mark.hashes.length) return undefined;
  return { abs: mark.open, length: mark.openLength, hash: mark.hashes[i] };
}

/**
 * True when `line` holds the typed row and that row still starts with what
 * it held: what follows is the echo of the keys typed onto the prompt (the
 * command line itself), not what the command printed.
 */
function isTypedLine(snap: Snapshot, line: LogicalLine, typed: TypedRow | undefined): boolean {
  if (!typed || typed.abs < line.from || typed.abs >= line.to) return false;
  return keepsPrefix(snap.rows[typed.abs - snap.first], typed.length, typed.hash);
}

function paneGone(error: unknown): boolean {
  return error instanceof TmuxError && error.kind === "no_target";
}

/**
 * The error to report when the whole tmux server is gone, else undefined: a
 * vanished server is not "the pane exited" (nothing can be respawned there).
 */
async function serverGone(tmux: ToolContext["tmux"]): Promise<TmuxError | undefined> {
  try {
    await tmux.one(["display-message", "-p", "#{pid}"]);
    return undefined;
  } catch (error) {
    if (isNoServer(error)) return error;
    throw error;
  }
}

/** Waits as `request` says; never leaves a process behind, whatever ends it. */
export async function waitForText(ctx: ToolContext, request: WaitRequest): Promise<WaitResult> {
  const began = performance.now();
  const deadline = began + request.timeoutMs;
  const { tmux, signal } = ctx;
  const tail = new Tail(ctx.settings.maxLines);
  // The entry read and arming the watch run together: the first look after
  // both covers anything printed in between, whichever finished first.
  const [entry, armed] = await Promise.allSettled([
    readSnapshot(tmux, request.paneId, (s) => neededFrom(undefined, s), {
      signal,
      wraps: true,
    }),
    FollowingWatch.start(tmux, request.paneId, { signal }),
  ]);
  if (entry.status === "rejected") {
    if (armed.status === "fulfilled") void armed.value.close();
    throw entry.reason;
  }
  if (armed.status === "rejected") throw armed.reason;
  const watch = armed.value;
  let snap: Snapshot = entry.value;
  const top = snap.state.historySize;
  // Output read before the deadline still gets a moment to be matched.
  const matchOptions = () => ({
    timeoutMs: Math.max(deadline - performance.now(), MIN_MATCH_MS),
    signal,
  });
  let presentAtEntry: boolean;
  try {
    presentAtEntry = request.patterns.length > 0
      ? await firstMatch(
        request.patterns.map((p) => p.compiled),
        logicalLines(snap, top, top + snap.state.height),
        matchOptions(),
      ) !== null
      : snap.rows.slice(top - snap.first).some((row) => row.trim() !== "");
  } catch (error) {
    // Out of time (or cancelled) already: the loop below ends the wait.
    if (!(error instanceof MatchDeadline) && !signal.aborted) {
      await watch.close();
      throw error;
    }
    presentAtEntry = false;
  }
  if (request.since) {
    try {
      refuseRestarted(request.since, snap.state, WITHOUT_CURSOR);
    } catch (error) {
      await watch.close();
      throw error;
    }
  }
  // With a cursor the first look tests what the pane wrote since it, also
  // before this call began.
  let mark: CursorState = request.since ?? markOf(snap);
  // Keys sent after the cursor are echoed onto its row (the command line
  // typed at a prompt): that line holds the pattern of a wait for what the
  // command will print, and matched it at once. Without a cursor the echo
  // came before the call, and a row completed during the wait counts.
  let typed = request.since ? typedRowOf(request.since) : undefined;

  const finish = (
    outcome: WaitOutcome,
    matched: { pattern: string; index: number } | null = null,
  ): WaitResult => ({
    outcome,
    matchedPattern: matched?.pattern ?? null,
    matchedIndex: matched?.index ?? null,
    presentAtEntry,
    tail: tail.content(ctx.settings.maxLines, ctx.settings.maxBytes),
    elapsedSeconds: Math.round(performance.now() - began) / 1000,
    // The watch that followed a moved pane may wake differently.
    wakeup: watch.mechanism,
    cursor: mark,
  });

  /** Reads what is new and decides; undefined means "keep waiting". */
  const look = async (): Promise<WaitResult | undefined> => {
    let next: Snapshot;
    try {
      next = await readSnapshot(tmux, request.paneId, (s) => neededFrom(mark, s), {
        guess: snap.state,
        signal,
        wraps: true,
      });
      if (next.state.pid !== mark.pid) return finish("pane_exited");
      // Lost history: every line from newFrom on is tested, and it can lie
      // above the read.
      let delta: Delta;
      ({ delta, snap: next } = await compareReading(tmux, request.paneId, mark, next, {
        signal,
        wraps: true,
      }));
      // compareReading may read again: a respawn in between is an exit too.
      if (next.state.pid !== mark.pid) return finish("pane_exited");
      if (delta.kind === "need-history") return undefined;
      snap = next;
      mark = markOf(next);
      const rows = delta.rows;
      let start: number;
      if (delta.kind === "found") {
        if (typed) typed.abs -= delta.shift;
        tail.shift(delta.shift);
        tail.put(delta.start, rows);
        start = delta.start;
      } else if (delta.historyLost) {
        typed = undefined;
        // Everything tmux still holds from newFrom on was written during
        // the wait, however much before it went missing: test all of it.
        start = delta.newFrom;
        tail.lose(start, rows);
      } else {
        typed = undefined;
        start = next.state.historySize;
        tail.put(start, rows, true);
      }
      const written = logicalSpans(next, start, start + rows.length)
        .filter((line) => !isTypedLine(next, line, typed)).map((line) => line.text);
      // Stop patterns first: one wins over a pattern on the same line.
      const all = [...request.stopPatterns, ...request.patterns];
      const hit = await firstMatch(all.map((p) => p.compiled), written, matchOptions());
      if (hit !== null) {
        const stopped = hit.pattern < request.stopPatterns.length;
        const index = stopped ? hit.pattern : hit.pattern - request.stopPatterns.length;
        return finish(stopped ? "stopped" : "matched", { pattern: all[hit.pattern].source, index });
      }
      // After the typed line, its Enter alone leaves the terminal's cursor on
      // a new blank row: not output either.
      const printed = typed ? written.some((line) => line !== "") : written.length > 0;
      if (request.patterns.length === 0 && printed) return finish("any_output");
      if (next.state.dead) return finish("pane_exited");
      return undefined;
    } catch (error) {
      if (paneGone(error)) {
        const gone = await serverGone(tmux);
        if (gone) throw gone;
        return finish("pane_exited");
      }
      if (signal.aborted) return finish("cancelled");
      // Matching ran into the wait's deadline and was ended.
      if (error instanceof MatchDeadline) return finish("timeout");
      throw error;
    }
  };

  /** Re-arms the watch where the last read found the pane; true when it moved. */
  const follow = async (): Promise<boolean> => {
    try {
      return await watch.follow(snap.state.sessionId);
    } catch (error) {
      // No answer: the old watch and the safety read carry on; the next look tries again.
      if (error instanceof TmuxError || signal.aborted) return false;
      throw error;
    }
  };

  let lastProgress = 0;
  const progress = async () => {
    const elapsed = Math.round(performance.now() - began) / 1000;
    if (elapsed <= lastProgress) return;
    lastProgress = elapsed;
    await ctx.progress(
      elapsed,
      request.timeoutMs / 1000,
      `waiting for output in ${request.paneId} (${watch.mechanism})`,
    ).catch((error: unknown) => {
      // Progress is a courtesy: a client that went away gets no answer
      // either, and the wait ends through its cancellation.
      if (!signal.aborted) console.error(`tmux-mcp: progress notification failed: ${error}`);
    });
  };

  try {
    // Armed: say so at once (clients can act on it), then catch anything
    // printed between the entry read and the watch being armed.
    await progress();
    let nextProgress = performance.now() + PROGRESS_MS;
    let nextSafety = performance.now() + SAFETY_MS;
    let due = true;
    while (true) {
      if (signal.aborted) return finish("cancelled");
      if (due) {
        const result = await look();
        if (result) return result;
        nextSafety = performance.now() + SAFETY_MS;
        // Moved to another session (move-window, join-pane): tmux now tells
        // only that session's control clients about its output, so the
        // watch follows it; a look right after catches what it printed
        // before the new watch was armed.
        // (A polling watch reads the pane wherever it is: following it would
        // try to attach a client at every 100 ms poll. A subscription, which
        // reads far less often, does follow one, to get back to control mode.)
        if (watch.mechanism === "control-mode" && await follow()) continue;
      }
      const now = performance.now();
      if (now >= deadline) return finish("timeout");
      if (now >= nextProgress) {
        await progress();
        nextProgress = now + PROGRESS_MS;
      }
      const woken = await watch.next(Math.min(deadline, nextProgress, nextSafety) - now);
      due = woken || performance.now() >= nextSafety || performance.now() >= deadline;
    }
  } finally {
    // The watcher's client leaves in the background (stdin closed, killed if
    // it lingers, reaped): the answer does not wait for a process to exit.
    void watch.close();
  }
}
