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
  | "cancelled"
  /** The socket path can never hold a server (no such directory, a directory, no access). */
  | "bad_socket";

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
  const unusable = unusableSocket(text, socketLabel);
  if (unusable) return unusable;
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
  // Most commands say "can't find session: NAME"; the environment and option
  // commands say "no such session: NAME" for the same missing target.
  const missing = text.match(/(?:can't find|no such) (session|window|pane|client)\b/i);
  if (missing) return noSuch(missing[1].toLowerCase());
  // tmux puts the offending value after a colon ("invalid option: x"); keep
  // only the clause before it so no rejected argument is echoed back.
  const clause = text.split(": ")[0].trim();
  return new TmuxError(
    "failed",
    `tmux reported: ${clause || "an error with no message"}`,
    "Check the ids and values and try again.",
  );
}

/**
 * The error for a socket path tmux can never use (its directory is missing,
 * it is a directory, access is denied), or null when `text` says something
 * else. "No such file" when connecting and "Connection refused" only mean no
 * server listens there now, which creating a session cures.
 */
export function unusableSocket(text: string, socketLabel: string): TmuxError | null {
  const directory = unusableSocketDirectory(text, socketLabel);
  if (directory) return directory;
  const match = text.match(/^error (creating|connecting to) .* \(([^()]*)\)$/i);
  if (!match) return null;
  const [, doing, reason] = match;
  if (doing === "connecting to" && /no such file|connection refused/i.test(reason)) return null;
  return new TmuxError(
    "bad_socket",
    `tmux cannot use ${socketLabel} (${reason.toLowerCase()})`,
    "Point --socket-path at a socket file in a directory that exists and that you may write to, " +
      "or use --socket to name a socket in tmux's own directory.",
  );
}

/**
 * The error for a `-L` socket whose directory (`${TMUX_TMPDIR:-/tmp}/tmux-UID`)
 * tmux refuses, or null. tmux checks that directory before any command, so
 * no session can ever start there: the cure is the directory or TMUX_TMPDIR,
 * never the ids and values of a call.
 */
function unusableSocketDirectory(text: string, socketLabel: string): TmuxError | null {
  const match = text.match(/^couldn't (?:create|read) directory (.+) \(([^()]*)\)$/) ??
    text.match(/^(.+) (is not a directory)$/) ??
    text.match(/^directory (.+) (has unsafe permissions)$/);
  if (!match) return null;
  const [, dir, problem] = match;
  const why = problem.startsWith("has ")
    ? "has unsafe permissions: tmux wants it owned by you and closed to others"
    : problem.startsWith("is ")
    ? problem
    : `cannot be used (${problem.toLowerCase()})`;
  return new TmuxError(
    "bad_socket",
    `tmux cannot use ${socketLabel}: its directory ${dir} ${why}`,
    "tmux keeps named sockets in $TMUX_TMPDIR/tmux-UID (/tmp/tmux-UID when TMUX_TMPDIR is unset): " +
      "make that a directory of yours with chmod 700, point TMUX_TMPDIR at a directory you own, " +
      "or choose a socket file with --socket-path.",
  );
}

/**
 * The error for a server that runs with no sessions, where a session was
 * needed; `consequence` and `hint` say more when the caller knows more.
 */
export function noSessionError(
  socketLabel: string,
  consequence = "",
  hint = "Create a session first (create_session).",
): TmuxError {
  return new TmuxError(
    "no_session",
    `the tmux server on ${socketLabel} has no sessions${consequence}`,
    hint,
  );
}

/** The error for a session, window, pane or client that tmux does not have. */
export function noSuch(what: string): TmuxError {
  return new TmuxError(
    "no_target",
    `tmux has no such ${what}`,
    "List what exists with list_sessions, list_windows or list_panes and use an id from there.",
  );
}

/** True for the error of a socket with no tmux server behind it. */
export function isNoServer(error: unknown): error is TmuxError {
  return error instanceof TmuxError && error.kind === "no_server";
}

/** True for an error saying the target, or the whole tmux server, is gone. */
export function isGone(error: unknown): boolean {
  return error instanceof TmuxError && (error.kind === "no_target" || error.kind === "no_server");
}
