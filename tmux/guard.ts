/**
 * Commands that tmux runs only while a condition holds, decided inside tmux
 * in the same round trip as the commands before them. `if-shell -F` tests a
 * format (no shell starts) and inserts the chosen command list right after
 * itself, so nothing else can run between the test and the commands.
 *
 * @module
 */

import { commandLine } from "./control_transport.ts";

/** `commands` as one command-list string for tmux's parser, each argument arriving byte-exact. */
export function commandList(commands: readonly string[][]): string {
  return commands.map(commandLine).join(" ; ");
}

/**
 * The `if-shell -F` command that runs `then` when `condition` (a format
 * expanded for `target`) is true, else `otherwise` (nothing when empty).
 */
export function runIf(
  target: string,
  condition: string,
  then: readonly string[][],
  otherwise: readonly string[][] = [],
): string[] {
  const branches = [commandList(then), ...(otherwise.length > 0 ? [commandList(otherwise)] : [])];
  return ["if-shell", "-F", "-t", target, condition, ...branches];
}

/**
 * A format, true (non-empty) when some pane of the target's window satisfies
 * `condition` (a format expanded for each pane). Prefix `#{W:…}` to ask of
 * every window of the target's session.
 */
export function anyPaneWhere(condition: string): string {
  return `#{P:#{?${condition},1,}}`;
}

/** A format, true in a window's context when `paneId` is one of its panes. */
export function holdsPane(paneId: string): string {
  return anyPaneWhere(`#{==:#{pane_id},${paneId}}`);
}

/**
 * True when `output` (of a {@link runIf} command) starts with the line
 * `marker`: tmux took the branch that prints it.
 */
export function printed(output: string | undefined, marker: string): boolean {
  return output?.split("\n")[0] === marker;
}
