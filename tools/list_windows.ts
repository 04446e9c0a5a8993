/** `list_windows`: the windows of one session, or of every session. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { renderWindows } from "../core/render_views.ts";
import { session, windowView } from "../core/schemas.ts";
import { isNothingToList, listWindowsCommand, parseWindows } from "../tmux/views.ts";

/** The list_windows tool. */
export const listWindows = defineTool({
  name: "list_windows",
  title: "List windows",
  description: "Lists windows (id, index, name, size, layout, active pane) of one session, or of " +
    "all.",
  capability: readsMetadata(),
  input: z.strictObject({
    session: session.nullish(),
  }),
  output: z.object({ windows: z.array(windowView) }),
  render: (r) => renderWindows(r.windows),
  overBudgetHint: "Give session to list one session's windows, or raise --max-bytes.",
  async handler({ session }, ctx) {
    try {
      return {
        windows: parseWindows(await ctx.tmux.one(listWindowsCommand(session ?? undefined))),
      };
    } catch (error) {
      if (isNothingToList(error) && !session) return { windows: [] };
      throw error;
    }
  },
});
