/** `kill_window`: closes one window and ends every pane in it. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { windowId } from "../core/schemas.ts";
import { guardedKill, killedOutput, renderKilled } from "../domain/teardown.ts";

/** The kill_window tool. */
export const killWindow = defineTool({
  name: "kill_window",
  title: "Kill window",
  description: "Closes a window and its programs, in every session it is linked into.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ windowId }),
  output: killedOutput,
  async handler(args, ctx) {
    const killed = await guardedKill(ctx, { windowId: args.windowId });
    ctx.topologyChanged();
    return { killed };
  },
  render: renderKilled,
});
