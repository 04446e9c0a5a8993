/** `find_pane_by_position`: the pane at a corner of a window, or at an index. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { paneView, windowId } from "../core/schemas.ts";
import { flag, formatOf, int, parseRows, text } from "../tmux/format.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes } from "../tmux/views.ts";
import { counted } from "../core/words.ts";

const EDGES = {
  paneId: text("pane_id"),
  top: flag("pane_at_top"),
  bottom: flag("pane_at_bottom"),
  left: flag("pane_at_left"),
  right: flag("pane_at_right"),
  index: int("pane_index"),
};

const CORNERS = ["top-left", "top-right", "bottom-left", "bottom-right"] as const;

/** The find_pane_by_position tool. */
export const findPaneByPosition = defineTool({
  name: "find_pane_by_position",
  title: "Find pane by position",
  description:
    "The pane at a corner of a window, or at a position in tmux's pane order. Give one " +
    "of the two.",
  capability: readsMetadata(),
  input: z.strictObject({
    windowId,
    corner: z.enum(CORNERS).nullish(),
    position: z.int().min(0).max(10_000).nullish().describe(
      "0 is the first pane, whatever pane-base-index is.",
    ),
  }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    const corner = args.corner ?? null;
    const position = args.position ?? null;
    if ((corner === null) === (position === null)) {
      throw new ToolError(
        "give exactly one of corner and position",
        "Pass corner (such as top-left) or position (a pane index).",
      );
    }
    const [views, edgesOut] = await ctx.tmux.run([
      listPanesCommand({ kind: "window", windowId: args.windowId }),
      ["list-panes", "-t", args.windowId, "-F", formatOf(EDGES)],
    ]);
    const edges = parseRows(EDGES, edgesOut);
    // The window exists (list-panes found it): a position past its last pane
    // is the caller's mistake, not a pane tmux lost.
    if (position !== null && position >= edges.length) {
      throw new ToolError(
        `the window has ${counted(edges.length, "pane")}, so none is at that position`,
        `Give a position from 0 to ${edges.length - 1} (0 is the window's first pane), ` +
          "or list the window's panes with list_panes and windowId.",
      );
    }
    // tmux numbers panes from pane-base-index (often 1 in user configs);
    // position counts from 0 in tmux's order whatever that option says.
    const match = position !== null
      ? edges.sort((a, b) => a.index - b.index)[position]
      : edges.find((e) => {
        const [vertical, horizontal] = corner!.split("-");
        return (vertical === "top" ? e.top : e.bottom) &&
          (horizontal === "left" ? e.left : e.right);
      });
    const pane = match &&
      parsePanes(views, await callerPane(ctx)).find((p) => p.paneId === match.paneId);
    if (!pane) throw noSuch("pane");
    return { pane };
  },
});
