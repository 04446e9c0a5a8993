/** `set_synchronize_panes`: makes keys typed into one pane of a window go to all of them. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { action, windowId } from "../mcp/schemas.ts";
import { MISSING, withoutValues } from "../mcp/workspace.ts";
import { windowTarget } from "../tmux/targets.ts";

/** The set_synchronize_panes tool. */
export const setSynchronizePanes = defineTool({
  name: "set_synchronize_panes",
  title: "Set synchronize panes",
  description:
    "Turns tmux's synchronize-panes on or off for a window. While on, anything typed into one of its " +
    "panes (by a person or by send_keys) is typed into every pane of the window. changed says whether " +
    "the window's value differed before.",
  capability: changesTmux("execute", ["change"], { amplifiesFutureInput: true }),
  input: z.strictObject({
    windowId,
    enabled: z.boolean().describe("True for on, false for off."),
  }),
  output: action,
  async handler(args, ctx) {
    const read = [
      "list-windows",
      "-a",
      "-f",
      `#{==:#{window_id},${args.windowId}}`,
      "-F",
      "#{synchronize-panes}",
    ];
    // set-option fails for a missing window, so the reads around it are of a real one.
    const value = args.enabled ? "on" : "off";
    const set = ["set-option", "-w", "-t", windowTarget(args.windowId), "synchronize-panes", value];
    const [before, , after] = await withoutValues(
      [],
      () => ctx.tmux.run([read, set, read]),
      MISSING,
    );
    return {
      changed: before.split("\n")[0] !== after.split("\n")[0],
      windowId: args.windowId,
    };
  },
});
