/** `rename_window`: gives a window a new name. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { windowId, windowView } from "../core/schemas.ts";
import { nameText, withoutValues } from "../domain/workspace.ts";
import { escapeFormat } from "../tmux/format.ts";
import { windowTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { parseWindows, windowViewCommand } from "../tmux/views.ts";

/** The rename_window tool. */
export const renameWindow = defineTool({
  name: "rename_window",
  title: "Rename window",
  description: "Renames a window, taken literally, and stops tmux renaming it automatically.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    windowId,
    newName: nameText(),
  }),
  output: z.object({ window: windowView }),
  async handler(args, ctx) {
    const [, output] = await withoutValues([args.newName], () =>
      ctx.tmux.run([
        // "--": a name may start with "-", which tmux would read as flags.
        ["rename-window", "-t", windowTarget(args.windowId), "--", escapeFormat(args.newName)],
        windowViewCommand(args.windowId),
      ]));
    const [window] = parseWindows(output);
    if (!window) throw noSuch("window");
    ctx.topologyChanged();
    return { window };
  },
});
