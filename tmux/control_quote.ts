/**
 * Writing commands for tmux's command parser, which a control client reads
 * as lines (not argument vectors).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/**
 * Quotes one argument for tmux's command parser (control mode reads command
 * lines, not argument vectors) so it arrives byte-exact. Single quotes stop
 * every expansion (`$`, `~`, `;`, `#`, `\`, `{`); a value with a single quote
 * or a control character (a newline would end the line) uses double quotes,
 * where only `\`, `"` and `$` are special, and control characters become
 * three-digit octal escapes.
 */
export function quoteArgument(arg: string): string {
  if (arg.includes("\0")) {
    throw new TmuxError(
      "failed",
      "an argument contains a NUL character, which tmux cannot receive",
      "Remove NUL characters from the value and try again.",
    );
  }
  // deno-lint-ignore no-control-regex
  if (!/['\x01-\x1f\x7f]/.test(arg)) return `'${arg}'`;
  let out = '"';
  for (const ch of arg) {
    const code = ch.charCodeAt(0);
    if (ch === "\\" || ch === '"' || ch === "$") out += `\\${ch}`;
    // A leading ~ is expanded to a home directory even inside double quotes.
    else if (ch === "~") out += "\\176";
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** One command as tmux's parser reads it: every argument quoted by {@link quoteArgument}. */
export function commandLine(command: readonly string[]): string {
  return command.map(quoteArgument).join(" ");
}
