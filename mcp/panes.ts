/**
 * Pane helpers every pane tool shares: the default pane, budgets for text
 * read from a pane, and the input-safety refusals (CONTRACT §4).
 *
 * @module
 */

import { getPaneWith, isNoServer, type PaneView } from "../tmux/views.ts";
import { TmuxError } from "../tmux/errors.ts";
import { budgetLines, type Content } from "./budget.ts";
import { ToolError } from "./errors.ts";
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
  let output: string;
  try {
    output = await ctx.tmux.one(["list-sessions", "-F", "#{pane_id}"]);
  } catch (error) {
    if (isNoServer(error)) throw noSessions(ctx);
    throw error;
  }
  const first = output.split("\n")[0];
  if (!first) throw noSessions(ctx);
  return first;
}

function noSessions(ctx: ToolContext): TmuxError {
  return new TmuxError(
    "no_server",
    `no tmux server on ${ctx.tmux.label} has a session to read`,
    "Name a pane with paneId, or create a session first (create_session).",
  );
}

/** The verified caller pane id (for `isCaller` in views), or null. */
export function callerPane(ctx: ToolContext): Promise<string | null> {
  return ctx.caller.verifiedPane(ctx.tmux);
}

/** Budgets lines read from a pane with the call's `maxLines` or the server default. */
export function budget(
  ctx: ToolContext,
  lines: readonly string[],
  maxLines?: number | null,
): Content {
  return budgetLines(lines, maxLines ?? ctx.settings.maxLines, ctx.settings.maxBytes);
}

/** Splits `capture-pane -p` output into lines (tmux ends every line with a newline). */
export function splitCapture(output: string): string[] {
  return output === "" ? [] : output.split("\n");
}

/**
 * Refuses input into a pane that is dead, in a mode (copy mode), or the
 * caller's own; resolves with the pane's view when input is safe.
 */
export async function checkInputTarget(ctx: ToolContext, paneId: string): Promise<PaneView> {
  return (await checkInputTargetWith(ctx, paneId, []))[0];
}

/**
 * {@link checkInputTarget}, running the reads `also` in the same round trip;
 * resolves with the pane and their outputs.
 */
export async function checkInputTargetWith(
  ctx: ToolContext,
  paneId: string,
  also: string[][],
): Promise<[PaneView, string[]]> {
  const guarded = await ctx.caller.guardedPane(ctx.tmux);
  if (guarded === paneId) {
    throw new ToolError(
      `pane ${paneId} is the pane this server runs in; typing into it would reach the agent's own terminal`,
      "Use another pane (create_window or split_window make one).",
    );
  }
  const [pane, outputs] = await getPaneWith(ctx.tmux, paneId, await callerPane(ctx), also);
  if (pane.dead) {
    throw new ToolError(
      `pane ${paneId} is dead (its program exited)`,
      "Restart it with respawn_pane, or use another pane.",
    );
  }
  if (pane.inMode) {
    throw new ToolError(
      `pane ${paneId} is in a mode (such as copy mode), so keys would go to the mode, not the program`,
      "Leave the mode first (press q in that pane), then try again, or use another pane.",
    );
  }
  return [pane, outputs];
}

/** Drops the empty rows below the last printed one: they are screen, not output. */
export function trimTrailingBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  return lines.slice(0, end);
}
