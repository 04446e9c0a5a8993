/** `list_panes`: panes of a window, a session, or the whole server. */

import { z } from "zod";
import { callerPane, PANES_BY_POSITION } from "../mcp/panes.ts";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
import { renderPanes } from "../mcp/render_views.ts";
import { optionalSession, paneView, windowId } from "../mcp/schemas.ts";
import { listPanes as readPanes, type PaneScope } from "../tmux/views.ts";

/** The list_panes tool. */
export const listPanes = defineTool({
  name: "list_panes",
  title: "List panes",
  description:
    "Lists panes with their ids, size, title, running command, directory, process id, history and state. " +
    "Give windowId for one window, session for one session, or neither for every pane.",
  capability: readsMetadata(),
  input: z.strictObject({
    session: optionalSession("A session id or name. Omit for every session."),
    windowId: windowId.nullish().describe("A window id such as @2. Omit for every window."),
  }),
  output: z.object({ panes: z.array(paneView) }),
  render: (r) => renderPanes(r.panes),
  overBudgetHint: "Give windowId to list one window's panes; when one window's panes do not fit, " +
    `${PANES_BY_POSITION}, or raise --max-bytes.`,
  async handler({ session, windowId }, ctx) {
    // Both given: list the session's panes and keep the window's, so a window
    // of another session yields nothing rather than an error.
    const scope: PaneScope = session
      ? { kind: "session", session }
      : windowId
      ? { kind: "window", windowId }
      : { kind: "all" };
    const panes = (await readPanes(ctx.tmux, scope, await callerPane(ctx)))
      .filter((pane) => !windowId || pane.windowId === windowId);
    return { panes };
  },
});
