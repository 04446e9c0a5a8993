/**
 * Reading a paste buffer's bytes back. `show-buffer` answers a control
 * client with the text made visible (tmux 3.3a: `\\` for a backslash, `\$`,
 * C escapes such as `\t`, three-digit octal for other control characters)
 * and any other client with the bytes as they are; a control transport may
 * also run a round trip as a process. So a known tail is appended first, and
 * how it comes back says which form the answer is in.
 *
 * @module
 */

import type { Tmux } from "./client.ts";

/** Appended to the buffer before it is read: a line break and one backslash. */
const CANARY = "\n\\";

const C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  t: "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  s: " ",
  e: "\x1b",
  E: "\x1b",
};

/** Undoes tmux's visible form of buffer text (C-style and octal escapes). */
export function unvis(text: string): string {
  if (!text.includes("\\")) return text;
  // Without octal escapes no byte needs joining into a character: one replace does.
  if (!/\\[0-7]{3}/.test(text)) {
    return text.replace(/\\(.)/gsu, (_, code) => C_ESCAPES[code] ?? code);
  }
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let last = 0;
  for (const match of text.matchAll(/\\([0-7]{3}|.)/gsu)) {
    parts.push(encoder.encode(text.slice(last, match.index)));
    const code = match[1];
    parts.push(
      code.length === 3
        ? Uint8Array.of(parseInt(code, 8))
        : encoder.encode(C_ESCAPES[code] ?? code),
    );
    last = match.index + match[0].length;
  }
  parts.push(encoder.encode(text.slice(last)));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The command that appends the known tail to buffer `name` (creating it when
 * there is none), for {@link readAppended}; a caller may send it along with
 * commands of its own.
 */
export function appendCanary(name: string): string[] {
  return ["set-buffer", "-a", "-b", name, "--", CANARY];
}

/**
 * The text of buffer `name` (which must exist), exactly as stored. The
 * buffer keeps the appended tail: delete it afterwards.
 */
export async function readBuffer(tmux: Tmux, name: string): Promise<string> {
  await tmux.run([appendCanary(name)]);
  return await readAppended(tmux, name);
}

/** {@link readBuffer} of a buffer that {@link appendCanary} appended to. */
export async function readAppended(tmux: Tmux, name: string): Promise<string> {
  return parseAppended(await tmux.one(["show-buffer", "-b", name]));
}

/**
 * The buffer's text from what `show-buffer` printed of a buffer that
 * {@link appendCanary} appended to, whichever form tmux printed it in.
 */
export function parseAppended(shown: string): string {
  const text = shown.replace(/\n$/, "");
  if (text.endsWith("\n\\\\")) return unvis(text.slice(0, -3));
  if (text.endsWith(CANARY)) return text.slice(0, -CANARY.length);
  throw new Error("tmux answered show-buffer in a form this server does not know");
}
