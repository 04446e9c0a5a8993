/**
 * Reading tmux's environment tables, always through `show-environment -s`
 * (shell code, which parses exactly); {@link unescapeAt} reads the control
 * characters tmux 3.4+ escapes (docs/tmux-quirks.md#show-environment-output).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { unescapeAt } from "./format.ts";

/** One variable of a tmux environment; `value` is null for one marked for removal. */
export interface EnvironmentEntry {
  name: string;
  value: string | null;
}

/** The `show-environment` command in shell form for `scope` flags, optionally one variable. */
export function showEnvironmentCommand(scope: string[], name?: string | null): string[] {
  return ["show-environment", "-s", ...scope, ...(name ? [name] : [])];
}

/** Parses the output of {@link showEnvironmentCommand}. */
export function parseEnvironment(output: string): EnvironmentEntry[] {
  const entries: EnvironmentEntry[] = [];
  let at = 0;
  const fail = () =>
    new TmuxError(
      "failed",
      "tmux printed its environment in a form this server does not read",
      "Report this with the tmux version; show_environment with name may still read one variable.",
    );
  while (at < output.length) {
    if (output.startsWith("unset ", at)) {
      const end = output.indexOf(";", at);
      if (end === -1) throw fail();
      entries.push({ name: output.slice(at + 6, end), value: null });
      at = end + 1;
    } else {
      const eq = output.indexOf('="', at);
      if (eq === -1) throw fail();
      const name = output.slice(at, eq);
      let value = "";
      let i = eq + 2;
      while (i < output.length && output[i] !== '"') {
        if (output[i] !== "\\") value += output[i++];
        else {
          const [text, length] = unescapeAt(output, i);
          value += text;
          i += length;
        }
      }
      const tail = `"; export ${name};`;
      if (!output.startsWith(tail, i)) throw fail();
      entries.push({ name, value });
      at = i + tail.length;
    }
    if (output[at] === "\n") at++;
  }
  return entries;
}
