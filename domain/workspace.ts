/**
 * What the tools that create and arrange sessions, windows and panes share:
 * argument schemas for names, directories and environments, capability
 * records, reading the views tmux prints for a new object, confirming a start
 * directory, and keeping argument values out of error messages. Names,
 * titles and directories are escaped: tmux format-expands them
 * (docs/tmux-quirks.md#values-tmux-format-expands).
 *
 * @module
 */

import { z } from "zod";
import { isGone, TmuxError } from "../tmux/errors.ts";
import { escapeFormat, FormatError, splitRecords as splitRecordTexts } from "../tmux/format.ts";
import { getPane, type PaneView } from "../tmux/views.ts";
import { ToolError } from "../core/errors.ts";
import { renderText } from "../core/render_text.ts";
import type { ToolContext } from "../core/registry.ts";

/** A name or title: `min`–`max` characters without NUL (checked here, not in the listed schema). */
export function nameText(max = 256, min = 1) {
  return z.string().min(min).max(max).refine((text) => !text.includes("\0"), {
    error: "must not contain NUL characters",
  });
}

/** Why a new session name may not start with `$` (see {@link sessionName}). */
export const DOLLAR_SESSION_NAME =
  "must not start with $ (tmux reads a session starting with $ as a session id)";

/**
 * A new session name. tmux reads a session target that starts with `$` as a
 * session id, even in the exact form `=name`, so a session named `$0` would
 * never be found by its name again: `session: "$0"` reaches session id $0,
 * another session (tmux 3.3a, measured).
 */
export function sessionName() {
  return nameText().refine((name) => !name.startsWith("$"), { error: DOLLAR_SESSION_NAME });
}

/** An absolute directory for a new pane's process. */
export const startDirectory = z.string().min(1).max(4096)
  .refine((path) => path.startsWith("/") && !path.includes("\0"), {
    error: "must be an absolute path (starting with /)",
  })
  .nullish()
  .describe("Absolute path.");

/** The result field saying whether a new process's directory read back as the one asked for. */
export const startDirectoryConfirmed = z.boolean().optional().describe(
  "With startDirectory: whether the new process's directory read back as exactly that path.",
);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Variables for the new process only; names are checked, values never echoed. */
export const environment = z.record(z.string(), z.string())
  .superRefine((env, ctx) => {
    const entries = Object.entries(env);
    // Issues carry no path below `environment`: a key in a path would echo it.
    const problem = entries.length > 64
      ? "must have at most 64 variables"
      : entries.some(([name]) => !ENV_NAME.test(name))
      ? "has a name that is not letters, digits and _ (not starting with a digit)"
      : entries.some(([, value]) => value.includes("\0"))
      ? "has a value with a NUL character"
      : entries.some(([, value]) => value.length > 32_768)
      ? "has a value longer than 32768 characters"
      : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .nullish()
  .describe("For the new shell only (never logged).");

/** The `-e NAME=value` arguments for `env`. */
export function environmentArgs(env: Record<string, string> | null | undefined): string[] {
  return Object.entries(env ?? {}).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
}

/** The `-c dir` arguments, escaped because tmux expands the directory as a format. */
export function directoryArgs(dir: string | null | undefined): string[] {
  return dir ? ["-c", escapeFormat(dir)] : [];
}

/**
 * The `-c` arguments that start a pane split from `paneId` where that pane
 * is now, as a person's `-c "#{pane_current_path}"` binding would. Not that
 * format alone: tmux (3.3a, 3.5a) expands `-c` for the target's session, so
 * it names the directory of the session's active pane. Looping over the
 * session's panes picks the split one in the same round trip (a window
 * linked twice into that session would name it twice, and tmux would fall
 * back to the home directory). An empty path leaves tmux's own default.
 */
export function splitDirectoryArgs(paneId: string): string[] {
  return ["-c", `#{W:#{P:#{?#{==:#{pane_id},${paneId}},#{pane_current_path},}}}`];
}

/**
 * The `-c` arguments for a new window: its session's active pane's current
 * directory (the format is expanded for the target session), rather than
 * the directory this server was started in.
 */
export const SESSION_DIRECTORY_ARGS = ["-c", "#{pane_current_path}"];

/**
 * Splits the output of a `-P -F` format made of several view formats
 * (e.g. `WINDOW_FORMAT + PANE_FORMAT`) into one record per view, in order.
 */
export function splitRecords(output: string, count: number): string[] {
  const records = splitRecordTexts(output);
  if (records.length !== count) {
    throw new FormatError(
      `tmux printed ${records.length} records for the new object, expected ${count}`,
    );
  }
  return records;
}

/**
 * The error for a pane whose new process ended before the call could read it
 * back: without remain-on-exit tmux closes such a pane at once, and its
 * window and session with it when it was their last. tmux reports the
 * failure only as a missing target in the next command, which read like a
 * wrong id given by the caller.
 */
export function exitedAtOnce(): ToolError {
  return new ToolError(
    "the new process exited as soon as it started, so tmux closed its pane (and its window and session " +
      "when that was their last pane); nothing of it is left",
    "Check the environment given (PATH, SHELL) and the tmux options default-command and default-shell, " +
      "then try again.",
  );
}

/**
 * `error`, or {@link exitedAtOnce} when it says the object just created is
 * gone: the step after a creation reads a vanished object as no_target.
 */
export function exitedIfGone(error: unknown): unknown {
  return isGone(error) ? exitedAtOnce() : error;
}

/** How long a new process may take to reach its start directory before we judge it. */
const SETTLE_MS = 2_000;

function samePath(a: string, b: string): boolean {
  return tidyPath(a) === tidyPath(b);
}

/**
 * An absolute path with its spelling tidied as the kernel reads it: `//`,
 * `/./` and a trailing `/` dropped, `..` taken back a step. Symbolic links
 * are not followed (the server may not read the filesystem), so a `..` after
 * one can tidy to a path the process is not in; that only leaves a directory
 * unconfirmed, never confirms a wrong one (the read-back path is the real one).
 */
function tidyPath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/**
 * When a start directory was requested, reads `pane` again until its
 * process has started (the fork of tmux has become the configured program)
 * and says whether its working directory is `requested`. The server may not
 * read files, so it cannot check the directory itself; tmux 3.3a silently
 * starts the process in the tmux server's own directory when the requested
 * one is missing or not enterable.
 * A symbolic link in `requested` also reads back as its target, so false
 * means "not confirmed", which the result says in those words.
 */
export async function confirmDirectory(
  ctx: ToolContext,
  pane: PaneView,
  requested: string | null | undefined,
  callerPane: string | null,
): Promise<{ pane: PaneView; startDirectoryConfirmed?: boolean }> {
  if (!requested) return { pane };
  const deadline = Date.now() + SETTLE_MS;
  let current = pane;
  while (true) {
    if (current.currentPath !== null && samePath(current.currentPath, requested)) {
      return { pane: current, startDirectoryConfirmed: true };
    }
    const started = current.currentPath !== null && current.currentCommand !== null &&
      current.currentCommand !== "tmux";
    if (started || current.dead || Date.now() >= deadline || ctx.signal.aborted) {
      return { pane: current, startDirectoryConfirmed: false };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
    try {
      current = await getPane(ctx.tmux, pane.paneId, callerPane);
    } catch (error) {
      throw exitedIfGone(error);
    }
  }
}

/**
 * The text of a result that holds a newly started process's pane: its
 * compact lines, and a note when the start directory asked for did not read back.
 */
export function renderStarted(
  result: { pane: { currentPath: string | null }; startDirectoryConfirmed?: boolean },
): string {
  const text = renderText(result);
  if (result.startDirectoryConfirmed !== false) return text;
  return `${text}\nNote: the new process reports its directory as ${
    result.pane.currentPath ?? "unknown"
  }, not the requested startDirectory. tmux starts it elsewhere without an error when the directory ` +
    "does not exist or cannot be entered (a symbolic link also reads back as its target).";
}

/**
 * Runs `work`; a tmux failure comes back without any of `values` in its text
 * (tmux quotes names in messages such as "duplicate session: NAME"), and a
 * failure whose text matches a key of `meanings` becomes that ToolError.
 */
export async function withoutValues<T>(
  values: (string | null | undefined)[],
  work: () => Promise<T>,
  meanings: [RegExp, Error][] = [],
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof TmuxError) || error.kind !== "failed") throw error;
    for (const [pattern, meaning] of meanings) if (pattern.test(error.message)) throw meaning;
    // tmux puts the value last ("what: value"): cut the message where a value
    // starts. A short value may also occur inside words, so look for its last
    // occurrence; a longer one from its first.
    let cut = error.message.length;
    for (const value of values.flatMap((v) => (v ? [v, escapeFormat(v)] : []))) {
      const at = value.length >= 4
        ? error.message.indexOf(value)
        : error.message.lastIndexOf(value);
      if (at >= 0) cut = Math.min(cut, at);
    }
    if (cut === error.message.length) throw error;
    const message = `${error.message.slice(0, cut).replace(/[\s:]+$/, "")} (value withheld)`;
    throw new TmuxError(error.kind, message, error.hint);
  }
}

/** The error for a call that names nothing to do. */
export function nothingToDo(what: string): ToolError {
  return new ToolError(`nothing to do: give ${what}`, "Call again with at least one of them.");
}
