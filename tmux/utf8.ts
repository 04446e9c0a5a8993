/**
 * Cutting text to a number of UTF-8 bytes on character boundaries, and the
 * mark that stands for what was cut. Shared by the views (labels tmux prints)
 * and the budgets (results), so both cut and mark text the same way.
 *
 * @module
 */

/** Stands for text that was cut. */
export const CUT_MARK = "\u2026";
/** The UTF-8 length of {@link CUT_MARK}. */
export const CUT_MARK_BYTES = 3;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Keeps the first `maxBytes` UTF-8 bytes of `text`, ending on a character boundary. */
export function keepHeadBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Keeps the last `maxBytes` UTF-8 bytes of `text`, starting on a character boundary. */
export function keepTailBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - Math.max(0, maxBytes);
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return decoder.decode(bytes.subarray(start));
}
