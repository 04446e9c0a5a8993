/** `kill_session`: ends one session and the windows only it holds. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { session } from "../mcp/schemas.ts";
import {
  cascade,
  keepOwnServerAlive,
  killedOutput,
  readRows,
  refuseIfHeldCaller,
  renderKilled,
  unlessHoldsCaller,
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
    const target = sessionTarget(args.session);
    const caller = await ctx.caller.guardedPane(ctx.tmux);
    // list-windows -t fails for a session that does not exist and names its
    // id. The rows are read and the caller checked in the kill's own round trip.
    const { checked, rows, after } = await readRows(
      ctx.tmux,
      ["list-windows", "-t", target, "-F", "#{session_id}"],
      [
        ...keepOwnServerAlive(ctx.tmux),
        // `=name:` (the session's current window): tmux 3.3a expands
        // formats for a bare `=name` target without the session.
        ...unlessHoldsCaller(caller, `${target}:`, "session", [["kill-session", "-t", target]]),
      ],
    );
    const sessionId = checked.split("\n")[0];
    refuseIfHeldCaller(caller, after.at(-1), `session ${sessionId}`);
    ctx.topologyChanged();
    return { killed: cascade(rows, { sessionId }) };
  },
  render: renderKilled,
});
