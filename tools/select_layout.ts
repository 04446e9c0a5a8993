/** `select_layout`: arranges a window's panes by a built-in layout or a layout string. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { windowId, windowView } from "../core/schemas.ts";
import { withoutValues } from "../domain/workspace.ts";
import { printed, runIf } from "../tmux/guard.ts";
import { windowTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { parseWindows, windowViewCommand } from "../tmux/views.ts";
import { counted } from "../core/words.ts";

const BUILT_IN = ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"];
/** A layout string as tmux prints it in window_layout: checksum, then cells. */
const LAYOUT_STRING = /^([0-9a-fA-F]{4}),([0-9x,{}[\]]+)$/;

/** tmux's layout checksum (layout_checksum in layout-custom.c). */
export function layoutChecksum(body: string): number {
  let sum = 0;
  for (const byte of new TextEncoder().encode(body)) {
    sum = ((sum >> 1) + ((sum & 1) << 15) + byte) & 0xffff;
  }
  return sum;
}

/**
 * The panes a layout string's body arranges: its cells (`WxH,X,Y`) less the
 * ones that split into others (followed by `{` or `[`), as tmux 3.3a's
 * layout_construct reads them.
 */
export function layoutPanes(body: string): number {
  const cells = body.match(/\d+x\d+/g)?.length ?? 0;
  const splits = body.match(/\d+x\d+,\d+,\d+[{[]/g)?.length ?? 0;
  return cells - splits;
}

/** Largest size or offset a layout string may name: resize_window's bound on window sizes. */
const MAX_CELL_NUMBER = 10_000;
/** One cell's size and offsets; a pane id may follow (tmux skips it unread). */
const CELL = /(\d+)x(\d+),(\d+),(\d+)/dg;

/** What a layout string arranges: its pane count and its top cell's size. */
export interface LayoutShape {
  panes: number;
  width: number;
  height: number;
}

/**
 * Refuses a cell number out of bounds: tmux 3.3a resizes the window to the
 * top cell without a limit (a height of 10^9 makes it allocate until it
 * dies, taking every session with it), and a zero size breaks later splits.
 */
function checkCellNumbers(body: string): void {
  for (const cell of body.matchAll(CELL)) {
    for (let group = 1; group <= 4; group++) {
      const value = Number(cell[group]);
      const at = `${cell[group]} at character ${cell.indices![group]![0] + 6}`;
      if (value > MAX_CELL_NUMBER) {
        throw new ToolError(
          `the layout string's number ${at} is over ${MAX_CELL_NUMBER}`,
          `Sizes and offsets go up to ${MAX_CELL_NUMBER}; use a layout string as list_windows reported it.`,
        );
      }
      if (group <= 2 && value < 1) {
        throw new ToolError(
          `the layout string has a cell of no width or height (${at})`,
          "Every cell needs at least one column and one row; use a layout string as list_windows reported it.",
        );
      }
    }
  }
}

/**
 * Refuses what tmux cannot take, and resolves with what a layout string
 * arranges (null for a built-in name). tmux 3.3a's select-layout crashes the
 * whole tmux server on a string that is neither a layout name nor starts
 * with a hex checksum (measured: "", "#abc", "zzzz,100x30,0,0,0"), so only
 * the names and well-formed layout strings are passed on.
 */
function checkLayout(layout: string): LayoutShape | null {
  if (BUILT_IN.includes(layout)) return null;
  const match = LAYOUT_STRING.exec(layout);
  const top = match && /^(\d+)x(\d+),\d+,\d+/.exec(match[2]);
  if (!match || !top) {
    throw new ToolError(
      "layout is neither a built-in layout name nor a layout string",
      `Use one of ${
        BUILT_IN.join(", ")
      }, or a layout string as list_windows reports it in 'layout'.`,
    );
  }
  if (parseInt(match[1], 16) !== layoutChecksum(match[2])) {
    throw new ToolError(
      "the layout string's checksum (its first four characters) does not match the rest",
      "Use a layout string exactly as list_windows reported it; an edited one needs its checksum recomputed.",
    );
  }
  checkCellNumbers(match[2]);
  return { panes: layoutPanes(match[2]), width: Number(top[1]), height: Number(top[2]) };
}

/** A window's size in cells. */
type Size = { width: number; height: number };

/** What the guard prints when the window is not the one the layout string describes. */
const MISFIT = "tmux-mcp-layout-misfit";

/**
 * The format that holds when the window has the layout's pane count and
 * size: tmux 3.3a resizes the window to the layout's top cell, and refuses
 * a string for fewer panes than the window has ("have 3 panes but need 2")
 * and silently drops cells of one for more.
 */
function fits(shape: LayoutShape): string {
  return `#{==:#{window_panes} #{window_width}x#{window_height},` +
    `${shape.panes} ${shape.width}x${shape.height}}`;
}

/** The refusal of a layout string of `shape` for `window`, which it does not describe. */
function misfit(shape: LayoutShape, window: { windowId: string; panes: number } & Size): ToolError {
  const pick = `built-in layout (${BUILT_IN.join(", ")}), which fits any window`;
  if (window.panes !== shape.panes) {
    return new ToolError(
      `the layout string is for ${
        counted(shape.panes, "pane")
      }, but window ${window.windowId} has ${counted(window.panes, "pane")}`,
      "A layout string fits only a window with as many panes as it was saved from: read this " +
        "window's current one with get_window_info ('layout'), add or remove panes first, or use a " +
        `${pick}.`,
    );
  }
  return new ToolError(
    `the layout string is for a ${shape.width}x${shape.height} window, but window ${window.windowId} is ${window.width}x${window.height}`,
    `Resize the window to ${shape.width}x${shape.height} first (resize_window), read its current ` +
      `layout with get_window_info ('layout'), or use a ${pick}.`,
  );
}

/** The select_layout tool. */
export const selectLayout = defineTool({
  name: "select_layout",
  title: "Select layout",
  description:
    "Arranges a window's panes: a layout name (tiled, even-horizontal, main-vertical...) " +
    "or a string from list_windows for the same pane count and size.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    windowId,
    layout: z.string().min(1).max(16_384).describe("Layout name or string."),
  }),
  output: z.object({ window: windowView }),
  async handler(args, ctx) {
    const shape = checkLayout(args.layout);
    const target = windowTarget(args.windowId);
    const select = ["select-layout", "-t", target, args.layout];
    // tmux checks the window right before the change, in its round trip, so
    // a pane added or a resize meanwhile counts.
    const [selected, output] = await withoutValues([args.layout], () =>
      ctx.tmux.run([
        shape === null
          ? select
          : runIf(target, fits(shape), [select], [["display-message", "-p", MISFIT]]),
        windowViewCommand(args.windowId),
      ]));
    const [window] = parseWindows(output);
    if (!window) throw noSuch("window");
    if (shape !== null && printed(selected, MISFIT)) throw misfit(shape, window);
    return { window };
  },
});
