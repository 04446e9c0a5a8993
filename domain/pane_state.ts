/**
 * A pane's state as reads of its rows need it: the history size and limit,
 * the screen's size, the cursor row, the shell's pid, in one small format.
 *
 * @module
 */

import type { Tmux } from "../tmux/client.ts";
import { noSuch } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";

/** A pane's state at the time of a read. */
export interface PaneState {
  paneId: string;
  /** The session the pane is in now (a move changes it; a watch must follow). */
  sessionId: string;
  pid: number;
  historySize: number;
  historyLimit: number;
  height: number;
  width: number;
  cursorY: number;
  alternate: boolean;
  dead: boolean;
}

/** The format of a pane's state: ten fields, `:`-separated (ids and numbers only). */
export const STATE_FORMAT = [
  "#{pane_id}",
  "#{pane_pid}",
  "#{history_size}",
  "#{history_limit}",
  "#{pane_height}",
  "#{pane_width}",
  "#{cursor_y}",
  "#{alternate_on}",
  "#{pane_dead}",
  "#{session_id}",
].join(":");

/** Reads {@link STATE_FORMAT}'s output for `paneId`; a missing pane is no_such. */
export function parseState(paneId: string, text: string): PaneState {
  const parts = text.split(":");
  if (parts.length !== 10 || parts[0] !== paneId) throw noSuch("pane");
  const n = parts.slice(1, 9).map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
  return {
    paneId,
    sessionId: parts[9],
    pid: n[0],
    historySize: n[1],
    historyLimit: n[2],
    height: n[3],
    width: n[4],
    cursorY: n[5],
    alternate: n[6] === 1,
    dead: n[7] === 1,
  };
}

/** True when nothing a read depends on changed between two states. */
export function sameState(a: PaneState, b: PaneState): boolean {
  return a.pid === b.pid && a.historySize === b.historySize && a.height === b.height &&
    a.width === b.width && a.cursorY === b.cursorY && a.alternate === b.alternate &&
    a.dead === b.dead;
}

/** Reads a pane's state alone (one small round trip). */
export async function readState(tmux: Tmux, paneId: string, signal?: AbortSignal) {
  const [text] = await tmux.run(
    [["display-message", "-p", "-t", paneTarget(paneId), STATE_FORMAT]],
    {
      signal,
    },
  );
  return parseState(paneId, text);
}
