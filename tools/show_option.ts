/** `show_option`: the effective value of one tmux option. */

import { z } from "zod";
import { resolvePane } from "../mcp/panes.ts";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
import { optionalPaneId } from "../mcp/schemas.ts";
import { scopeArgs, scopeSchema } from "../mcp/scope.ts";
import { listPanesCommand, noSuch } from "../tmux/views.ts";

const OPTION = /^@?[A-Za-z0-9][A-Za-z0-9_-]{0,127}(\[\d{1,4}\])?$/;

/** The show_option tool. */
export const showOption = defineTool({
  name: "show_option",
  title: "Show option",
  description:
    "Returns the effective value of a tmux option (inherited values included) at a scope, " +
    "as seen from a pane: for example history-limit, mouse, or a user option like @theme. " +
    "A user option that is not set reads as null.",
  capability: readsMetadata(),
  input: z.strictObject({
    name: z.string().regex(OPTION, {
      error: "must be an option name such as history-limit or @my-option",
    })
      .describe("The option name, such as history-limit or a user option like @theme."),
    scope: scopeSchema.default("Pane").describe("Server, Session, Window or Pane."),
    paneId: optionalPaneId,
  }),
  output: z.object({ name: z.string(), scope: scopeSchema, value: z.string().nullable() }),
  async handler(args, ctx) {
    const paneId = await resolvePane(ctx, args.paneId);
    const [exists, value] = await ctx.tmux.run([
      listPanesCommand({ kind: "pane", paneId }),
      // -q only for user options: an unset @option is null, a misspelt
      // built-in option is an error worth seeing.
      [
        "show-options",
        ...(args.name.startsWith("@") ? ["-q"] : []),
        "-A",
        "-v",
        ...scopeArgs(args.scope, paneId, "-s"),
        args.name,
      ],
    ]);
    if (exists === "") throw noSuch("pane");
    return { name: args.name, scope: args.scope, value: value === "" ? null : value };
  },
});
