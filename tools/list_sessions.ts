/** `list_sessions`: every session of the driven server. */

import { isNoServer } from "../tmux/errors.ts";
import { z } from "zod";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { renderSessions } from "../core/render_views.ts";
import { sessionView } from "../core/schemas.ts";
import { listSessionsCommand, parseSessions } from "../tmux/views.ts";

/** The list_sessions tool. */
export const listSessions = defineTool({
  name: "list_sessions",
  title: "List sessions",
  description: "Lists sessions: id, name, windows, attached clients, active window and pane.",
  capability: readsMetadata(),
  input: z.strictObject({}),
  output: z.object({ sessions: z.array(sessionView) }),
  render: (r) => renderSessions(r.sessions),
  overBudgetHint:
    "Read the sessions one at a time with get_session_info {session} (ids run $0, $1, " +
    "... in the order the sessions were made; get_server_info counts them), up to 16 in one " +
    "call_read_tools_batch with onError continue (its limit is not --max-bytes; ids of killed " +
    "sessions fail), or raise --max-bytes to at least the size above.",
  async handler(_args, ctx) {
    try {
      return { sessions: parseSessions(await ctx.tmux.one(listSessionsCommand())) };
    } catch (error) {
      if (isNoServer(error)) return { sessions: [] };
      throw error;
    }
  },
});
