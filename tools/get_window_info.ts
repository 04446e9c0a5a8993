/** `get_window_info`: one window's view and its panes. */

import { z } from "zod";
import { callerPane, PANES_BY_POSITION } from "../core/panes.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { paneView, windowId, windowView } from "../core/schemas.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes, parseWindows, windowViewCommand } from "../tmux/views.ts";

/** The get_window_info tool. */
export const getWindowInfo = defineTool({
  name: "get_window_info",
  title: "Get window info",
  description: "One window with all its panes.",
  capability: readsMetadata(),
  input: z.strictObject({ windowId }),
  output: z.object({ window: windowView, panes: z.array(paneView) }),
  overBudgetHint:
    `Read the window with list_windows and its panes in parts: ${PANES_BY_POSITION}; or raise --max-bytes.`,
  async handler(args, ctx) {
    const [windows, panes] = await ctx.tmux.run([
      listPanesCommand({ kind: "window", windowId: args.windowId }),
      windowViewCommand(args.windowId),
    ]).then(([p, w]) => [parseWindows(w), p] as const);
    if (!windows[0]) throw noSuch("window");
    return { window: windows[0], panes: parsePanes(panes, await callerPane(ctx)) };
  },
});
