/** `get_tmux_variables`: values of tmux format variables in a pane's context. */

import { z } from "zod";
import { resolvePane } from "../mcp/panes.ts";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
import { optionalPaneId } from "../mcp/schemas.ts";
import { formatOf, optionalText, parseRows, type Schema } from "../tmux/format.ts";
import { listPanesCommand, noSuch } from "../tmux/views.ts";

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The get_tmux_variables tool. */
export const getTmuxVariables = defineTool({
  name: "get_tmux_variables",
  title: "Get tmux variables",
  description:
    "Returns the values of tmux format variables (such as pane_current_path or session_name, " +
    "without #{...}) as seen from a pane. A variable that is unknown or empty reads as null.",
  capability: { ...readsMetadata(), mayExposeSecrets: true, mayReturnUntrustedContent: true },
  input: z.strictObject({
    names: z.array(
      z.string().regex(NAME, {
        error:
          "must be a variable name: a letter, then letters, digits or underscores (at most 64)",
      }),
    ).min(1).max(64).describe(
      "Variable names such as session_name, without #{...}; 1 to 64 of them.",
    ),
    paneId: optionalPaneId,
  }),
  output: z.object({ paneId: z.string(), values: z.record(z.string(), z.string().nullable()) }),
  async handler(args, ctx) {
    const paneId = await resolvePane(ctx, args.paneId);
    const names = [...new Set(args.names)];
    const schema: Schema = Object.fromEntries(names.map((name) => [name, optionalText(name)]));
    // The pane check runs first in the same round trip: display-message alone
    // would print empty values for a pane that does not exist.
    const [exists, output] = await ctx.tmux.run([
      listPanesCommand({ kind: "pane", paneId }),
      ["display-message", "-p", "-t", paneId, formatOf(schema)],
    ]);
    if (exists === "") throw noSuch("pane");
    return { paneId, values: parseRows(schema, output)[0] as Record<string, string | null> };
  },
});
