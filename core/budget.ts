/**
 * Line and byte budgets for text results (docs/behaviour.md#budgets): keep the newest
 * lines, first at most `maxLines`, then at most the byte budget, cutting only
 * on UTF-8 character boundaries.
 *
 * @module
 */

import { CUT_MARK, CUT_MARK_BYTES, keepTailBytes } from "../tmux/utf8.ts";
import { counted } from "./words.ts";

/** Text lines with what was cut to fit the budgets. */
export interface Content {
  /** The kept lines, oldest first. */
  lines: string[];
  /** True when anything was dropped. */
  truncated: boolean;
  /** Lines dropped entirely (the oldest ones). */
  droppedLines: number;
  /** UTF-8 bytes dropped in all, including those of dropped lines and of a cut line. */
  droppedBytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * UTF-8 length of `text`, as TextEncoder would encode it (a lone surrogate
 * becomes U+FFFD, 3 bytes), counted without keeping the bytes: results are
 * measured line by line, and for a short line the loop costs less than a
 * call into the encoder; a long text (a whole serialized result) goes to the
 * encoder, whose native loop is many times faster than this one.
 */
export function utf8Length(text: string): number {
  if (text.length > LONG_TEXT) return encodedLength(text);
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair: 2 units, 4 bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** True when `text` is all ASCII, so every piece of it is as many bytes as units. */
export function isAscii(text: string): boolean {
  return utf8Length(text) === text.length;
}

/** Above this many UTF-16 units, {@link utf8Length} asks the encoder. */
const LONG_TEXT = 256;

/** Where the encoder writes bytes that are only counted; reused by every call. */
const scratch = new Uint8Array(64 * 1024);

/** UTF-8 length of `text` by encoding it a scratch buffer at a time. */
function encodedLength(text: string): number {
  // The encoder stops before a character that does not fit, never inside one.
  let { read, written } = encoder.encodeInto(text, scratch);
  while (read < text.length) {
    const next = encoder.encodeInto(text.slice(read), scratch);
    read += next.read;
    written += next.written;
  }
  return written;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * At most `maxBytes` UTF-8 bytes of `text` that keep the span `[start, end)`
 * (UTF-16 offsets) or, when the span itself is too long, its beginning; the
 * room left is shared between the text before and after it. Cut on character
 * boundaries, with {@link CUT_MARK} on each side that lost text.
 */
export function excerptAround(text: string, start: number, end: number, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const from = utf8Length(text.slice(0, start));
  const to = Math.max(from, utf8Length(text.slice(0, end)));
  // Room for both marks first; a side that turns out uncut hands its mark's room to the other.
  const room = Math.max(0, maxBytes - 2 * CUT_MARK_BYTES);
  let a = Math.max(0, from - Math.max(0, Math.floor((room - (to - from)) / 2)));
  let b = Math.min(bytes.length, a + room);
  if (b === bytes.length) a = Math.max(0, b - room - CUT_MARK_BYTES);
  else if (a === 0) b = Math.min(bytes.length, room + CUT_MARK_BYTES);
  while (a < bytes.length && (bytes[a] & 0xc0) === 0x80) a++;
  while (b > a && b < bytes.length && (bytes[b] & 0xc0) === 0x80) b--;
  return (a > 0 ? CUT_MARK : "") + decoder.decode(bytes.subarray(a, b)) +
    (b < bytes.length ? CUT_MARK : "");
}

/** What a caller knows of the text its lines were split from, which spares work per line. */
export interface LineSource {
  /** The text is all ASCII (see {@link isAscii}): a line's UTF-8 size is its length. */
  ascii: boolean;
  /** A text that starts with the lines joined by newlines (they were split from it). */
  text?: string;
}

/**
 * Fits `lines` into `maxLines` lines and `maxBytes` bytes (lines counted with
 * one newline byte each), keeping the newest. A newest line longer than the
 * byte budget keeps its end.
 */
export function budgetLines(
  lines: readonly string[],
  maxLines: number,
  maxBytes: number,
  source?: LineSource,
): Content {
  // Each line is measured once: the sizes of the kept ones are needed again.
  // Lines known to be ASCII are their length: a long capture is not
  // measured again a line at a time.
  const sizes = source?.ascii
    ? lines.map((line) => line.length + 1)
    : lines.map((line) => utf8Length(line) + 1);
  const from = Math.max(0, lines.length - Math.max(0, maxLines));
  let total = 0;
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i];
    if (i >= from) bytes += sizes[i];
  }
  let first = from;
  while (bytes > maxBytes && first < lines.length - 1) {
    bytes -= sizes[first];
    first++;
  }
  let kept = lines.slice(first);
  if (bytes > maxBytes && kept.length === 1) {
    kept = [keepTailBytes(kept[0], Math.max(0, maxBytes - 1))];
    bytes = utf8Length(kept[0]) + 1;
  }
  if (maxBytes <= 0) {
    kept = [];
    bytes = 0;
  }
  if (source?.text !== undefined && kept.length > 0 && kept[0] === lines[first]) {
    keepJoined(kept, lines, first, source.text);
  }
  const droppedLines = lines.length - kept.length;
  const droppedBytes = total - bytes;
  return {
    lines: kept,
    truncated: droppedLines > 0 || droppedBytes > 0,
    droppedLines,
    droppedBytes,
  };
}

/**
 * The text of kept lines that are a slice of a text's lines, when known: a
 * rendering takes it instead of joining thousands of lines again. Keyed by
 * the kept array, which nothing changes once budgeted (cuts make new ones).
 */
const joinedLines = new WeakMap<readonly string[], string>();

/** Notes that `kept`, the lines of `text` from `first` on, join to a slice of `text`. */
function keepJoined(
  kept: readonly string[],
  lines: readonly string[],
  first: number,
  text: string,
) {
  let start = 0;
  for (let i = 0; i < first; i++) start += lines[i].length + 1;
  let end = start - 1;
  for (const line of kept) end += line.length + 1;
  joinedLines.set(kept, text.slice(start, end));
}

/** `lines.join("\n")`, taken from their source text when {@link budgetLines} kept it. */
export function joinLines(lines: readonly string[]): string {
  return joinedLines.get(lines) ?? lines.join("\n");
}

/** True when `value` has the shape of a {@link Content}. */
export function isContent(value: unknown): value is Content {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.lines) && typeof v.truncated === "boolean" &&
    typeof v.droppedLines === "number" && typeof v.droppedBytes === "number";
}

/**
 * The cut of `base` that keeps only its newest `kept` lines, counting what
 * it drops on top of what `base` had already dropped.
 */
export function keepNewestLines(base: Content, kept: number): Content {
  const from = Math.max(0, base.lines.length - Math.max(0, kept));
  let dropped = 0;
  for (let i = 0; i < from; i++) dropped += utf8Length(base.lines[i]) + 1;
  return {
    lines: base.lines.slice(from),
    truncated: base.truncated || from > 0,
    droppedLines: base.droppedLines + from,
    droppedBytes: base.droppedBytes + dropped,
  };
}

/**
 * The cut of `base` that keeps only the last `bytes` UTF-8 bytes of its
 * newest line (on a character boundary), for when not even that line fits.
 */
export function keepNewestLineTail(base: Content, bytes: number): Content {
  const newest = keepNewestLines(base, 1);
  if (newest.lines.length === 0) return newest;
  const whole = newest.lines[0];
  const tail = keepTailBytes(whole, Math.max(0, bytes));
  // An empty cut of the line is no line at all.
  if (tail === "") return keepNewestLines(base, 0);
  const cut = utf8Length(whole) - utf8Length(tail);
  return {
    lines: [tail],
    truncated: newest.truncated || cut > 0,
    droppedLines: newest.droppedLines,
    droppedBytes: newest.droppedBytes + cut,
  };
}

/** A text rendering of `content` under a one-line `header`, saying what was cut. */
export function contentText(header: string, content: Content): string {
  const cut = content.truncated
    ? ` (truncated: ${counted(content.droppedLines, "older line")} and ${
      counted(content.droppedBytes, "byte")
    } dropped)`
    : "";
  const head = `${header}: ${counted(content.lines.length, "line")}${cut}`;
  return content.lines.length === 0 ? head : `${head}\n${joinLines(content.lines)}`;
}

/**
 * The largest count in `[0, total]` that `fits`, which holds for every count
 * up to some limit and for none above it. Probes 1, 2, 4, … then halves the
 * gap, so only about twice what fits is ever measured (the input can be far
 * larger than one round trip), in a logarithmic number of probes.
 */
export function longestFitting(total: number, fits: (count: number) => boolean): number {
  let good = 0;
  let bad = total + 1;
  for (let probe = 1; probe <= total; probe = Math.min(probe * 2, total)) {
    if (!fits(probe)) {
      bad = probe;
      break;
    }
    good = probe;
    if (probe === total) break;
  }
  while (bad - good > 1) {
    const mid = good + Math.floor((bad - good) / 2);
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}
