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
  // One replace, not a loop over characters: guards nest command lists
  // several levels deep, and each level quotes the whole of the one inside.
  // deno-lint-ignore no-control-regex
  return `"${arg.replace(/[\\"$~\x00-\x1f\x7f]/g, escapeInDoubleQuotes)}"`;
}

function escapeInDoubleQuotes(ch: string): string {
  if (ch === "\\" || ch === '"' || ch === "$") return `\\${ch}`;
  // A leading ~ is expanded to a home directory even inside double quotes.
  if (ch === "~") return "\\176";
  return `\\${ch.charCodeAt(0).toString(8).padStart(3, "0")}`;
}

/** One command as tmux's parser reads it: every argument quoted by {@link quoteArgument}. */
export function commandLine(command: readonly string[]): string {
  return command.map(quoteArgument).join(" ");
}
