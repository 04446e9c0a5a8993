/** `kill_session`: ends one session and the windows only it holds. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { session } from "../mcp/schemas.ts";
import {
  cascade,
  keepOwnServerAlive,
  killedOutput,
  readRows,
  refuseCaller,
  renderKilled,
} from "../mcp/teardown.ts";
import { sessionTarget } from "../tmux/targets.ts";

/** The kill_session tool. */
export const killSession = defineTool({
  name: "kill_session",
  title: "Kill session",
  description:
    "Ends one session (by id such as $1 or exact name) with its windows and every program in them; " +
    "a window also linked into another session stays there. The result lists everything that went. " +
    "Refuses the session holding the pane this server runs in. On this server's own tmux server " +
    "(libtmux-mcp) the tmux server stays up after its last session ends.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ session }),
  output: killedOutput,
  async handler(args, ctx) {
    // list-windows -t fails for a session that does not exist and names its id.
    const { checked, rows } = await readRows(ctx.tmux, [
      "list-windows",
      "-t",
      sessionTarget(args.session),
      "-F",
      "#{session_id}",
    ]);
    const sessionId = checked.split("\n")[0];
    await refuseCaller(
      ctx,
      rows.filter((row) => row.sessionId === sessionId),
      `session ${sessionId}`,
    );
    const killed = cascade(rows, { sessionId });
    await ctx.tmux.run([...keepOwnServerAlive(ctx.tmux), ["kill-session", "-t", sessionId]]);
    ctx.topologyChanged();
    return { killed };
  },
  render: renderKilled,
});
