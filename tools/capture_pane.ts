/** `capture_pane`: the text a pane shows, optionally with its history. */

import { z } from "zod";
import {
  budget,
  captureLines,
  resolvePane,
  splitCapture,
  trimRow,
  trimTrailingBlank,
} from "../core/panes.ts";
import { contentText, isAscii, type LineSource } from "../core/budget.ts";
import { ToolError } from "../core/errors.ts";
import {
  firstWindow,
  widerWindow,
  windowDecides,
  type WindowNeed,
  withUnreadRows,
} from "../domain/history_window.ts";
import { defineTool, readsTerminal, type ToolContext } from "../core/registry.ts";
import { content, maxLines, optionalPaneId } from "../core/schemas.ts";
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
    const { command, lines, source } = captureReading(pane, args.joinWrappedLines);
    if (start === null && end === null && !args.includeHistory) {
      const output = await ctx.tmux.one(command);
      const content = budget(ctx, lines(output), args.maxLines, source(output));
      return { paneId: pane, content };
    }
    const need = {
      maxLines: args.maxLines ?? ctx.settings.maxLines,
      maxBytes: ctx.settings.maxBytes,
      joined: args.joinWrappedLines,
    };
    const extentCommand = ["display-message", "-p", "-t", paneTarget(pane), formatOf(EXTENT)];
    // The whole history's first window is the newest rows above the screen
    // and the screen, whatever the extent: both go in one round trip (tmux
    // clamps -S to the oldest row, as a window of all rows held would start).
    const [extent, first] = start === null && end === null
      ? await ctx.tmux.run([extentCommand, [...command, "-S", String(-firstWindow(need, 0))]], {
        timeoutMs: HISTORY_READ_TIMEOUT_MS,
      })
      : await ctx.tmux.run([extentCommand]);
    const [{ history, height }] = parseRows(EXTENT, extent);
    // An omitted bound is the pane's edge, or the given bound when that lies
    // past the edge: a range wholly outside the pane is empty, not reversed.
    const bottom = end ?? Math.max(height - 1, start ?? 0);
    const top = start ?? (args.includeHistory ? Math.min(-history, bottom) : 0);
    if (top > bottom) throw reversed();
    // tmux clamps -S/-E into the pane and swaps them when reversed, so only
    // rows the pane holds are asked for.
    const held = Math.max(0, Math.min(bottom, height - 1) - Math.max(top, -history) + 1);
    const window = held === 0
      ? { lines: [], unread: 0, source: { ascii: true } }
      : await readWindow(ctx, command, {
        bottom: Math.min(bottom, height - 1),
        held,
        height,
        lines,
        source,
        need,
        first,
      });
    const content = withUnreadRows(
      budget(ctx, window.lines, args.maxLines, window.source),
      window.unread,
    );
    if (start === null && end === null) return { paneId: pane, content };
    return { paneId: pane, content, rowsNotHeld: bottom - top + 1 - held };
  },
  render: (result) => {
    const missing = result.rowsNotHeld ? `, ${result.rowsNotHeld} rows of the range not held` : "";
    return contentText(`pane ${result.paneId}${missing}`, result.content);
  },
});

/**
 * The capture command of `pane`, and how its output becomes lines and the
 * source the budget may slice them from.
 */
function captureReading(pane: string, joined: boolean) {
  const command = ["capture-pane", "-p", "-t", paneTarget(pane)];
  if (joined) command.push("-J");
  // tmux -J keeps every line's trailing spaces (it never trims a joined
  // line): trim them as a capture without it does, so joining changes only
  // where lines break, and rows of spaces below the output are dropped too.
  const lines = (output: string) =>
    joined ? trimTrailingBlank(splitCapture(output).map(trimRow)) : captureLines(output);
  // Trimmed rows are no longer a slice of the output.
  const source = (output: string): LineSource => ({
    ascii: isAscii(output),
    text: joined ? undefined : output,
  });
  return { command, lines, source };
}

/** How {@link readWindow} reads. */
interface WindowRead {
  /** The last row to read (a row the pane holds). */
  bottom: number;
  /** Rows the pane holds from the range's top down to `bottom`. */
  held: number;
  /** The pane's height. */
  height: number;
  /** Lines of a capture's output. */
  lines: (output: string) => string[];
  /** What is known of a capture's output, for budgeting its lines. */
  source: (output: string) => LineSource;
  need: WindowNeed;
  /** The first window's output, when it was read along with the extent. */
  first?: string;
}

/**
 * Lines of the newest rows up to `bottom` that decide the budgeted result,
 * and how many held rows above them were not read: a long history is read
 * only as far as the budget reaches (see domain/history_window.ts), and
 * what is known of the output they were read from.
 */
async function readWindow(
  ctx: ToolContext,
  command: string[],
  read: WindowRead,
): Promise<{ lines: string[]; unread: number; source: LineSource }> {
  let rows = Math.min(read.held, firstWindow(read.need, read.height));
  let first = read.first;
  while (true) {
    const from = read.bottom - rows + 1;
    const output = first ?? await ctx.tmux.one(
      [...command, "-S", String(from), "-E", String(read.bottom)],
      // A wide window of a long history takes long to read.
      { timeoutMs: HISTORY_READ_TIMEOUT_MS },
    );
    first = undefined;
    const lines = read.lines(output);
    const source = read.source(output);
    if (rows >= read.held || windowDecides(lines, read.need, source.ascii)) {
      return { lines, unread: read.held - rows, source };
    }
    rows = widerWindow(rows, read.held);
  }
}

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
