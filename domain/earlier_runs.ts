/**
 * What earlier `run_shell_command` runs of a pane leave in tmux (its
 * running mark, status options and buffers), read from `show-options -p`.
 *
 * @module
 */

import {
  AWAIT_OPTION_PREFIX,
  BODY_BUFFER_PREFIX,
  OUTPUT_BUFFER_PREFIX,
  parseRunningMark,
  RUNNING_OPTION,
  type RunningMark,
  STATUS_OPTION_PREFIX,
} from "./shell_frame.ts";
import { paneTarget } from "../tmux/targets.ts";

/** The mark of an earlier run of the pane's current shell, if any (`listing` is `show-options -p`). */
export function earlierRun(listing: string, owner: string): RunningMark | null {
  const running = listing.split("\n").find((line) => line.startsWith(`${RUNNING_OPTION} `));
  const mark = running ? parseRunningMark(running.slice(RUNNING_OPTION.length + 1)) : null;
  // A respawned pane has a new shell: the mark belongs to the old one.
  return mark && mark.owner === owner ? mark : null;
}

/**
 * Commands that drop what earlier runs left behind: their status options,
 * and the buffers of the run the pane's mark names. They run only with a
 * line typed while the shell waits at its prompt, so no earlier run is
 * still going (one that never began, inside an unclosed quote, never will).
 */
export function leftovers(
  paneId: string,
  listing: string,
  earlier: RunningMark | null,
  current: string,
): string[][] {
  const unset = (name: string) => ["set-option", "-pu", "-t", paneTarget(paneId), name];
  const names = listing.split("\n").map((line) => line.split(" ", 1)[0]);
  const stale = names.filter((name) =>
    (name.startsWith(STATUS_OPTION_PREFIX) || name.startsWith(AWAIT_OPTION_PREFIX)) &&
    !name.endsWith(`_${current}`)
  );
  if (!earlier) return stale.map(unset);
  // Setting a buffer first makes deleting it succeed whether or not it was there.
  const drop = (name: string) => [["set-buffer", "-b", name, "x"], ["delete-buffer", "-b", name]];
  return [
    ...[...new Set([...stale, `${STATUS_OPTION_PREFIX}${earlier.id}`])].map(unset),
    ...drop(`${BODY_BUFFER_PREFIX}${earlier.id}`),
    ...drop(`${OUTPUT_BUFFER_PREFIX}${earlier.id}`),
  ];
}
