/**
 * The option scopes shared by show_option and show_hooks, the pane each is
 * read from, and the tmux flags that select each.
 *
 * @module
 */

import { z } from "zod";
import { getPaneWith } from "../tmux/views.ts";
import { resolvePane } from "./panes.ts";
import type { ToolContext } from "./registry.ts";

/** An option or hook scope. */
export const scopeSchema = z.enum(["Server", "Session", "Window", "Pane"]);

/** A scope value. */
export type Scope = z.infer<typeof scopeSchema>;

/**
 * Runs the show command `build` makes from the flags that select `scope`
 * (`serverFlags` for Server), read from `paneId`, else the default pane;
 * Server scope without paneId needs no pane, so it also works on a server
 * without sessions. A pane that does not exist is a no_target error.
 */
export async function showInScope(
  ctx: ToolContext,
  scope: Scope,
  paneId: string | null | undefined,
  serverFlags: string[],
  build: (scopeFlags: string[]) => string[],
): Promise<string> {
  if (scope === "Server" && !paneId) return await ctx.tmux.one(build(serverFlags));
  const pane = await resolvePane(ctx, paneId);
  // The pane is read first in the same round trip: show commands read a
  // missing target as empty.
  const flags = scope === "Server" ? serverFlags : scopeArgs(scope, pane);
  const [, [output]] = await getPaneWith(ctx.tmux, pane, null, [build(flags)]);
  return output;
}

/** The `show-options`/`show-hooks` flags that select `scope` other than Server for `paneId`. */
function scopeArgs(scope: Exclude<Scope, "Server">, paneId: string): string[] {
  switch (scope) {
    case "Session":
      return ["-t", paneId];
    case "Window":
      return ["-w", "-t", paneId];
    case "Pane":
      return ["-p", "-t", paneId];
  }
}
