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
 * Runs the show command `build` makes from the flags that select `scope`,
 * read from `paneId`, else the default pane. For Server, `serverFlags` lists
 * flag sets tried in order in one round trip, and the first non-empty output
 * wins (a user option's global value may sit in any of tmux's global
 * tables); Server scope without paneId needs no pane, so it also works on a
 * server without sessions. A pane that does not exist is a no_target error.
 */
export async function showInScope(
  ctx: ToolContext,
  scope: Scope,
  paneId: string | null | undefined,
  serverFlags: string[][],
  build: (scopeFlags: string[]) => string[],
): Promise<string> {
  const firstSet = (outputs: string[]) => outputs.find((output) => output !== "") ?? "";
  if (scope === "Server" && !paneId) {
    return firstSet(await ctx.tmux.run(serverFlags.map(build)));
  }
  const pane = await resolvePane(ctx, paneId);
  // The pane is read first in the same round trip: show commands read a
  // missing target as empty.
  const commands = scope === "Server" ? serverFlags.map(build) : [build(scopeArgs(scope, pane))];
  const [, outputs] = await getPaneWith(ctx.tmux, pane, null, commands);
  return firstSet(outputs);
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
