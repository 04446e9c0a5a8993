/**
 * The shared views of tmux objects (docs/tools.md#shared-result-views) and the queries that read
 * them. One format per view; every tool that shows a pane, window or session
 * reads it through here.
 *
 * @module
 */

import { isOwnClientName } from "./children.ts";
import type { Tmux } from "./client.ts";
import { noSuch, TmuxError } from "./errors.ts";
import {
  type Field,
  flag,
  formatOf,
  int,
  label,
  optionalInt,
  optionalLabel,
  optionalText,
  parseRows,
  type Row,
  type Schema,
  text,
} from "./format.ts";
import {
  paneTarget,
  SESSION_ID,
  sessionTarget,
  sessionWindowTarget,
  windowTarget,
} from "./targets.ts";

const PANE = {
  paneId: text("pane_id"),
  windowId: text("window_id"),
  sessionId: text("session_id"),
  index: int("pane_index"),
  width: int("pane_width"),
  height: int("pane_height"),
  title: optionalLabel("pane_title"),
  active: flag("pane_active"),
  dead: flag("pane_dead"),
  zoomed: flag("window_zoomed_flag"),
  // pane_in_mode counts the modes stacked on the pane (2: view mode over copy mode).
  inMode: flag("#{?pane_in_mode,1,0}"),
  currentCommand: optionalLabel("pane_current_command"),
  currentPath: optionalText("pane_current_path"),
  pid: optionalInt("pane_pid"),
  historySize: optionalInt("history_size"),
  historyLimit: optionalInt("history_limit"),
};

const WINDOW = {
  windowId: text("window_id"),
  sessionId: text("session_id"),
  index: int("window_index"),
  name: label("window_name"),
  active: flag("window_active"),
  width: int("window_width"),
  height: int("window_height"),
  layout: text("window_layout"),
  zoomed: flag("window_zoomed_flag"),
  panes: int("window_panes"),
  // In a window's context `pane_id` is its active pane.
  activePaneId: text("pane_id"),
};

/**
 * The clients attached to a session, not counting this server's own control
 * clients (tmux's `session_attached` counts them, so a session nobody looks at
 * would read as attached). tmux names a client after its terminal, or
 * `client-<pid>` when it has none (server-client.c), as every client this
 * server starts (on pipes) has; `session_attached_list` joins the names with
 * commas.
 */
function attachedClients(): Field<number> {
  return {
    variable: "session_attached_list",
    parse: (raw) => raw.split(",").filter((name) => name !== "" && !isOwnClientName(name)).length,
  };
}

const SESSION = {
  sessionId: text("session_id"),
  name: text("session_name"),
  windows: int("session_windows"),
  attached: attachedClients(),
  created: int("session_created"),
  activeWindowId: text("window_id"),
  activePaneId: text("pane_id"),
};

/** A pane as every tool shows it (the 17 fields of docs/tools.md#paneview). */
export type PaneView = Row<typeof PANE> & { isCaller: boolean };
/** A window as every tool shows it. */
export type WindowView = Row<typeof WINDOW>;
/** A session as every tool shows it. */
export type SessionView = Row<typeof SESSION>;

/** The format that prints a {@link PaneView} (without `isCaller`). */
export const PANE_FORMAT = formatOf(PANE);
/** The format that prints a {@link WindowView}. */
export const WINDOW_FORMAT = formatOf(WINDOW);
/** The format that prints a {@link SessionView}. */
export const SESSION_FORMAT = formatOf(SESSION);

/** Parses `list-panes`/`display-message` output printed with {@link PANE_FORMAT}. */
export function parsePanes(output: string, callerPane: string | null): PaneView[] {
  return parseRows(PANE, output).map((row) => ({ ...row, isCaller: row.paneId === callerPane }));
}

/** Parses output printed with {@link WINDOW_FORMAT}. */
export function parseWindows(output: string): WindowView[] {
  return parseRows(WINDOW, output);
}

/** Parses output printed with {@link SESSION_FORMAT}. */
export function parseSessions(output: string): SessionView[] {
  return parseRows(SESSION, output);
}

/** Which panes to list. */
export type PaneScope =
  | { kind: "all" }
  | { kind: "session"; session: string }
  | { kind: "window"; windowId: string }
  | { kind: "pane"; paneId: string };

/** The `list-panes` command for `scope`, printing `format` (a {@link PaneView} unless given). */
export function listPanesCommand(scope: PaneScope, format = PANE_FORMAT): string[] {
  switch (scope.kind) {
    case "all":
      return ["list-panes", "-a", "-F", format];
    case "session":
      // list-panes -t takes a window: a bare name would be tried as a window
      // of tmux's current session first (window "1" for a session named "1",
      // window @2 for one named "@2"); "=name:" can only be the session.
      return ["list-panes", "-s", "-t", sessionWindowTarget(scope.session), "-F", format];
    case "window":
      return ["list-panes", "-t", windowTarget(scope.windowId), "-F", format];
    case "pane":
      // list-panes -t %N lists the whole window; the filter keeps one pane.
      return [
        "list-panes",
        "-t",
        paneTarget(scope.paneId),
        "-f",
        `#{==:#{pane_id},${scope.paneId}}`,
        "-F",
        format,
      ];
  }
}

/**
 * The command that prints `format` for `paneId` alone, and nothing (no error)
 * when the pane does not exist. Not `display-message`: tmux 3.3a runs its
 * template, at every level of nesting, through strftime(3), where a pane id
 * inside the format (`%12`) reads as a field width.
 */
export function paneLineCommand(paneId: string, format: string): string[] {
  return ["list-panes", "-a", "-f", `#{==:#{pane_id},${paneId}}`, "-F", format];
}

/** The `list-windows` command for every session, or one. */
export function listWindowsCommand(session?: string): string[] {
  return session === undefined
    ? ["list-windows", "-a", "-F", WINDOW_FORMAT]
    : ["list-windows", "-t", sessionTarget(session), "-F", WINDOW_FORMAT];
}

/** The `list-sessions` command, optionally filtered to one session id. */
export function listSessionsCommand(sessionId?: string): string[] {
  const filter = sessionId === undefined ? [] : ["-f", `#{==:#{session_id},${sessionId}}`];
  return ["list-sessions", ...filter, "-F", SESSION_FORMAT];
}

/**
 * The command that prints one window's view. (`display-message -t` with a
 * target that does not exist prints empty fields and succeeds, so lookups
 * always go through a list command with a filter.)
 */
export function windowViewCommand(windowId: string): string[] {
  return ["list-windows", "-a", "-f", `#{==:#{window_id},${windowId}}`, "-F", WINDOW_FORMAT];
}

/** The session `ref` (an id `$N` or an exact name) among `sessions`, or a no_target error. */
export function findSession(sessions: SessionView[], ref: string): SessionView {
  const found = sessions.find((s) => (SESSION_ID.test(ref) ? s.sessionId === ref : s.name === ref));
  if (!found) throw noSuch("session");
  return found;
}

/** Lists panes in `scope`; a missing or empty server reads as no panes when `scope` is all. */
export async function listPanes(
  tmux: Tmux,
  scope: PaneScope,
  callerPane: string | null,
): Promise<PaneView[]> {
  try {
    return parsePanes(await tmux.one(listPanesCommand(scope)), callerPane);
  } catch (error) {
    if (scope.kind === "all" && isNothingToList(error)) return [];
    throw error;
  }
}

/**
 * Lists only `fields` of the panes in `scope`, printed with `format`
 * ({@link formatOf}`(fields)`): for a tool that needs less than a
 * {@link PaneView}, as tmux reads each pane's command and directory from the
 * system for a full one. Empty or missing servers read as in {@link listPanes}.
 */
export async function listPaneFields<S extends Schema>(
  tmux: Tmux,
  scope: PaneScope,
  fields: S,
  format: string,
): Promise<Row<S>[]> {
  try {
    return parseRows(fields, await tmux.one(listPanesCommand(scope, format)));
  } catch (error) {
    if (scope.kind === "all" && isNothingToList(error)) return [];
    throw error;
  }
}

/** Reads one pane; a pane that does not exist is a no_target error. */
export async function getPane(tmux: Tmux, paneId: string, callerPane: string | null) {
  return (await getPaneWith(tmux, paneId, callerPane, []))[0];
}

/**
 * Reads one pane and runs `also` after it in the same round trip; resolves
 * with the pane and the outputs of `also`. A pane that does not exist is a
 * no_target error (and `also` does not run).
 */
export async function getPaneWith(
  tmux: Tmux,
  paneId: string,
  callerPane: string | null,
  also: string[][],
): Promise<[PaneView, string[]]> {
  const [listing, ...outputs] = await tmux.run([
    listPanesCommand({ kind: "pane", paneId }),
    ...also,
  ]);
  const [pane] = parsePanes(listing, callerPane);
  if (!pane) throw noSuch("pane");
  return [pane, outputs];
}

/**
 * True for the errors of a server-wide listing (`list-windows -a`,
 * `list-panes -a`) that mean there is nothing to list: no server on the
 * socket, or a server with no sessions (tmux then has no "current" target).
 */
export function isNothingToList(error: unknown): boolean {
  return error instanceof TmuxError && (error.kind === "no_server" || error.kind === "no_session");
}
