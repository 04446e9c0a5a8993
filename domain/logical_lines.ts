/**
 * The logical lines of a pane's read (rows tmux wrapped, joined) and the
 * row a capture_since cursor was taken on, whose echo of typed keys is not
 * output: what `wait_for_text` tests its patterns against.
 *
 * @module
 */

import { type CursorState, keepsPrefix } from "./cursor.ts";
import type { Snapshot } from "./since.ts";

/** A logical line: its text and the absolute rows `[from, to)` it spans. */
export interface LogicalLine {
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
export function logicalSpans(snap: Snapshot, start: number, end: number): LogicalLine[] {
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
export interface TypedRow {
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
export function typedRowOf(mark: CursorState): TypedRow | undefined {
  const i = mark.open - mark.base;
  if (mark.openLength === 0 || i < 0 || i >= mark.hashes.length) return undefined;
  return { abs: mark.open, length: mark.openLength, hash: mark.hashes[i] };
}

/**
 * True when `line` holds the typed row and that row still starts with what
 * it held: what follows is the echo of the keys typed onto the prompt (the
 * command line itself), not what the command printed.
 */
export function isTypedLine(
  snap: Snapshot,
  line: LogicalLine,
  typed: TypedRow | undefined,
): boolean {
  if (!typed || typed.abs < line.from || typed.abs >= line.to) return false;
  return keepsPrefix(snap.rows[typed.abs - snap.first], typed.length, typed.hash);
}
