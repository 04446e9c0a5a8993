/** `kill_session`: ends one session and the windows only it holds. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { session } from "../core/schemas.ts";
import { guardedKill, killedOutput, renderKilled } from "../domain/teardown.ts";

/** The kill_session tool. */
export const killSession = defineTool({
  name: "kill_session",
  title: "Kill session",
  description: "Ends a session with its windows and programs (windows linked elsewhere stay).",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ session }),
  output: killedOutput,
  async handler(args, ctx) {
    const killed = await guardedKill(ctx, { session: args.session });
    ctx.topologyChanged();
    return { killed };
  },
  render: renderKilled,
});
