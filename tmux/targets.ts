/**
 * tmux target strings for ids and names. Ids are checked for shape by the
 * tool schemas; names are matched exactly (`=name`) so a session called
 * `dev` never resolves to `devtools` by prefix.
 *
 * @module
 */

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

/** Target for a session given by id (`$N`) or by exact name. */
export function sessionTarget(session: string): string {
  return SESSION_ID.test(session) ? session : `=${session}`;
}

/** Target for "a window in this session" (for commands that take a window target). */
export function sessionWindowTarget(session: string): string {
  return `${sessionTarget(session)}:`;
}
