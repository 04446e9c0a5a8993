/** `kill_window`: closes one window and ends every pane in it. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { windowId } from "../mcp/schemas.ts";
import {
  cascade,
  keepOwnServerAlive,
  killedOutput,
  readRows,
  refuseIfHeldCaller,
  renderKilled,
  unlessHoldsCaller,
} from "../mcp/teardown.ts";
import { windowTarget } from "../tmux/targets.ts";

/** The kill_window tool. */
export const killWindow = defineTool({
  name: "kill_window",
  title: "Kill window",
  description:
    "Closes one window, ending every program in its panes, and removes it from every session it " +
    "is linked into; a session ends with its last window. The result lists everything that went. " +
    "Other windows are untouched. Refuses the window holding the pane this server runs in.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ windowId }),
  output: killedOutput,
  async handler(args, ctx) {
    const target = windowTarget(args.windowId);
    const caller = await ctx.caller.guardedPane(ctx.tmux);
    // list-panes -t @N fails for a window that does not exist. The rows are
    // read and the caller checked in the kill's own round trip.
    const { rows, after } = await readRows(ctx.tmux, ["list-panes", "-t", target], [
      ...keepOwnServerAlive(ctx.tmux),
      ...unlessHoldsCaller(caller, target, "window", [["kill-window", "-t", target]]),
    ]);
    refuseIfHeldCaller(caller, after.at(-1), `window ${args.windowId}`);
    ctx.topologyChanged();
    return { killed: cascade(rows, { windowId: args.windowId }) };
  },
  render: renderKilled,
});
