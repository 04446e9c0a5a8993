/** `show_option`: the effective value of one tmux option. */

import { z } from "zod";
import { ToolError } from "../mcp/errors.ts";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
import { optionalPaneId } from "../mcp/schemas.ts";
import { scopeSchema, showInScope } from "../mcp/scope.ts";
import { TmuxError } from "../tmux/errors.ts";
import { parseOptionValues } from "../tmux/option_listing.ts";

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
    scope: scopeSchema.default("Pane").describe(
      "Server, Session, Window or Pane. Server reads server options and the global value of any " +
        "other option (a user option: set -s, else set -g, else set -gw), and needs no pane (it " +
        "works on a server without sessions).",
    ),
    paneId: optionalPaneId,
  }),
  output: z.object({ name: z.string(), scope: scopeSchema, value: z.string().nullable() }),
  async handler(args, ctx) {
    // Server: a built-in option has one table of its own, and -g reads its
    // global value. A user option can be set in any table: the server's
    // (set -s), then the global session value (set -g, how tmux.conf
    // usually sets them, @plugin included), then the global window value
    // (set -gw); the first that is set is its value.
    const user = args.name.startsWith("@");
    const serverFlags = user ? [["-g", "-s"], ["-g"], ["-g", "-w"]] : [["-g", "-s"]];
    let listing: string;
    try {
      listing = await showInScope(ctx, args.scope, args.paneId, serverFlags, (flags) => [
        "show-options",
        // -q only for user options: an unset @option is null, a misspelt
        // built-in option is an error worth seeing.
        ...(user ? ["-q"] : []),
        "-A",
        ...flags,
        args.name,
      ]);
    } catch (error) {
      // tmux's own words name no fix ("invalid option", "ambiguous option").
      const unknown = error instanceof TmuxError &&
        /^tmux reported: (invalid|ambiguous) option$/.test(error.message);
      if (!unknown) throw error;
      throw new ToolError(
        `tmux has no option by that name${
          /ambiguous/.test(error.message) ? " (it starts several option names)" : ""
        }`,
        "Give a full tmux option name such as history-limit or mouse, or a user option starting " +
          "with @ (an unset one reads as null).",
      );
    }
    // Without -v: tmux quotes the value the same on every version.
    const value = parseOptionValues(listing).join("\n");
    return { name: args.name, scope: args.scope, value: value === "" ? null : value };
  },
});
