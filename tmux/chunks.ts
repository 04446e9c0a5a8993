/**
 * tmux's limit on the size of one command line. A `tmux` client process
 * sends its whole argument vector to the server in one message, and tmux
 * 3.3a refuses more than about 16 KB ("command too long", measured here);
 * control mode has no such limit. Long text is therefore cut into chunks,
 * and round trips are kept under the smaller limit whatever the transport.
 *
 * @module
 */

/** Bytes of arguments one round trip may carry (below the ~16 KB message limit). */
export const ROUND_TRIP_BYTES = 12_000;

/**
 * The most argument bytes one `tmux` process passes to the server (measured
 * on tmux 3.3a: 16,300 went through, 16,350 failed).
 */
export const PROCESS_ARGUMENT_BYTES = 16_000;

/** Bytes of text one chunk carries, so a chunk and its command fit a round trip. */
export const CHUNK_BYTES = 8_000;

const encoder = new TextEncoder();

/** Cuts `text` into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function chunkText(text: string, maxBytes = CHUNK_BYTES): string[] {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short text is one chunk.
  if (text.length * 3 <= maxBytes) return [text];
  const chunks: string[] = [];
  let current = "";
  let size = 0;
  for (const ch of text) {
    const n = ch.length === 1 && ch.charCodeAt(0) < 0x80 ? 1 : encoder.encode(ch).length;
    if (size + n > maxBytes && current !== "") {
      chunks.push(current);
      current = "";
      size = 0;
    }
    current += ch;
    size += n;
  }
  if (current !== "" || chunks.length === 0) chunks.push(current);
  return chunks;
}

/** Bytes `command` takes in a round trip (its arguments, NUL-separated). */
export function commandBytes(command: readonly string[]): number {
  return command.reduce((sum, arg) => sum + encoder.encode(arg).length + 1, 0);
}
