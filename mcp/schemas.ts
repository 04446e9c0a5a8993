/**
 * Schema pieces shared by the tools: ids, budgets, and the views of
 * CONTRACT §5 as output schemas.
 *
 * @module
 */

import { z } from "zod";
import { LABEL_MAX_BYTES } from "../tmux/format.ts";
import { CUT_MARK } from "../tmux/utf8.ts";
import { PANE_ID, SESSION_ID, WINDOW_ID } from "../tmux/targets.ts";

/** A pane id such as `%3`. */
export const paneId = z.string().regex(PANE_ID, {
  error: "must be a pane id such as %3 (no leading zeros)",
})
  .describe("A pane id such as %3, as list_panes reports it.");

/** A pane id, or omitted/null for this server's own pane or else the first session's active pane. */
export const optionalPaneId = paneId.nullish().describe(
  "A pane id such as %3. Omit for this server's own pane, or else the active pane of the first session.",
);

/** A window id such as `@2`. */
export const windowId = z.string().regex(WINDOW_ID, {
  error: "must be a window id such as @2 (no leading zeros)",
})
  .describe("A window id such as @2, as list_windows reports it.");

/** A session id such as `$1`. */
export const sessionId = z.string().regex(SESSION_ID, {
  error: "must be a session id such as $1 (no leading zeros)",
});

const SESSION_ID_FIRST =
  "A value starting with $ is read as an id, never as a name (as tmux does).";

/** A session id (`$1`) or an exact session name. */
export const session = z.string().min(1).max(256)
  .describe(`A session id such as $1, or a session's exact name. ${SESSION_ID_FIRST}`);

/** An optional {@link session}; `what` says what it selects and what omitting it means. */
export function optionalSession(what: string) {
  return session.nullish().describe(`${what} ${SESSION_ID_FIRST}`);
}

/** The `maxLines` argument of text-returning tools. */
export const maxLines = z.int().min(1).max(100_000).nullish().describe(
  "Maximum returned lines, newest kept. Omit for the server default (--max-lines, 500 unless set).",
);

/**
 * A wait timeout in seconds, clamped to the server's wait ceiling. No upper
 * bound: CONTRACT §4 says a larger timeout is clamped, never refused.
 */
export const timeoutSeconds = z.number().min(0).nullish().describe(
  "Seconds to wait (any non-negative number). Omit for the ceiling (--wait-max-seconds, 30 unless set); " +
    "larger values are clamped to it and the result reports the effective timeout.",
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

/** CONTRACT §5 PaneView. */
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

/** CONTRACT §5 WindowView. */
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

/** CONTRACT §5 SessionView. */
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

/** CONTRACT §5 Action. */
export const action = z.object({
  changed: z.boolean(),
  paneId: z.string().optional(),
  windowId: z.string().optional(),
  sessionId: z.string().optional(),
});
