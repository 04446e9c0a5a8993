/**
 * tmux target strings for ids and names. Ids are checked for shape by the
 * tool schemas; names are matched exactly (`=name`) so a session called
 * `dev` never resolves to `devtools` by prefix.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** Shape of a pane id. */
export const PANE_ID = /^%\d+$/;
/** Shape of a window id. */
export const WINDOW_ID = /^@\d+$/;
/** Shape of a session id. */
export const SESSION_ID = /^\$\d+$/;

/** Target for a pane id. */
export function paneTarget(paneId: string): string {
  return paneId;
}

/** Target for a window id. */
export function windowTarget(windowId: string): string {
  return windowId;
}

/**
 * Target for a session given by id (`$N`) or by exact name. tmux stores ':'
 * and '.' in session names as '_', so a name with either cannot exist, and
 * its target would be read as a window or pane of another session: refused.
 */
export function sessionTarget(session: string): string {
  if (SESSION_ID.test(session)) return session;
  if (/[:.]/.test(session)) {
    throw new TmuxError(
      "no_target",
      "tmux has no such session (session names never contain ':' or '.'; tmux stores them as '_')",
      "List what exists with list_sessions and use an id or a name from there.",
    );
  }
  return `=${session}`;
}

/** Target for "a window in this session" (for commands that take a window target). */
export function sessionWindowTarget(session: string): string {
  return `${sessionTarget(session)}:`;
}
