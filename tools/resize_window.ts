/** `resize_window`: sets a window's size. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { windowId, windowView } from "../core/schemas.ts";
import { nothingToDo } from "../domain/workspace.ts";
import { windowTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { parseWindows, windowViewCommand } from "../tmux/views.ts";

const cells = z.int().min(1).max(10_000).nullish();

/** The resize_window tool. */
export const resizeWindow = defineTool({
  name: "resize_window",
  title: "Resize window",
  description: "Sets a window's size in cells; it then stops following clients' size.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    windowId,
    width: cells,
    height: cells,
  }),
  output: z.object({ window: windowView }),
  async handler(args, ctx) {
    if (!args.width && !args.height) throw nothingToDo("width, height or both");
    const command = ["resize-window", "-t", windowTarget(args.windowId)];
    if (args.width) command.push("-x", String(args.width));
    if (args.height) command.push("-y", String(args.height));
    const [, output] = await ctx.tmux.run([command, windowViewCommand(args.windowId)]);
    const [window] = parseWindows(output);
    if (!window) throw noSuch("window");
    return { window };
  },
});
