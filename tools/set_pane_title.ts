/** `set_pane_title`: sets the title tmux shows for a pane. */

import { z } from "zod";
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
