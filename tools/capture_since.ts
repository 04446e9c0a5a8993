/** `capture_since`: only the rows a pane wrote or rewrote since the previous call. */

import { z } from "zod";
import { contentText } from "../core/budget.ts";
import { encodeCursor } from "../domain/cursor.ts";
import { ToolError } from "../core/errors.ts";
import { budget, trimTrailingBlank } from "../core/panes.ts";
import { defineTool, readsTerminal } from "../core/registry.ts";
import { content, maxLines, optionalPaneId } from "../core/schemas.ts";
import {
  compareReading,
  contentEnd,
  cursorPane,
  type Delta,
  markOf,
  neededFrom,
  readSnapshot,
  refuseRestarted,
} from "../domain/since.ts";

const START_AGAIN = "Call capture_since without a cursor to start again from the visible screen.";

/** The capture_since tool. */
export const captureSince = defineTool({
  name: "capture_since",
  title: "Capture since",
  description: "What a pane wrote since a cursor (none: the screen): only rows written or " +
    "rewritten, however far it scrolled, and a new cursor (wait_for_text takes it too).",
  capability: readsTerminal(),
  // The cursor is never cut and grows with the pane's height, so no maxLines helps.
  overBudgetHint: "The cursor alone (about 11 bytes per screen row) is over the budget: raise " +
    "--max-bytes, make the pane shorter (resize_pane), or read it with snapshot_pane, which has no cursor.",
  input: z.strictObject({
    paneId: optionalPaneId,
    cursor: z.string().max(8192).nullish().describe(
      "From a previous capture_since or wait_for_text; omit to start.",
    ),
    maxLines,
  }),
  output: z.object({
    paneId: z.string(),
    content,
    cursor: z.string().describe("Pass to the next capture_since call for this pane."),
    linesMissed: z.int().nullable().describe(
      "Lines written since the cursor that this result does not hold: 0 when nothing was lost; " +
        "null when history the cursor pointed into was dropped, as tmux keeps no count of the lines " +
        "it drops (read the output another way if every line matters).",
    ),
    anchorLost: z.boolean().describe(
      "The rows the cursor remembered were not found: history cleared or trimmed (content is what " +
        "tmux still holds of the new rows), or the rows re-wrapped by a width change (content is the " +
        "visible screen).",
    ),
  }),
  async handler(args, ctx) {
    const { mark, paneId } = await cursorPane(ctx, args.cursor, args.paneId, START_AGAIN);
    let snap = await readSnapshot(ctx.tmux, paneId, (s) => neededFrom(mark, s), {
      signal: ctx.signal,
    });
    let rows: string[];
    let linesMissed: number | null = 0;
    let anchorLost = false;
    if (!mark) {
      const top = snap.state.historySize - snap.first;
      rows = snap.rows.slice(top, contentEnd(snap) - snap.first);
    } else {
      refuseRestarted(mark, snap.state, START_AGAIN);
      let delta: Delta;
      ({ delta, snap } = await compareReading(ctx.tmux, paneId, mark, snap, {
        signal: ctx.signal,
      }));
      if (delta.kind === "found") {
        rows = delta.rows;
      } else if (delta.kind === "lost") {
        anchorLost = true;
        // History lost (a burst longer than the history, a clear): what
        // tmux still holds of the new rows is returned, not only the screen.
        // How many lines went is unknown: tmux counts neither the lines it
        // drops nor those that ever scrolled (a trim drops a tenth of the
        // limit at a time, so its counts repeat), and rows above newFrom
        // may be new or may repeat rows the caller saw.
        rows = delta.rows;
        if (delta.historyLost) linesMissed = null;
      } else {
        throw new ToolError("the pane changed while it was being read", "Try again.");
      }
    }
    return {
      paneId,
      content: budget(ctx, trimTrailingBlank(rows), args.maxLines),
      cursor: await encodeCursor(markOf(snap)),
      linesMissed,
      anchorLost,
    };
  },
  render: (r, args) =>
    contentText(
      `pane ${r.paneId}, ${args?.cursor ? "new since the cursor" : "visible screen"}${
        !r.anchorLost
          ? ""
          : r.linesMissed !== 0
          ? " (cursor's rows lost: tmux dropped lines, how many is unknown)"
          : " (rows re-wrapped by a width change; the visible screen)"
      }`,
      r.content,
    ) + `\ncursor: ${r.cursor}`,
});
