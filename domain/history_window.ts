/**
 * Reading only the newest rows of a pane's history that a budget can return.
 * A budget keeps the newest lines, so a read starts with a window of rows
 * just above the bottom and doubles it (a new read of the whole window)
 * until what it holds decides the result: enough whole lines, or more bytes
 * than the budget, or the top of the range. A million-line history then
 * costs a few hundred rows, not the whole history, per call.
 *
 * @module
 */

import { type Content, utf8Length } from "../core/budget.ts";

/** What a window has to hold to decide a budgeted result. */
export interface WindowNeed {
  /** Lines the result may keep. */
  maxLines: number;
  /** Bytes the result may keep. */
  maxBytes: number;
  /** Read with -J: the window's first line may be the tail of a wrapped line above it. */
  joined: boolean;
}

/** The rows to read first: the budget's lines plus a screen that may be blank below them. */
export function firstWindow(need: WindowNeed, screenRows: number): number {
  return Math.max(1, need.maxLines) + Math.max(0, screenRows);
}

/** The next window after `rows` rows did not suffice, at most `held` rows. */
export function widerWindow(rows: number, held: number): number {
  return Math.min(held, Math.max(1, rows) * 2);
}

/**
 * True when `lines`, read from a window's first row down with blank rows at
 * the bottom dropped, decide the budgeted result whatever lies above the
 * window: the lines after any partial first one are as many as the budget
 * keeps, or at least as many bytes (each line costs its newline too).
 * `ascii`: the lines are known to be ASCII, each as many bytes as units.
 */
export function windowDecides(
  lines: readonly string[],
  need: WindowNeed,
  ascii = false,
): boolean {
  if (need.maxLines <= 0 || need.maxBytes <= 0) return true;
  const whole = need.joined ? lines.slice(1) : lines;
  if (whole.length >= need.maxLines) return true;
  let bytes = 0;
  for (const line of whole) bytes += (ascii ? line.length : utf8Length(line)) + 1;
  return bytes >= need.maxBytes;
}

/**
 * `content` (budgeted from a window) with `unread` rows above the window
 * counted as dropped: one line each, and at least their newlines in bytes.
 */
export function withUnreadRows(content: Content, unread: number): Content {
  if (unread <= 0) return content;
  return {
    ...content,
    truncated: true,
    droppedLines: content.droppedLines + unread,
    droppedBytes: content.droppedBytes + unread,
  };
}
