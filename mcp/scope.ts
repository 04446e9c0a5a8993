/**
 * The option scopes shared by show_option and show_hooks, the pane each is
 * read from, and the tmux flags that select each.
 *
 * @module
 */

import { z } from "zod";
import { listPanesCommand, noSuch } from "../tmux/views.ts";
import { resolvePane } from "./panes.ts";
import type { ToolContext } from "./registry.ts";

/** An option or hook scope. */
export const scopeSchema = z.enum(["Server", "Session", "Window", "Pane"]);

/** A scope value. */
export type Scope = z.infer<typeof scopeSchema>;

/**
 * The pane `scope` is read from: the one given, else the default pane; none
 * for Server scope without paneId, which needs no pane and so also works on
 * a server without sessions.
 */
export function scopePane(
  ctx: ToolContext,
  scope: Scope,
  paneId: string | null | undefined,
): Promise<string | null> {
  if (scope === "Server" && !paneId) return Promise.resolve(null);
  return resolvePane(ctx, paneId);
}

/**
 * Runs `command` (a show command whose scope flags {@link scopeArgs} made)
 * after checking that `paneId`, when there is one, exists, in one round trip;
 * resolves with the command's output.
 */
export async function readInScope(
  ctx: ToolContext,
  paneId: string | null,
  command: string[],
): Promise<string> {
  if (paneId === null) return await ctx.tmux.one(command);
  // The pane check runs first: show commands read a missing target as empty.
  const [exists, output] = await ctx.tmux.run([
    listPanesCommand({ kind: "pane", paneId }),
    command,
  ]);
  if (exists === "") throw noSuch("pane");
  return output;
}

/** The `show-options`/`show-hooks` flags that select `scope` for `paneId` (null: Server only). */
export function scopeArgs(scope: Scope, paneId: string | null, server: string[]): string[] {
  if (scope === "Server") return server;
  if (paneId === null) throw new Error(`unreachable: ${scope} scope without a pane`);
  switch (scope) {
    case "Session":
      return ["-t", paneId];
    case "Window":
      return ["-w", "-t", paneId];
    case "Pane":
      return ["-p", "-t", paneId];
  }
}
