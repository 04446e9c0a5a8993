/**
 * Pane helpers every pane tool shares: the default pane and budgets for text
 * read from a pane.
 *
 * @module
 */

import { noSessionError } from "../tmux/errors.ts";
import { budgetLines, type Content, type LineSource } from "./budget.ts";
import type { ToolContext } from "./registry.ts";

/**
 * The pane a reading tool acts on: the one given, else this server's own pane
 * when verified on the driven server, else the active pane of the first session.
 */
export async function resolvePane(
  ctx: ToolContext,
  paneId: string | null | undefined,
): Promise<string> {
  if (paneId) return paneId;
  const own = await ctx.caller.verifiedPane(ctx.tmux);
  if (own) return own;
  // A missing server surfaces as its own no_server error from list-sessions.
  const output = await ctx.tmux.one(["list-sessions", "-F", "#{pane_id}"]);
  const first = output.split("\n")[0];
  if (!first) {
    throw noSessionError(
      ctx.tmux.label,
      ", so there is no pane to read",
      "Name a pane with paneId, or create a session first (create_session).",
    );
  }
  return first;
}

/** The verified caller pane id (for `isCaller` in views), or null. */
export function callerPane(ctx: ToolContext): Promise<string | null> {
  return ctx.caller.verifiedPane(ctx.tmux);
}

/**
 * Budgets lines read from a pane with the call's `maxLines` or the server
 * default; `source`: what is known of the text they came from (see budgetLines).
 */
export function budget(
  ctx: ToolContext,
  lines: readonly string[],
  maxLines?: number | null,
  source?: LineSource,
): Content {
  return budgetLines(lines, maxLines ?? ctx.settings.maxLines, ctx.settings.maxBytes, source);
}

/** Splits `capture-pane -p` output into lines (tmux ends every line with a newline). */
export function splitCapture(output: string): string[] {
  return output === "" ? [] : output.split("\n");
}

/** The printed lines of `capture-pane -p` output, without the blank screen rows below them. */
export function captureLines(output: string): string[] {
  return trimTrailingBlank(splitCapture(output));
}

/** `line` without the spaces it ends with, as `capture-pane -p` trims a row (`-N` and `-J` keep them). */
export function trimRow(line: string): string {
  // A loop, not / +$/: V8 retries that from every space of a run that does
  // not end the line, quadratic in the run.
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 32) end--;
  return line.slice(0, end);
}

/** Drops the empty rows below the last printed one: they are screen, not output. */
export function trimTrailingBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  return end === lines.length ? lines : lines.slice(0, end);
}

/** How to read a window's panes in parts when listing them all exceeds --max-bytes. */
export const PANES_BY_POSITION = "find_pane_by_position {windowId, position} reads one pane at a " +
  "time (list_windows gives each window's pane count; call_read_tools_batch makes up to 16 such " +
  "reads in one request)";
