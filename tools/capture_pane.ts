/** `capture_pane`: the text a pane shows, optionally with its history. */

import { z } from "zod";
import {
  budget,
  captureLines,
  resolvePane,
  splitCapture,
  trimRow,
  trimTrailingBlank,
} from "../mcp/panes.ts";
import { contentText } from "../mcp/budget.ts";
import { ToolError } from "../mcp/errors.ts";
import { defineTool, readsTerminal } from "../mcp/registry.ts";
import { content, maxLines, optionalPaneId } from "../mcp/schemas.ts";
import { formatOf, int, parseRows } from "../tmux/format.ts";
import { paneTarget } from "../tmux/targets.ts";
import { HISTORY_READ_TIMEOUT_MS } from "../tmux/transport.ts";

const line = z.int().min(-2_000_000).max(100_000);

/** The capture_pane tool. */
export const capturePane = defineTool({
  name: "capture_pane",
  title: "Capture pane",
  description: "The text a pane shows, or rows start..end. For repeated reads use capture_since; " +
    "with cursor and state, snapshot_pane.",
  capability: readsTerminal(),
  input: z.strictObject({
    paneId: optionalPaneId,
    includeHistory: z.boolean().default(false),
    start: line.nullish().describe("First row (0: top visible; negative: history)."),
    end: line.nullish().describe("Last row (default: bottom of the screen)."),
    maxLines,
    joinWrappedLines: z.boolean().default(false),
  }),
  output: z.object({
    paneId: z.string(),
    content,
    rowsNotHeld: z.int().optional().describe(
      "With start or end: how many rows of the range the pane does not hold (above its oldest " +
        "history line or below its bottom row); they are left out, so content may be empty.",
    ),
  }),
  async handler(args, ctx) {
    const start = args.start ?? null;
    const end = args.end ?? null;
    if (start !== null && end !== null && start > end) throw reversed();
    const pane = await resolvePane(ctx, args.paneId);
    const command = ["capture-pane", "-p", "-t", paneTarget(pane)];
    if (args.joinWrappedLines) command.push("-J");
    if (start !== null) command.push("-S", String(start));
    else if (args.includeHistory) command.push("-S", "-");
    if (end !== null) command.push("-E", String(end));
    // tmux -J keeps every line's trailing spaces (it never trims a joined
    // line): trim them as a capture without it does, so joining changes only
    // where lines break, and rows of spaces below the output are dropped too.
    const lines = (output: string) =>
      args.joinWrappedLines
        ? trimTrailingBlank(splitCapture(output).map(trimRow))
        : captureLines(output);
    // Rows of the history are read whole, however many are kept: a long history takes long.
    const bound = command.includes("-S") ? { timeoutMs: HISTORY_READ_TIMEOUT_MS } : {};
    if (start === null && end === null) {
      const output = await ctx.tmux.one(command, bound);
      return { paneId: pane, content: budget(ctx, lines(output), args.maxLines) };
    }
    // tmux clamps -S/-E into the pane and swaps them when reversed, so a range
    // outside the pane would come back as other rows: read what the pane
    // holds in the same round trip and keep only rows of the range.
    const [extent, output] = await ctx.tmux.run([
      ["display-message", "-p", "-t", paneTarget(pane), formatOf(EXTENT)],
      command,
    ], bound);
    const [{ history, height }] = parseRows(EXTENT, extent);
    // An omitted bound is the pane's edge, or the given bound when that lies
    // past the edge: a range wholly outside the pane is empty, not reversed.
    const bottom = end ?? Math.max(height - 1, start!);
    const top = start ?? (args.includeHistory ? Math.min(-history, bottom) : 0);
    if (top > bottom) throw reversed();
    const held = Math.max(0, Math.min(bottom, height - 1) - Math.max(top, -history) + 1);
    return {
      paneId: pane,
      content: budget(ctx, held === 0 ? [] : lines(output), args.maxLines),
      rowsNotHeld: bottom - top + 1 - held,
    };
  },
  render: (result) => {
    const missing = result.rowsNotHeld ? `, ${result.rowsNotHeld} rows of the range not held` : "";
    return contentText(`pane ${result.paneId}${missing}`, result.content);
  },
});

/** How many rows a pane holds: its history above row 0, its screen from 0 down. */
const EXTENT = { history: int("history_size"), height: int("pane_height") };

/** The refusal of a range whose first row is below its last. */
function reversed(): ToolError {
  return new ToolError(
    "start is below end (start is the upper row: negative rows are history, 0 is the top " +
      "visible row; an omitted start is 0, or the oldest history row with includeHistory)",
    "Give start not below end, e.g. start: -20 with end: -1 for the 20 history rows above the " +
      "screen, or includeHistory: true to read the history up to end.",
  );
}
