/**
 * Reading option values from `show-options` without `-v`: tmux prints
 * `NAME VALUE` with the value quoted as a command argument (control
 * characters as `\ooo`, its own backslashes doubled), the same on every
 * version. With `-v` tmux 3.3a prints the value raw and 3.4+ escapes control
 * characters but not backslashes, so `\033` could be either.
 *
 * @module
 */

import { unescapeAt } from "./format.ts";

/** The values in `show-options` output (one per line; an array option has several). */
export function parseOptionValues(output: string): string[] {
  return output.split("\n").filter((line) => line !== "").map((line) => {
    const space = line.indexOf(" ");
    return space === -1 ? "" : unquoteArgument(line.slice(space + 1));
  });
}

/** A command argument as tmux quotes it (`''`, `'a b'`, `"a $b"`, `a\\033`) back to its text. */
export function unquoteArgument(word: string): string {
  const quote = word[0];
  const body = (quote === "'" || quote === '"') && word.length >= 2 && word.endsWith(quote)
    ? word.slice(1, -1)
    : word;
  let text = "";
  let at = 0;
  for (let slash = body.indexOf("\\"); slash !== -1; slash = body.indexOf("\\", at)) {
    const [escaped, length] = unescapeAt(body, slash);
    text += body.slice(at, slash) + escaped;
    at = slash + length;
  }
  return text + body.slice(at);
}
