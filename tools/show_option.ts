/** `show_option`: the effective value of one tmux option. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { optionalPaneId } from "../core/schemas.ts";
import { scopeSchema, showInScope } from "../core/scope.ts";
import { TmuxError } from "../tmux/errors.ts";
import { parseOptionValues } from "../tmux/option_listing.ts";

const OPTION = /^@?[A-Za-z0-9][A-Za-z0-9_-]{0,127}(\[\d{1,4}\])?$/;

/** The show_option tool. */
export const showOption = defineTool({
  name: "show_option",
  title: "Show option",
  description: "A tmux option's effective value at a scope, seen from a pane; unset: null.",
  capability: readsMetadata(),
  input: z.strictObject({
    name: z.string().regex(OPTION, {
      error: "must be an option name such as history-limit or @my-option",
    })
      .describe("e.g. history-limit or @theme."),
    scope: scopeSchema.default("Pane").describe("Server: server or global value; needs no pane."),
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
