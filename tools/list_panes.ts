/** `list_panes`: panes of a window, a session, or the whole server. */

import { z } from "zod";
import { callerPane, PANES_BY_POSITION } from "../core/panes.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { renderPanes } from "../core/render_views.ts";
import { paneView, session, windowId } from "../core/schemas.ts";
import { listPanes as readPanes, type PaneScope } from "../tmux/views.ts";

/** The list_panes tool. */
export const listPanes = defineTool({
  name: "list_panes",
  title: "List panes",
  description: "Lists panes (id, size, title, command, directory, pid, state) of one window, one " +
    "session, or all.",
  capability: readsMetadata(),
  input: z.strictObject({
    session: session.nullish(),
    windowId: windowId.nullish(),
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
