/** `kill_session`: ends one session and the windows only it holds. */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { session } from "../mcp/schemas.ts";
import { cascade, guardedKill, killedOutput, renderKilled } from "../mcp/teardown.ts";
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
    // list-windows -t fails for a session that does not exist and names its id.
    const { checked: ids, rows } = await guardedKill(ctx, {
      check: ["list-windows", "-t", target, "-F", "#{session_id}"],
      kill: ["kill-session", "-t", target],
      // `=name:` (the session's current window): tmux 3.3a expands formats
      // for a bare `=name` target without the session.
      guardTarget: `${target}:`,
      scope: "session",
      what: (out) => `session ${out.split("\n")[0]}`,
    });
    ctx.topologyChanged();
    return { killed: cascade(rows, { sessionId: ids.split("\n")[0] }) };
  },
  render: renderKilled,
});
