/**
 * Typed failures of talking to tmux. Each carries a message a user can act
 * on; the MCP layer turns them into `isError` results.
 *
 * @module
 */

/** What kind of failure a {@link TmuxError} reports. */
export type TmuxErrorKind =
  /** No tmux server listens on the driven socket. */
  | "no_server"
  /** The server runs but has no session, so nothing can be targeted. */
  | "no_session"
  /** The session, window or pane named does not exist. */
  | "no_target"
  /** The tmux executable could not be started. */
  | "missing"
  /** tmux did not answer within the time allowed. */
  | "timeout"
  /** tmux ran and reported an error. */
  | "failed"
  /** The caller cancelled the request. */
  | "cancelled";

/** A failure of a tmux command, with a sentence saying what to do next. */
export class TmuxError extends Error {
  /** Creates an error of `kind`; `hint` says what the user can do about it. */
  constructor(
    readonly kind: TmuxErrorKind,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "TmuxError";
  }
}

/** Classifies the stderr text of a failed tmux command into a typed error. */
export function classifyTmuxFailure(stderr: string, socketLabel: string): TmuxError {
  const text = stderr.trim().split("\n")[0] ?? "";
  if (/no server running|error connecting to|server exited unexpectedly/i.test(text)) {
    return new TmuxError(
      "no_server",
      `no tmux server on ${socketLabel}`,
      "Create a session first (create_session) or point the server at a running tmux with --socket/--socket-path.",
    );
  }
  // A command without -t resolves "the current" object from the best
  // session; only a server without sessions has none (tmux 3.3a, measured).
  if (/^no current (target|session|window|pane)$/i.test(text)) return noSessionError(socketLabel);
  const missing = text.match(/can't find (session|window|pane|client)/i);
  if (missing) {
    return new TmuxError(
      "no_target",
      `tmux has no such ${missing[1].toLowerCase()}`,
      "List what exists with list_sessions, list_windows or list_panes and use an id from there.",
    );
  }
  // tmux puts the offending value after a colon ("invalid option: x"); keep
  // only the clause before it so no rejected argument is echoed back.
  const clause = text.split(": ")[0].trim();
  return new TmuxError(
    "failed",
    `tmux reported: ${clause || "an error with no message"}`,
    "Check the ids and values and try again.",
  );
}

/** The error for a server that runs with no sessions, where a session was needed. */
function noSessionError(socketLabel: string): TmuxError {
  return new TmuxError(
    "no_session",
    `the tmux server on ${socketLabel} has no sessions`,
    "Create a session first (create_session).",
  );
}
