/**
 * The wait behind `wait_for_text`: remember the pane at entry, arm an output
 * watch (tmux/output_watch.ts), and on every wake-up read only the rows
 * written or rewritten since the previous look (domain/since.ts), testing them
 * against the stop patterns and the patterns in a worker (domain/match_worker.ts),
 * ended at the wait's deadline. Text on screen at entry never
 * matches: it was not written after the call began, unless the caller gave
 * a capture_since cursor taken earlier, and it was written after that.
 *
 * @module
 */

import { isNoServer, TmuxError } from "../tmux/errors.ts";
import { FollowingWatch, type WakeMechanism } from "../tmux/output_watch.ts";
import { SERVER_PID } from "../tmux/wait_for.ts";
import { budgetLines, type Content, utf8Length } from "../core/budget.ts";
import type { CursorState } from "./cursor.ts";
import {
  isTypedLine,
  logicalLines,
  logicalSpans,
  type TypedRow,
  typedRowOf,
} from "./logical_lines.ts";
import { firstMatch, type InPlace, inPlace, MatchDeadline } from "./match_worker.ts";
import type { Matcher } from "./pattern.ts";
import type { ToolContext } from "../core/registry.ts";
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
/**
 * Matching time a wait may spend on the server's thread: what a look reads
 * is mostly a few lines, matched in place (a worker is a second isolate and
 * costs its start). Text past the in-place bound, or any once a wait has
 * spent this, goes to the worker, whose deadline can end it.
 */
const IN_PLACE_MS = 50;
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

function paneGone(error: unknown): boolean {
  return error instanceof TmuxError && error.kind === "no_target";
}

/**
 * The error to report when the whole tmux server is gone, else undefined: a
 * vanished server is not "the pane exited" (nothing can be respawned there).
 */
async function serverGone(tmux: ToolContext["tmux"]): Promise<TmuxError | undefined> {
  try {
    await tmux.one(SERVER_PID);
    return undefined;
  } catch (error) {
    if (isNoServer(error)) return error;
    throw error;
  }
}

/** Waits as `request` says; never leaves a process behind, whatever ends it. */
export async function waitForText(ctx: ToolContext, request: WaitRequest): Promise<WaitResult> {
  const wait = new TextWait(ctx, request);
  await wait.enter();
  try {
    return await wait.run();
  } finally {
    // The watcher's client leaves in the background (stdin closed, killed if
    // it lingers, reaped): the answer does not wait for a process to exit.
    void wait.watch.close();
  }
}

/** A delta that carries rows: the pane could be compared with the mark. */
type RowsDelta = Exclude<Delta, { kind: "need-history" }>;

/** The state of one wait, from the entry read to the outcome. */
class TextWait {
  readonly began = performance.now();
  readonly deadline: number;
  readonly tail: Tail;
  watch!: FollowingWatch;
  /** The pane as last read. */
  snap!: Snapshot;
  presentAtEntry = false;
  /** Where the next look starts: the cursor given, else the entry read. */
  mark!: CursorState;
  /**
   * Keys sent after the cursor are echoed onto its row (the command line
   * typed at a prompt): that line holds the pattern of a wait for what the
   * command will print, and matched it at once. Without a cursor the echo
   * came before the call, and a row completed during the wait counts.
   */
  typed: TypedRow | undefined;
  lastProgress = 0;

  /** What this wait may match on the server's thread (see {@link IN_PLACE_MS}). */
  readonly here: InPlace;

  constructor(readonly ctx: ToolContext, readonly request: WaitRequest) {
    this.deadline = this.began + request.timeoutMs;
    this.tail = new Tail(ctx.settings.maxLines);
    const patterns = [...request.patterns, ...request.stopPatterns].map((p) => p.compiled);
    this.here = inPlace(patterns, IN_PLACE_MS);
  }

  /**
   * Reads the pane, arms the watch and checks the entry state. On failure
   * nothing is left armed.
   */
  async enter(): Promise<void> {
    const { tmux, signal } = this.ctx;
    // The entry read and arming the watch run together: the first look after
    // both covers anything printed in between, whichever finished first.
    const [entry, armed] = await Promise.allSettled([
      readSnapshot(tmux, this.request.paneId, (s) => neededFrom(undefined, s), {
        signal,
        wraps: true,
      }),
      FollowingWatch.start(tmux, this.request.paneId, { signal }),
    ]);
    if (entry.status === "rejected") {
      if (armed.status === "fulfilled") void armed.value.close();
      throw entry.reason;
    }
    if (armed.status === "rejected") throw armed.reason;
    this.watch = armed.value;
    this.snap = entry.value;
    this.presentAtEntry = await this.#presentAtEntry();
    const since = this.request.since;
    if (since) {
      try {
        refuseRestarted(since, this.snap.state, WITHOUT_CURSOR);
      } catch (error) {
        await this.watch.close();
        throw error;
      }
    }
    // With a cursor the first look tests what the pane wrote since it, also
    // before this call began.
    this.mark = since ?? markOf(this.snap);
    this.typed = since ? typedRowOf(since) : undefined;
  }

  /** Whether a pattern (with no patterns: any text) is on the visible screen at entry. */
  async #presentAtEntry(): Promise<boolean> {
    const { snap, request } = this;
    const top = snap.state.historySize;
    try {
      return request.patterns.length > 0
        ? await firstMatch(
          request.patterns.map((p) => p.compiled),
          logicalLines(snap, top, top + snap.state.height),
          this.#matchOptions(),
        ) !== null
        : snap.rows.slice(top - snap.first).some((row) => row.trim() !== "");
    } catch (error) {
      // Out of time (or cancelled) already: the loop in run() ends the wait.
      if (!(error instanceof MatchDeadline) && !this.ctx.signal.aborted) {
        await this.watch.close();
        throw error;
      }
      return false;
    }
  }

  /** Output read before the deadline still gets a moment to be matched. */
  #matchOptions() {
    return {
      timeoutMs: Math.max(this.deadline - performance.now(), MIN_MATCH_MS),
      signal: this.ctx.signal,
      here: this.here,
    };
  }

  #finish(
    outcome: WaitOutcome,
    matched: { pattern: string; index: number } | null = null,
  ): WaitResult {
    const { maxLines, maxBytes } = this.ctx.settings;
    return {
      outcome,
      matchedPattern: matched?.pattern ?? null,
      matchedIndex: matched?.index ?? null,
      presentAtEntry: this.presentAtEntry,
      tail: this.tail.content(maxLines, maxBytes),
      elapsedSeconds: Math.round(performance.now() - this.began) / 1000,
      // The watch that followed a moved pane may wake differently.
      wakeup: this.watch.mechanism,
      cursor: this.mark,
    };
  }

  /** Looks on every wake-up and safety interval until an outcome, the deadline or cancellation. */
  async run(): Promise<WaitResult> {
    const { signal } = this.ctx;
    // Armed: say so at once (clients can act on it), then catch anything
    // printed between the entry read and the watch being armed.
    await this.#progress();
    let nextProgress = performance.now() + PROGRESS_MS;
    let nextSafety = performance.now() + SAFETY_MS;
    let due = true;
    while (true) {
      if (signal.aborted) return this.#finish("cancelled");
      if (due) {
        const result = await this.#look();
        if (result) return result;
        nextSafety = performance.now() + SAFETY_MS;
        // Moved to another session (move-window, join-pane): tmux now tells
        // only that session's control clients about its output, so the
        // watch follows it; a look right after catches what it printed
        // before the new watch was armed.
        // (A polling watch reads the pane wherever it is: following it would
        // try to attach a client at every 100 ms poll. A subscription, which
        // reads far less often, does follow one, to get back to control mode.)
        if (this.watch.mechanism === "control-mode" && await this.#follow()) continue;
      }
      const now = performance.now();
      if (now >= this.deadline) return this.#finish("timeout");
      if (now >= nextProgress) {
        await this.#progress();
        nextProgress = now + PROGRESS_MS;
      }
      const woken = await this.watch.next(Math.min(this.deadline, nextProgress, nextSafety) - now);
      due = woken || performance.now() >= nextSafety || performance.now() >= this.deadline;
    }
  }

  /** Reads what is new and decides; undefined means "keep waiting". */
  async #look(): Promise<WaitResult | undefined> {
    try {
      return await this.#readAndDecide();
    } catch (error) {
      if (paneGone(error)) {
        const gone = await serverGone(this.ctx.tmux);
        if (gone) throw gone;
        return this.#finish("pane_exited");
      }
      if (this.ctx.signal.aborted) return this.#finish("cancelled");
      // Matching ran into the wait's deadline and was ended.
      if (error instanceof MatchDeadline) return this.#finish("timeout");
      throw error;
    }
  }

  async #readAndDecide(): Promise<WaitResult | undefined> {
    const { tmux, signal } = this.ctx;
    const paneId = this.request.paneId;
    let next = await readSnapshot(tmux, paneId, (s) => neededFrom(this.mark, s), {
      guess: this.snap.state,
      signal,
      wraps: true,
    });
    if (next.state.pid !== this.mark.pid) return this.#finish("pane_exited");
    // Lost history: every line from newFrom on is tested, and it can lie
    // above the read.
    let delta: Delta;
    ({ delta, snap: next } = await compareReading(tmux, paneId, this.mark, next, {
      signal,
      wraps: true,
    }));
    // compareReading may read again: a respawn in between is an exit too.
    if (next.state.pid !== this.mark.pid) return this.#finish("pane_exited");
    if (delta.kind === "need-history") return undefined;
    this.snap = next;
    this.mark = markOf(next);
    const start = this.#keep(delta, next);
    const written = logicalSpans(next, start, start + delta.rows.length)
      .filter((line) => !isTypedLine(next, line, this.typed)).map((line) => line.text);
    return await this.#decide(written, next);
  }

  /** Puts the rows of `delta` in the tail; returns the absolute line they start at. */
  #keep(delta: RowsDelta, next: Snapshot): number {
    const rows = delta.rows;
    if (delta.kind === "found") {
      if (this.typed) this.typed.abs -= delta.shift;
      this.tail.shift(delta.shift);
      this.tail.put(delta.start, rows);
      return delta.start;
    }
    this.typed = undefined;
    if (delta.historyLost) {
      // Everything tmux still holds from newFrom on was written during
      // the wait, however much before it went missing: test all of it.
      this.tail.lose(delta.newFrom, rows);
      return delta.newFrom;
    }
    const start = next.state.historySize;
    this.tail.put(start, rows, true);
    return start;
  }

  /** Tests the lines `written` during the wait; undefined means "keep waiting". */
  async #decide(written: string[], next: Snapshot): Promise<WaitResult | undefined> {
    const { patterns, stopPatterns } = this.request;
    // Stop patterns first: one wins over a pattern on the same line.
    const all = [...stopPatterns, ...patterns];
    const hit = await firstMatch(all.map((p) => p.compiled), written, this.#matchOptions());
    if (hit !== null) {
      const stopped = hit.pattern < stopPatterns.length;
      const index = stopped ? hit.pattern : hit.pattern - stopPatterns.length;
      return this.#finish(stopped ? "stopped" : "matched", {
        pattern: all[hit.pattern].source,
        index,
      });
    }
    // After the typed line, its Enter alone leaves the terminal's cursor on
    // a new blank row: not output either.
    const printed = this.typed ? written.some((line) => line !== "") : written.length > 0;
    if (patterns.length === 0 && printed) return this.#finish("any_output");
    if (next.state.dead) return this.#finish("pane_exited");
    return undefined;
  }

  /** Re-arms the watch where the last read found the pane; true when it moved. */
  async #follow(): Promise<boolean> {
    try {
      return await this.watch.follow(this.snap.state.sessionId);
    } catch (error) {
      // No answer: the old watch and the safety read carry on; the next look tries again.
      if (error instanceof TmuxError || this.ctx.signal.aborted) return false;
      throw error;
    }
  }

  async #progress(): Promise<void> {
    const elapsed = Math.round(performance.now() - this.began) / 1000;
    if (elapsed <= this.lastProgress) return;
    this.lastProgress = elapsed;
    const { signal } = this.ctx;
    await this.ctx.progress(
      elapsed,
      this.request.timeoutMs / 1000,
      `waiting for output in ${this.request.paneId} (${this.watch.mechanism})`,
    ).catch((error: unknown) => {
      // Progress is a courtesy: a client that went away gets no answer
      // either, and the wait ends through its cancellation.
      if (!signal.aborted) console.error(`tmux-mcp: progress notification failed: ${error}`);
    });
  }
}
