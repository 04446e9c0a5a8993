/** `get_tmux_variables`: values of tmux format variables in a pane's context. */

import { z } from "zod";
import { resolvePane } from "../core/panes.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { optionalPaneId } from "../core/schemas.ts";
import { formatOf, optionalText, parseRows, type Schema } from "../tmux/format.ts";
import { parseEnvironment, showEnvironmentCommand } from "../tmux/environment_listing.ts";
import { getPaneWith } from "../tmux/views.ts";

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The get_tmux_variables tool. */
export const getTmuxVariables = defineTool({
  name: "get_tmux_variables",
  title: "Get tmux variables",
  description:
    "tmux format variables (pane_current_path, session_name) seen from a pane; unknown " +
    "or empty: null. Environment variables are withheld (show_environment).",
  capability: { ...readsMetadata(), mayExposeSecrets: true, mayReturnUntrustedContent: true },
  input: z.strictObject({
    names: z.array(
      z.string().regex(NAME, {
        error:
          "must be a variable name: a letter, then letters, digits or underscores (at most 64)",
      }),
    ).min(1).max(64).describe("Names without #{...}."),
    paneId: optionalPaneId,
  }),
  output: z.object({
    paneId: z.string(),
    values: z.record(z.string(), z.string().nullable()),
    withheld: z.array(z.string()).describe("Names that are environment variables, not returned."),
  }),
  async handler(args, ctx) {
    const paneId = await resolvePane(ctx, args.paneId);
    const names = [...new Set(args.names)];
    const schema: Schema = Object.fromEntries(names.map((name) => [name, optionalText(name)]));
    // The pane is read first in the same round trip: display-message alone
    // would print empty values for a pane that does not exist.
    // show-environment lists either the visible or (-h) the hidden variables.
    const [, [output, ...environments]] = await getPaneWith(ctx.tmux, paneId, null, [
      ["display-message", "-p", "-t", paneId, formatOf(schema)],
      showEnvironmentCommand(["-t", paneId]),
      showEnvironmentCommand(["-g"]),
      showEnvironmentCommand(["-h", "-t", paneId]),
      showEnvironmentCommand(["-h", "-g"]),
    ]);
    const values = parseRows(schema, output)[0] as Record<string, string | null>;
    // tmux looks a name up in the environment (hidden variables included)
    // when no format variable has it, which would hand out secrets
    // show_environment withholds.
    const environment = new Set(environments.flatMap(environmentNames));
    const withheld = names.filter((name) => environment.has(name));
    for (const name of withheld) values[name] = null;
    return { paneId, values, withheld };
  },
});

/** The variable names in {@link showEnvironmentCommand} output. */
function environmentNames(output: string): string[] {
  return parseEnvironment(output).map((entry) => entry.name);
}
