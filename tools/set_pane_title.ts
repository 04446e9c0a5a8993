/** `set_pane_title`: sets the title tmux shows for a pane. */

import { z } from "zod";
import { ToolError } from "../mcp/errors.ts";
import { callerPane } from "../mcp/panes.ts";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { paneId, paneView } from "../mcp/schemas.ts";
import { nameText, withoutValues } from "../mcp/workspace.ts";
import { escapeFormat } from "../tmux/format.ts";
import { paneTarget } from "../tmux/targets.ts";
import { listPanesCommand, noSuch, parsePanes } from "../tmux/views.ts";

/** The set_pane_title tool. */
export const setPaneTitle = defineTool({
  name: "set_pane_title",
  title: "Set pane title",
  description:
    "Sets a pane's title, taken literally (#{...} and #(...) stay text); an empty title clears it. " +
    "The active pane does not change. A program in the pane can set its own title later.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId,
    title: nameText(1024, 0).describe("The new title, taken literally."),
  }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    // tmux ignores a title with a control character without an error, which
    // would leave the old title under a success.
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(args.title)) {
      throw new ToolError(
        "the title contains a control character (newline, tab, escape), which tmux does not accept",
        "Remove control characters from the title and call again.",
      );
    }
    const [, output] = await withoutValues([args.title], () =>
      ctx.tmux.run([
        ["select-pane", "-t", paneTarget(args.paneId), "-T", escapeFormat(args.title)],
        listPanesCommand({ kind: "pane", paneId: args.paneId }),
      ]));
    const [pane] = parsePanes(output, await callerPane(ctx));
    if (!pane) throw noSuch("pane");
    return { pane };
  },
});
