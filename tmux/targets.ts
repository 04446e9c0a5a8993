/**
 * tmux target strings for ids and names. Ids are checked for shape by the
 * tool schemas; names are matched exactly (`=name`) so a session called
 * `dev` never resolves to `devtools` by prefix.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

// No leading zeros: tmux reads %01 as %1, so a padded id would be a second
// spelling of a pane that checks comparing ids as text (the caller guard, the
// busy mark) would not recognise.
/** Shape of a pane id. */
export const PANE_ID = /^%(?:0|[1-9]\d*)$/;
/** Shape of a window id. */
export const WINDOW_ID = /^@(?:0|[1-9]\d*)$/;
/** Shape of a session id. */
export const SESSION_ID = /^\$(?:0|[1-9]\d*)$/;

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
  if (session.startsWith("$")) {
    throw new TmuxError(
      "no_target",
      "tmux has no such session (a value starting with $ is a session id: $ and digits without leading zeros)",
      "List what exists with list_sessions and use an id or a name from there.",
    );
  }
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

/**
 * Target for a window's link in one session: a window linked into several
 * sessions has a link in each, and a bare window id lets tmux pick which.
 */
export function linkTarget(session: string, windowId: string): string {
  return `${sessionWindowTarget(session)}${windowTarget(windowId)}`;
}
