/**
 * "What is new in this pane since I last looked": consistent reads of a
 * pane's rows with absolute line numbers, and the comparison of a read with
 * a remembered {@link CursorState}. `capture_since` hands the state out as
 * its cursor; `wait_for_text` keeps it in memory between wake-ups. How line
 * numbers and row hashes find the new rows: docs/decisions/004-absolute-line-numbers.md.
 *
 * @module
 */

import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";

import { paneTarget } from "../tmux/targets.ts";
import { keepTrailingSpacesFlags } from "../tmux/version.ts";
import { type CursorState, decodeCursor, keepsPrefix, MAX_CURSOR_ROWS, rowHash } from "./cursor.ts";
import { ToolError } from "../core/errors.ts";
import { resolvePane, trimRow } from "../core/panes.ts";
import type { ToolContext } from "../core/registry.ts";
import { wrapFlags } from "./wrapped.ts";
import { type PaneState, parseState, readState, sameState, STATE_FORMAT } from "./pane_state.ts";

/** History rows above the screen remembered as the anchor. */
export const ANCHOR_ROWS = 3;
const BLANK = rowHash("");
/** Attempts at a read that is consistent and covers the rows asked for. */
const MAX_ATTEMPTS = 8;

/** Rows of a pane from absolute line `first` to the bottom of its screen, read consistently. */
export interface Snapshot {
  state: PaneState;
  /** Absolute line number of `rows[0]`. */
  first: number;
  /** The rows' text, trailing spaces trimmed (as `capture-pane -p`). */
  rows: string[];
  /**
   * When the read asked for tmux's wrap information: for each row, its text
   * with trailing spaces kept when tmux wrapped it onto the next row (the
   * spaces are part of the line), else null.
   */
  wrapped?: (string | null)[];
}

/** How {@link readSnapshot} reads. */
export interface ReadOptions {
  /** A recent state of the pane, which saves the first round trip. */
  guess?: PaneState;
  signal?: AbortSignal;
  /** Also read which rows tmux wrapped onto the next ({@link Snapshot.wrapped}). */
  wraps?: boolean;
}

/**
 * Reads the pane from the absolute line `want(state)` (0 = the top of the
 * history) to the bottom of the screen. The state is sampled before and
 * after the capture in the same round trip and the read is retried when they
 * disagree, so a busy pane never yields rows that do not belong to one
 * moment.
 */
export async function readSnapshot(
  tmux: Tmux,
  paneId: string,
  want: (state: PaneState) => number,
  options: ReadOptions = {},
): Promise<Snapshot> {
  const { signal, wraps = false } = options;
  let predicted = options.guess ?? await readState(tmux, paneId, signal);
  let slack = 0;
  const target = paneTarget(paneId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const fromWanted = want(predicted);
    // After a few misses (a pane scrolling fast), read the whole history.
    const relative = attempt >= MAX_ATTEMPTS / 2
      ? null
      : fromWanted - predicted.historySize - slack;
    const start = relative === null || fromWanted <= 0 ? "-" : String(Math.min(relative, 0));
    // Wrap information: the rows with their trailing spaces (-N) and joined
    // where tmux wrapped them (-J), read in the same round trip.
    const captures = wraps
      ? [
        ["capture-pane", "-p", ...keepTrailingSpacesFlags(tmux.version), "-t", target, "-S", start],
        ["capture-pane", "-p", "-J", "-t", target, "-S", start],
      ]
      : [["capture-pane", "-p", "-t", target, "-S", start]];
    const [before, text, ...rest] = await tmux.run([
      ["display-message", "-p", "-t", target, STATE_FORMAT],
      ...captures,
      ["display-message", "-p", "-t", target, STATE_FORMAT],
    ], { signal });
    const state = parseState(paneId, before);
    const again = parseState(paneId, rest[rest.length - 1]);
    const lines = text === "" ? [] : text.split("\n");
    // capture-pane clamps a start above the history to its top.
    const first = start === "-" ? 0 : Math.max(0, state.historySize + Number(start));
    const bottom = state.historySize + state.height;
    const flags = wraps ? wrapFlags(lines, rest[0]) : undefined;
    if (
      sameState(state, again) && lines.length === bottom - first && first <= want(state) &&
      (!wraps || flags)
    ) {
      if (!flags) return { state, first, rows: lines };
      // tmux's own trimming (capture-pane without -N) drops trailing spaces only.
      const rows = lines.map(trimRow);
      const wrapped = lines.map((line, i) => (flags[i] ? line : null));
      return { state, first, rows, wrapped };
    }
    slack += Math.max(1, state.historySize - predicted.historySize) * 2;
    predicted = state;
  }
  throw new TmuxError(
    "failed",
    "the pane changed during every attempt to read it consistently",
    "Try again; if the pane prints continuously, wait for it to settle (wait_for_text) first.",
  );
}

const hashCache = new WeakMap<Snapshot, Float64Array>();

/** The row hash at absolute line `abs` of `snap`, or undefined outside the read. */
function hashAt(snap: Snapshot, abs: number): number | undefined {
  const i = abs - snap.first;
  if (i < 0 || i >= snap.rows.length) return undefined;
  // The shift search compares remembered rows at many candidate positions:
  // hash each row once, and only the rows looked at (-1: not yet).
  let hashes = hashCache.get(snap);
  if (!hashes) {
    hashes = new Float64Array(snap.rows.length).fill(-1);
    hashCache.set(snap, hashes);
  }
  if (hashes[i] < 0) hashes[i] = rowHash(snap.rows[i]);
  return hashes[i];
}

/** One past the last row that matters: the last non-blank row or the cursor's row. */
export function contentEnd(snap: Snapshot): number {
  const top = snap.state.historySize;
  let last = snap.rows.length - 1;
  while (last >= 0 && last + snap.first >= top && snap.rows[last] === "") last--;
  return Math.max(last + snap.first + 1, top + snap.state.cursorY + 1, top);
}

/** The absolute line from which a read must start to compare against `mark` and make the next one. */
export function neededFrom(mark: CursorState | undefined, state: PaneState): number {
  const next = Math.max(0, state.historySize - ANCHOR_ROWS);
  return mark ? Math.min(mark.base, next) : next;
}

/** What to remember of `snap` for the next comparison (`snap` must start at or above `neededFrom`). */
export function markOf(snap: Snapshot): CursorState {
  const top = snap.state.historySize;
  const base = Math.max(0, top - ANCHOR_ROWS, snap.first);
  const end = Math.min(contentEnd(snap), base + MAX_CURSOR_ROWS);
  const hashes: number[] = [];
  for (let abs = base; abs < end; abs++) hashes.push(hashAt(snap, abs) ?? BLANK);
  const open = Math.min(top + snap.state.cursorY, end);
  return {
    paneId: snap.state.paneId,
    pid: snap.state.pid,
    width: snap.state.width,
    base,
    top,
    open,
    openLength: snap.rows[open - snap.first]?.length ?? 0,
    hashes,
  };
}

/** How many lines one trim drops: a tenth of the pane's `history-limit`, at least one (tmux's grid.c). */
function trimStep(state: PaneState): number {
  return Math.max(1, Math.floor(state.historyLimit / 10));
}

/**
 * Whether tmux may have trimmed this pane's history at some point: a trim
 * happens when the history reaches `history-limit` and drops a tenth of it
 * (at least one line), so right after one the history holds at least
 * `limit - tenth + 1` lines, and it only grows from there until a clear.
 * A smaller history has not been trimmed since it was last cleared, unless
 * the pane grew taller since and took rows back onto its screen. That is not
 * caught here: after it, blank remembered rows (which prove nothing
 * themselves) can read as nothing dropped, and rows a trim moved read as
 * lost rather than found.
 */
function mayHaveTrimmed(state: PaneState): boolean {
  return state.historySize >= Math.max(1, state.historyLimit - trimStep(state) + 1);
}

/** The outcome of comparing a read with a remembered state. */
export type Delta =
  | {
    kind: "found";
    /** How far the remembered rows moved up (history dropped above them). */
    shift: number;
    /** Absolute line (in the read's numbering) of the first new or rewritten row. */
    start: number;
    /** The new and rewritten rows, oldest first. */
    rows: string[];
  }
  | {
    kind: "lost";
    /** True when history the cursor pointed into is gone (else a width change re-wrapped the rows). */
    historyLost: boolean;
    /**
     * The visible screen, up to the last row that matters; from
     * {@link compareReading} with `historyLost`, every row tmux holds from
     * `newFrom` on instead.
     */
    rows: string[];
    /**
     * With `historyLost`: the absolute line from which every row tmux holds
     * was written after the remembered rows, whichever way they were lost.
     * How many lines before it went missing is unknown. It can lie above the
     * read (`snap.first`): whoever needs those rows reads again from line 0.
     */
    newFrom: number;
  }
  /** The rows may have moved further up than `snap` reaches: read again from line 0. */
  | { kind: "need-history" };

/**
 * Compares `snap` with `mark` (pure). The remembered rows above the cursor's
 * row must be found unchanged, at the same line numbers or shifted up by the
 * history tmux dropped; the cursor's row and those below may have changed.
 *
 * Content alone cannot tell remembered rows that moved up from the same rows
 * printed again (a command run twice), so a shift counts only where tmux can
 * have made it: a trim drops exactly a tenth of the limit at a time, so a
 * shift by trims alone is a multiple of it; a clear drops the whole history,
 * so what survives of the rows starts at line 0 and the shift reaches past
 * the remembered history rows, which only holds without a trim since (the
 * history is still short of the trimmed band). A shift that only a clear
 * followed by trims explains, or several shifts that fit, leave the place
 * unknown: that is reported as lost. Residual blind spot: output that
 * repeats the remembered rows exactly a multiple of a tenth further down
 * reads as "nothing dropped"; tmux 3.3a exposes no count of lines scrolled
 * or dropped that could tell.
 */
export function compare(mark: CursorState, snap: Snapshot): Delta {
  if (mark.width !== snap.state.width) {
    const rows = screenRows(snap, contentEnd(snap));
    return { kind: "lost", historyLost: false, rows, newFrom: snap.state.historySize };
  }
  return new Comparison(mark, snap).delta();
}

/** The rows of `snap`'s screen up to absolute line `end`. */
function screenRows(snap: Snapshot, end: number): string[] {
  return snap.rows.slice(snap.state.historySize - snap.first, end - snap.first);
}

/** One {@link compare} of a read with a cursor of the same width. */
class Comparison {
  readonly end: number;
  /** Remembered rows above the cursor's row. */
  readonly settled: number;
  /** Of those, the ones that were history. */
  readonly history: number;
  readonly noHistory: boolean;
  readonly trimmable: boolean;
  readonly tenth: number;
  /**
   * A taller pane takes rows back out of the history onto its screen, and a
   * shorter one pushes them in; no row moves (a line number is a place in
   * tmux's grid, which only a width change reflows). So a history smaller
   * than the cursor's no longer proves a trim or a clear: then only
   * non-blank rows where they were, weighed against the places a drop
   * could have moved them to, vouch that nothing was dropped.
   */
  readonly kept: boolean;

  constructor(readonly mark: CursorState, readonly snap: Snapshot) {
    this.end = contentEnd(snap);
    this.settled = Math.min(mark.open - mark.base, mark.hashes.length);
    this.history = Math.min(mark.top - mark.base, this.settled);
    // A pane created with history-limit 0 keeps no history: tmux drops every
    // row that scrolls off the screen, one at a time, so rows may always have
    // been dropped, and its history size (always 0) rules nothing out. (On the
    // alternate screen every pane drops what scrolls off: that is a redraw.)
    this.noHistory = snap.state.historyLimit === 0 && !snap.state.alternate;
    this.trimmable = this.noHistory || mayHaveTrimmed(snap.state);
    this.tenth = trimStep(snap.state);
    this.kept = snap.state.historySize >= mark.top;
  }

  delta(): Delta {
    const { mark, settled, history, kept, trimmable, tenth } = this;
    // Nothing dropped: every settled row where it was.
    const same = this.agrees(0, 0, settled);
    if (same === null) return { kind: "need-history" };
    if (same && kept && this.undropped(settled)) return this.found(0);

    // The rows are where they were: all the settled ones, or only the
    // history rows (nothing was dropped above them) while screen rows above
    // the cursor changed, a redraw. `vouching` counts the rows that say so.
    const vouching = same ? settled : this.agrees(0, 0, history) === true ? history : undefined;
    const inPlace = vouching !== undefined && (kept || this.anchored(vouching));

    const matches = this.shifts();
    if (matches === null) return { kind: "need-history" };
    const possible = matches.filter((shift) => trimmable ? shift % tenth === 0 : shift >= mark.top);
    // Rows after the nearest place the rows may really be are new in any
    // case. Besides the places above, a clear followed by trims leaves what
    // survives of them at line 0 after any shift; a place further down that
    // no trim explains is a repeat, never them.
    const nearest = same || inPlace
      ? 0
      : matches.find((shift) => shift % tenth === 0 || shift >= mark.top);
    // Non-blank rows unchanged where they were vouch for them staying just as
    // strongly as a shifted match vouches for a trim: both is a tie.
    const stayed = inPlace && this.anchored(vouching);
    if (possible.length === 1 && !stayed) return this.found(possible[0]);
    if (possible.length > 0) return this.lost(nearest);

    // A program rewrote the screen (a full-screen redraw, a multi-line
    // progress display), or the pane changed height. Everything from the
    // first changed row is new. With no rows to vouch for it (a cursor taken
    // before the pane ever scrolled), a trim or a clear after scrolling looks
    // just like a redraw: only tmux's counts and the cursor's row can tell.
    if (inPlace && this.undropped(vouching)) return this.found(0);

    return this.lost(nearest);
  }

  /**
   * History dropped above the rows (trim or clear): the shifts up at which
   * all settled rows are found again. At least one non-blank settled row has
   * to survive. Null when the read does not reach far enough up.
   */
  shifts(): number[] | null {
    const { mark, snap, settled } = this;
    const nonBlank = mark.hashes.slice(0, settled).map((h, i) => (h === BLANK ? -1 : i))
      .filter((i) => i >= 0);
    const matches: number[] = [];
    if (nonBlank.length > 0) {
      if (snap.first > 0) return null;
      const lastNonBlank = nonBlank[nonBlank.length - 1];
      for (let shift = 1; mark.base + lastNonBlank - shift >= 0; shift++) {
        if (this.agrees(shift, 0, settled)) matches.push(shift);
      }
    }
    return matches;
  }

  /** Compares the remembered rows `[from, to)` shifted up by `shift`; null means "not in the read". */
  agrees(shift: number, from: number, to: number): boolean | null {
    const { mark, snap } = this;
    for (let i = from; i < to; i++) {
      const abs = mark.base + i - shift;
      if (abs < 0) continue;
      const h = hashAt(snap, abs);
      if (h === undefined) return abs < snap.first ? null : false;
      if (h !== mark.hashes[i]) return false;
    }
    return true;
  }

  found(shift: number): Delta & { kind: "found" } {
    const { mark, snap, end } = this;
    let start = mark.base + mark.hashes.length - shift;
    for (let i = 0; i < mark.hashes.length; i++) {
      const abs = mark.base + i - shift;
      if (abs < 0) continue;
      if (hashAt(snap, abs) !== mark.hashes[i]) {
        start = abs;
        break;
      }
    }
    start = Math.max(start, snap.first);
    const rows = start < end ? snap.rows.slice(start - snap.first, end - snap.first) : [];
    return { kind: "found", shift, start, rows };
  }

  /**
   * History lost; `nearest` is the smallest shift at which the rows appear
   * to be, if any: rows after it are new whichever place is the real one.
   * With none, every row from line 0 on is new, which may lie above the
   * read: the caller reads them itself, as only it knows whether it needs
   * them.
   */
  lost(nearest: number | undefined): Delta {
    const newFrom = nearest === undefined ? 0 : this.found(nearest).start;
    return { kind: "lost", historyLost: true, rows: screenRows(this.snap, this.end), newFrom };
  }

  /**
   * Typing onto the cursor's row keeps what it held as a prefix; after
   * rows scrolled away and a clear, an unrelated row has its line number.
   */
  openKept(): boolean {
    const { mark, snap } = this;
    const i = mark.open - mark.base;
    if (i >= mark.hashes.length) return true;
    return keepsPrefix(snap.rows[mark.open - snap.first], mark.openLength, mark.hashes[i]);
  }

  /**
   * Blank rows prove nothing (a trim can move blank rows onto blank rows):
   * without a non-blank row to compare, "nothing dropped" rests on tmux's
   * counts, which cannot rule out a trim once the history is as full as a
   * trim leaves it, and never rule out a clear after rows scrolled: then the
   * cursor's row has to still start with what it held (blank: no evidence).
   */
  anchored(count: number): boolean {
    return this.mark.hashes.slice(0, count).some((h) => h !== BLANK);
  }

  /**
   * Without history the cursor's row is the only witness when no remembered
   * row above it could be: blank ones prove nothing, and non-blank ones found
   * neither in place nor shifted up scrolled off (the prompt comes back to
   * the bottom row after any burst, so that row alone would vouch for it).
   */
  undropped(count: number): boolean {
    return this.anchored(count) ||
      ((this.noHistory ? !this.anchored(this.settled) : !this.trimmable) && this.openKept());
  }
}

/**
 * {@link compare} on `snap`, reading the whole history first when the
 * comparison needs rows above the read: rows to find again, or lost history
 * whose new rows start above it. Resolves with the comparison and the read
 * it was made on (still "need-history" only when the pane changed
 * meanwhile); lost history comes with every row from `newFrom` on.
 */
export async function compareReading(
  tmux: Tmux,
  paneId: string,
  mark: CursorState,
  snap: Snapshot,
  options: Omit<ReadOptions, "guess"> = {},
): Promise<{ delta: Delta; snap: Snapshot }> {
  const above = (d: Delta, read: Snapshot) =>
    d.kind === "lost" && d.historyLost && d.newFrom < read.first;
  let delta = compare(mark, snap);
  if (delta.kind === "need-history" || above(delta, snap)) {
    snap = await readSnapshot(tmux, paneId, () => 0, { ...options, guess: snap.state });
    delta = compare(mark, snap);
    if (above(delta, snap)) delta = { kind: "need-history" };
  }
  if (delta.kind === "lost" && delta.historyLost) {
    delta.rows = snap.rows.slice(delta.newFrom - snap.first, contentEnd(snap) - snap.first);
  }
  return { delta, snap };
}

/**
 * The pane a capture_since `cursor` was taken of, and its decoded state (no
 * cursor: `paneId`, else the default pane). A `paneId` given with a cursor
 * must be the cursor's pane; `startAgain` says how to do without the cursor.
 */
export async function cursorPane(
  ctx: ToolContext,
  cursor: string | null | undefined,
  paneId: string | null | undefined,
  startAgain: string,
): Promise<{ mark: CursorState | undefined; paneId: string }> {
  const mark = cursor ? await decodeCursor(cursor) : undefined;
  if (mark && paneId && mark.paneId !== paneId) {
    throw new ToolError(
      "the cursor belongs to another pane",
      `Pass the paneId the cursor came from, or ${lowerFirst(startAgain)}`,
    );
  }
  return { mark, paneId: mark?.paneId ?? await resolvePane(ctx, paneId) };
}

/** Refuses `mark` when its pane's program was restarted since (the pane's pid differs). */
export function refuseRestarted(mark: CursorState, state: PaneState, startAgain: string): void {
  if (state.pid !== mark.pid) {
    throw new ToolError(
      "the pane's program was restarted (respawned) since the cursor was issued, so its output is not a continuation",
      startAgain,
    );
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
