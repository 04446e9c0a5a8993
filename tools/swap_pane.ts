/** `swap_pane`: exchanges the places of two panes. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { action, paneId } from "../mcp/schemas.ts";
import { paneTarget } from "../tmux/targets.ts";
import { getPane, listPanesCommand, noSuch, parsePanes } from "../tmux/views.ts";

/** The swap_pane tool. */
export const swapPane = defineTool({
  name: "swap_pane",
  title: "Swap panes",
  description:
    "Exchanges the positions of two panes, in the same window or across windows; the programs keep " +
    "running and the active pane stays the same pane. keepZoom keeps a zoomed window zoomed. The result " +
    "names paneId's window after the swap.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId,
    targetPaneId: paneId.describe("The pane to exchange places with."),
    keepZoom: z.boolean().default(false).describe("Keep a zoomed window zoomed."),
  }),
  output: action,
  async handler(args, ctx) {
    if (args.paneId === args.targetPaneId) {
      const pane = await getPane(ctx.tmux, args.paneId, null);
      return { changed: false, paneId: pane.paneId, windowId: pane.windowId };
    }
    const command = [
      "swap-pane",
      "-d",
      "-s",
      paneTarget(args.paneId),
      "-t",
      paneTarget(args.targetPaneId),
    ];
    if (args.keepZoom) command.push("-Z");
    const [, output] = await ctx.tmux.run([
      command,
      listPanesCommand({ kind: "pane", paneId: args.paneId }),
    ]);
    const [pane] = parsePanes(output, null);
    if (!pane) throw noSuch("pane");
    ctx.topologyChanged();
    return { changed: true, paneId: pane.paneId, windowId: pane.windowId };
  },
});
