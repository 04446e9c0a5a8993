/** `get_session_info`: one session's view and its windows. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { session, sessionView, windowView } from "../core/schemas.ts";
import {
  findSession,
  listSessionsCommand,
  listWindowsCommand,
  parseSessions,
  parseWindows,
} from "../tmux/views.ts";

/** The get_session_info tool. */
export const getSessionInfo = defineTool({
  name: "get_session_info",
  title: "Get session info",
  description: "One session with all its windows.",
  capability: readsMetadata(),
  input: z.strictObject({ session }),
  output: z.object({ session: sessionView, windows: z.array(windowView) }),
  async handler(args, ctx) {
    // list-windows fails first when the session does not exist.
    const [windows, sessions] = await ctx.tmux.run([
      listWindowsCommand(args.session),
      listSessionsCommand(),
    ]);
    return {
      session: findSession(parseSessions(sessions), args.session),
      windows: parseWindows(windows),
    };
  },
});
