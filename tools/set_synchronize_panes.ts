/** `set_synchronize_panes`: makes keys typed into one pane of a window go to all of them. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { action, windowId } from "../core/schemas.ts";
import { heldCaller, unlessHoldsCaller } from "../core/caller_guard.ts";
import { withoutValues } from "../domain/workspace.ts";
import { windowTarget } from "../tmux/targets.ts";

/** The set_synchronize_panes tool. */
export const setSynchronizePanes = defineTool({
  name: "set_synchronize_panes",
  title: "Set synchronize panes",
  description:
    "Turns synchronize-panes on or off for a window: keys typed into one of its panes go " +
    "to all.",
  capability: changesTmux("execute", ["change"], { amplifiesFutureInput: true }),
  input: z.strictObject({
    windowId,
    enabled: z.boolean(),
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
    const target = windowTarget(args.windowId);
    const set = [
      "set-option",
      "-w",
      "-t",
      target,
      "synchronize-panes",
      args.enabled ? "on" : "off",
    ];
    // Keys a person types into this server's own pane (the agent's terminal)
    // would be typed into the window's other panes: tmux refuses that right
    // before the change. Turning it off is always allowed.
    const caller = args.enabled ? await ctx.caller.guardedPane(ctx.tmux) : null;
    // set-option fails for a missing window, so the reads around it are of a real one.
    const [before, changed, after] = await withoutValues(
      [],
      () => ctx.tmux.run([read, ...unlessHoldsCaller(caller, target, "window", [set]), read]),
    );
    if (heldCaller(caller, changed)) {
      throw new ToolError(
        `window ${args.windowId} holds the pane this server runs in; synchronizing it would copy ` +
          "keys typed there (the agent's own terminal) into the window's other panes",
        "Synchronize a window without this server's pane (create_window makes one).",
      );
    }
    return {
      changed: before.split("\n")[0] !== after.split("\n")[0],
      windowId: args.windowId,
    };
  },
});
