/**
 * What earlier `run_shell_command` runs of a pane leave in tmux (its
 * running mark and the options each run sets), read from `show-options -p`.
 *
 * @module
 */

import {
  parseRunningMark,
  RUN_OPTION_PREFIXES,
  runNames,
  RUNNING_OPTION,
  type RunningMark,
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
 * Commands that drop what earlier runs left behind: their options (those of
 * run `current`, the new one, stay), and the status of the run the pane's
 * mark names. They run only with a line typed while the shell waits at its
 * prompt, so no earlier run is still going (one that never began, inside an
 * unclosed quote, never will).
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
    RUN_OPTION_PREFIXES.some((prefix) => name.startsWith(prefix)) && !name.endsWith(`_${current}`)
  );
  if (earlier) stale.push(runNames(earlier.id).statusOption);
  return [...new Set(stale)].map(unset);
}
