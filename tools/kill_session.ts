/** `kill_session`: ends one session and the windows only it holds. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { session } from "../mcp/schemas.ts";
import { guardedKill, killedOutput, renderKilled } from "../mcp/teardown.ts";

/** The kill_session tool. */
export const killSession = defineTool({
  name: "kill_session",
  title: "Kill session",
  description:
    "Ends one session (by id such as $1 or exact name) with its windows and every program in them; " +
    "a window also linked into another session stays there. The result lists everything that went. " +
    "Refuses the session holding the pane this server runs in, also when that pane's window would " +
    "live on in another session (a session group): a client attached to the session, perhaps the " +
    "person watching the agent, would be detached. On this server's own tmux server " +
    "(libtmux-mcp) the tmux server stays up after its last session ends.",
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
