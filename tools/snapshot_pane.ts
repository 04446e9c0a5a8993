/** `snapshot_pane`: a pane's view, cursor and visible text from one consistent read. */

import { z } from "zod";
import { budget, callerPane, captureLines, resolvePane } from "../core/panes.ts";
import { contentText } from "../core/budget.ts";
import { defineTool, readsTerminal } from "../core/registry.ts";
import { content, maxLines, optionalPaneId, paneView } from "../core/schemas.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes } from "../tmux/views.ts";

/** The snapshot_pane tool. */
export const snapshotPane = defineTool({
  name: "snapshot_pane",
  title: "Snapshot pane",
  description:
    "A pane's visible text, cursor position, size, command and alternate-screen state, " +
    "from one read.",
  capability: readsTerminal(),
  input: z.strictObject({ paneId: optionalPaneId, maxLines }),
  output: z.object({
    pane: paneView,
    content,
    cursorX: z.int().nullable().describe("Cursor column, 0 is the left edge."),
    cursorY: z.int().nullable().describe("Cursor row on the screen, 0 is the top visible row."),
    alternateScreen: z.boolean(),
  }),
  async handler(args, ctx) {
    const id = await resolvePane(ctx, args.paneId);
    const target = paneTarget(id);
    // One round trip: tmux runs the three commands back to back, so nothing
    // the pane prints can fall between the metadata and the text.
    const [meta, cursor, text] = await ctx.tmux.run([
      listPanesCommand({ kind: "pane", paneId: id }),
      ["display-message", "-p", "-t", target, "#{cursor_x},#{cursor_y},#{alternate_on}"],
      ["capture-pane", "-p", "-t", target],
    ]);
    const [pane] = parsePanes(meta, await callerPane(ctx));
    if (!pane) throw noSuch("pane");
    const [x, y, alternate] = cursor.split(",");
    return {
      pane,
      content: budget(ctx, captureLines(text), args.maxLines),
      cursorX: /^\d+$/.test(x) ? Number(x) : null,
      cursorY: /^\d+$/.test(y) ? Number(y) : null,
      alternateScreen: alternate === "1",
    };
  },
  render: (r) =>
    contentText(
      `pane ${r.pane.paneId} (${r.pane.width}x${r.pane.height}, ${
        r.pane.currentCommand ?? "?"
      }, cursor ${r.cursorX},${r.cursorY}${r.alternateScreen ? ", alternate screen" : ""})`,
      r.content,
    ),
});
