/**
 * The option scopes shared by show_option and show_hooks, and the tmux flags
 * that select each.
 *
 * @module
 */

import { z } from "zod";

/** An option or hook scope. */
export const scopeSchema = z.enum(["Server", "Session", "Window", "Pane"]);

/** A scope value. */
export type Scope = z.infer<typeof scopeSchema>;

/** The `show-options`/`show-hooks` flags that select `scope` for `paneId`. */
export function scopeArgs(scope: Scope, paneId: string, server: "-s" | "-g"): string[] {
  switch (scope) {
    case "Server":
      return [server];
    case "Session":
      return ["-t", paneId];
    case "Window":
      return ["-w", "-t", paneId];
    case "Pane":
      return ["-p", "-t", paneId];
  }
}
