/** `capture_pane`: the text a pane shows, optionally with its history. */

import { z } from "zod";
import { budget, resolvePane, splitCapture, trimTrailingBlank } from "../mcp/panes.ts";
import { contentText } from "../mcp/budget.ts";
import { defineTool, readsTerminal } from "../mcp/registry.ts";
import { content, maxLines, optionalPaneId } from "../mcp/schemas.ts";
import { paneTarget } from "../tmux/targets.ts";

const line = z.int().min(-2_000_000).max(100_000);

/** The capture_pane tool. */
export const capturePane = defineTool({
  name: "capture_pane",
  title: "Capture pane",
  description: "Returns the text a pane shows, newest lines kept within the budgets. " +
    "includeHistory adds the scrollback; start/end pick rows (0 is the top visible row, negative rows are history). " +
    "For repeated reads prefer capture_since, which returns only what is new.",
  capability: readsTerminal(),
  input: z.strictObject({
    paneId: optionalPaneId,
    includeHistory: z.boolean().default(false).describe(
      "Include the scrollback above the visible screen.",
    ),
    start: line.nullish().describe(
      "First row: 0 is the top visible row, negative rows are history.",
    ),
    end: line.nullish().describe("Last row. Omit for the bottom of the screen."),
    maxLines,
    joinWrappedLines: z.boolean().default(false).describe(
      "Join lines that tmux wrapped at the pane's width.",
    ),
  }),
  output: z.object({ paneId: z.string(), content }),
  async handler(args, ctx) {
    const pane = await resolvePane(ctx, args.paneId);
    const command = ["capture-pane", "-p", "-t", paneTarget(pane)];
    if (args.joinWrappedLines) command.push("-J");
    if (args.start !== null && args.start !== undefined) command.push("-S", String(args.start));
    else if (args.includeHistory) command.push("-S", "-");
    if (args.end !== null && args.end !== undefined) command.push("-E", String(args.end));
    const output = await ctx.tmux.one(command);
    return {
      paneId: pane,
      content: budget(ctx, trimTrailingBlank(splitCapture(output)), args.maxLines),
    };
  },
  render: (result) => contentText(`pane ${result.paneId}`, result.content),
});
