/** `clear_pane_scrollback`: drops a pane's history above the visible screen. */

import { z } from "zod";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import { refuseCallerPane } from "../core/caller_guard.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes } from "../tmux/views.ts";

/** The clear_pane_scrollback tool. */
export const clearPaneScrollback = defineTool({
  name: "clear_pane_scrollback",
  title: "Clear pane scrollback",
  description: "Clears a pane's scrollback; the screen and program stay.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ paneId }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    await refuseCallerPane(ctx, args.paneId, {
      harm: "clearing its history would delete what the agent's own terminal showed",
      hint: "Leave that pane alone; clear other panes' history instead.",
    });
    const [, output] = await ctx.tmux.run([
      ["clear-history", "-t", paneTarget(args.paneId)],
      listPanesCommand({ kind: "pane", paneId: args.paneId }),
    ]);
    const [pane] = parsePanes(output, await callerPane(ctx));
    if (!pane) throw noSuch("pane");
    return { pane };
  },
});
