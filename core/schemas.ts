/**
 * Schema pieces shared by the tools: ids, budgets, and the shared views
 * (docs/tools.md#shared-result-views) as output schemas.
 *
 * @module
 */

import { z } from "zod";
import { LABEL_MAX_BYTES } from "../tmux/format.ts";
import { CUT_MARK } from "../tmux/utf8.ts";
import { PANE_ID, SESSION_ID, WINDOW_ID } from "../tmux/targets.ts";

/**
 * A string checked against `pattern` on the server only: an id's regex in
 * every listed schema costs bytes the model reads, and says less than `%3`.
 */
function idOf(pattern: RegExp, error: string) {
  return z.string().refine((value) => pattern.test(value), { error });
}

/** A pane id such as `%3`. */
export const paneId = idOf(PANE_ID, "must be a pane id such as %3 (no leading zeros)");

/** A pane id, or omitted/null for this server's own pane or else the first session's active pane. */
export const optionalPaneId = paneId.nullish().describe(
  "Pane id (%3); default: your own, else the first session's active pane.",
);

/** A window id such as `@2`. */
export const windowId = idOf(WINDOW_ID, "must be a window id such as @2 (no leading zeros)");

/** A session id such as `$1`. */
export const sessionId = z.string().regex(SESSION_ID, {
  error: "must be a session id such as $1 (no leading zeros)",
});

/** A session id (`$1`) or an exact session name. */
export const session = z.string().min(1).max(256)
  .describe("Session id ($1) or exact name.");

/** An optional {@link session}; `what` says what it selects and what omitting it means. */
export function optionalSession(what: string) {
  return session.nullish().describe(what);
}

/** The `maxLines` argument of text-returning tools. */
export const maxLines = z.int().min(1).max(100_000).nullish().describe(
  "Most lines, newest kept.",
);

/**
 * A wait timeout in seconds, clamped to the server's wait ceiling. No upper
 * bound: a larger timeout is clamped, never refused.
 */
export const timeoutSeconds = z.number().min(0).nullish().describe(
  "Default and ceiling: --wait-max-seconds.",
);

/** Budgeted text, newest lines kept. */
export const content = z.object({
  lines: z.array(z.string()),
  truncated: z.boolean().describe(
    "Lines or bytes were left out: to fit the budget, or (where the tool says so) because tmux had " +
      "already dropped output.",
  ),
  droppedLines: z.int().describe(
    "Lines left out, oldest first, to fit maxLines or --max-bytes; where the tool says so, at least " +
      "one more for output tmux had already dropped (tmux does not count those).",
  ),
  droppedBytes: z.int().describe("UTF-8 bytes left out, those of the lines left out included."),
});

/** How a view's label field says it may be cut (tmux/views.ts). */
function labelNote(what: string): string {
  return `At most ${LABEL_MAX_BYTES} UTF-8 bytes; a longer ${what} is cut and ends in ${CUT_MARK}.`;
}

/** A pane as every tool shows it (docs/tools.md#paneview). */
export const paneView = z.object({
  paneId: z.string(),
  windowId: z.string(),
  sessionId: z.string(),
  index: z.int().describe("tmux's pane index, counted from the pane-base-index option."),
  width: z.int(),
  height: z.int(),
  title: z.string().nullable().describe(labelNote("title")),
  active: z.boolean(),
  dead: z.boolean(),
  zoomed: z.boolean(),
  inMode: z.boolean(),
  currentCommand: z.string().nullable().describe(labelNote("command name")),
  currentPath: z.string().nullable(),
  pid: z.int().nullable(),
  historySize: z.int().nullable(),
  historyLimit: z.int().nullable(),
  isCaller: z.boolean(),
});

/** A window as every tool shows it (docs/tools.md#windowview). */
export const windowView = z.object({
  windowId: z.string(),
  sessionId: z.string(),
  index: z.int().describe("tmux's window index, counted from the base-index option."),
  name: z.string().describe(labelNote("name")),
  active: z.boolean(),
  width: z.int(),
  height: z.int(),
  layout: z.string(),
  zoomed: z.boolean(),
  panes: z.int(),
  activePaneId: z.string(),
});

/** A session as every tool shows it (docs/tools.md#sessionview). */
export const sessionView = z.object({
  sessionId: z.string(),
  name: z.string(),
  windows: z.int(),
  attached: z.int().describe(
    "Number of clients attached, not counting this server's own control-mode clients (tmux ls counts them).",
  ),
  created: z.int().describe("Creation time, seconds since the Unix epoch."),
  activeWindowId: z.string(),
  activePaneId: z.string(),
});

/** What a changing tool did (docs/tools.md#action). */
export const action = z.object({
  changed: z.boolean(),
  paneId: z.string().optional(),
  windowId: z.string().optional(),
  sessionId: z.string().optional(),
});
