/** `resize_pane`: sets a pane's size, or zooms it to fill its window. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import { nothingToDo } from "../domain/workspace.ts";
import { runIf } from "../tmux/guard.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes } from "../tmux/views.ts";

const cells = z.int().min(1).max(10_000).nullish();

/** The resize_pane tool. */
export const resizePane = defineTool({
  name: "resize_pane",
  title: "Resize pane",
  description:
    "Sets a pane's size in cells, or zooms it (true: fills the window; false: restores).",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId,
    width: cells,
    height: cells,
    zoom: z.boolean().nullish().describe("Not with width or height."),
  }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    const target = paneTarget(args.paneId);
    const sizing = Boolean(args.width || args.height);
    if (args.zoom !== null && args.zoom !== undefined && sizing) {
      throw new ToolError(
        "zoom cannot be combined with width or height",
        "Call once to resize and once to zoom.",
      );
    }
    const change: string[][] = [];
    if (sizing) {
      const command = ["resize-pane", "-t", target];
      if (args.width) command.push("-x", String(args.width));
      if (args.height) command.push("-y", String(args.height));
      change.push(command);
    } else if (args.zoom !== null && args.zoom !== undefined) {
      // resize-pane -Z toggles (and unzooms whichever pane is zoomed), so
      // tmux decides from the window's state right before each toggle: two
      // concurrent calls cannot both toggle.
      const toggle = ["resize-pane", "-Z", "-t", target];
      if (args.zoom) {
        // Another pane zoomed: unzoom it first; then zoom unless already zoomed.
        change.push(
          runIf(target, "#{&&:#{window_zoomed_flag},#{?pane_active,0,1}}", [toggle]),
          runIf(target, "#{?window_zoomed_flag,0,1}", [toggle]),
        );
      } else {
        change.push(runIf(target, "#{window_zoomed_flag}", [toggle]));
      }
    } else {
      throw nothingToDo("width, height or zoom");
    }
    const outputs = await ctx.tmux.run([
      ...change,
      listPanesCommand({ kind: "pane", paneId: args.paneId }),
    ]);
    const [pane] = parsePanes(outputs[outputs.length - 1], await callerPane(ctx));
    if (!pane) throw noSuch("pane");
    return { pane };
  },
});
