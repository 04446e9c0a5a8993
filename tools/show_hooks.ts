/** `show_hooks`: the hooks set at a scope. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { optionalPaneId } from "../core/schemas.ts";
import { scopeSchema, showInScope } from "../core/scope.ts";

/** The show_hooks tool. */
export const showHooks = defineTool({
  name: "show_hooks",
  title: "Show hooks",
  description: "The hooks set at a scope, each with its index and command.",
  capability: { ...readsMetadata(), outputClasses: ["tmux-metadata", "configured-command"] },
  input: z.strictObject({
    scope: scopeSchema.default("Session").describe("Server needs no pane."),
    paneId: optionalPaneId,
  }),
  output: z.object({
    hooks: z.array(z.object({ name: z.string(), index: z.int(), command: z.string() })),
  }),
  async handler(args, ctx) {
    const output = await showInScope(
      ctx,
      args.scope,
      args.paneId,
      [["-g"]],
      (flags) => ["show-hooks", ...flags],
    );
    return { hooks: parseHooks(output) };
  },
});

/** Parses `show-hooks` output; hooks without an index are unset and skipped. */
export function parseHooks(output: string): { name: string; index: number; command: string }[] {
  const hooks = [];
  for (const line of output.split("\n")) {
    const match = line.match(/^([a-z][a-z-]*)\[(\d+)\] (.*)$/);
    if (match) hooks.push({ name: match[1], index: Number(match[2]), command: match[3] });
  }
  return hooks;
}
