/** `select_layout`: arranges a window's panes by a built-in layout or a layout string. */

import { z } from "zod";
import { ToolError } from "../mcp/errors.ts";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { windowId, windowView } from "../mcp/schemas.ts";
import { withoutValues } from "../mcp/workspace.ts";
import { printed, runIf } from "../tmux/guard.ts";
import { windowTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { parseWindows, windowViewCommand } from "../tmux/views.ts";
import { counted } from "../mcp/words.ts";

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

/**
 * Refuses what tmux cannot take, and resolves with the number of panes a
 * layout string arranges (null for a built-in name). tmux 3.3a's
 * select-layout crashes the whole tmux server on a string that is neither a
 * layout name nor starts with a hex checksum (measured: "", "#abc",
 * "zzzz,100x30,0,0,0"), so only the names and well-formed layout strings are
 * passed on.
 */
function checkLayout(layout: string): number | null {
  if (BUILT_IN.includes(layout)) return null;
  const match = LAYOUT_STRING.exec(layout);
  if (!match) {
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
  // tmux applies cells of no width or height (measured on a one-pane
  // window: it then reads 0x0, and every later split fails for want of space).
  for (const [, width, height] of match[2].matchAll(/(\d+)x(\d+)/g)) {
    if (Number(width) < 1 || Number(height) < 1) {
      throw new ToolError(
        "the layout string has a cell of no width or height",
        "Every cell needs at least one column and one row; use a layout string as list_windows reported it.",
      );
    }
  }
  return layoutPanes(match[2]);
}

/** What the guard prints when the window's pane count is not the layout string's. */
const OTHER_COUNT = "tmux-mcp-layout-other-count";

/** The refusal of a layout string for `cells` panes on `windowId`, which has `panes`. */
function otherCount(windowId: string, cells: number, panes: number): ToolError {
  return new ToolError(
    `the layout string is for ${counted(cells, "pane")}, but window ${windowId} has ${
      counted(panes, "pane")
    }`,
    "A layout string fits only a window with as many panes as it was saved from: read this " +
      "window's current one with get_window_info ('layout'), add or remove panes first, or use a " +
      `built-in layout (${BUILT_IN.join(", ")}), which fits any number of panes.`,
  );
}

/** The select_layout tool. */
export const selectLayout = defineTool({
  name: "select_layout",
  title: "Select layout",
  description:
    "Arranges a window's panes: a built-in layout (even-horizontal, even-vertical, main-horizontal, " +
    "main-vertical, tiled) or a layout string saved earlier from list_windows' 'layout' (it must be " +
    "for as many panes as the window has, else it is refused). Returns the window with its new layout " +
    "read back.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    windowId,
    layout: z.string().min(1).max(16_384).describe(
      "A built-in layout name, or a layout string such as list_windows reports.",
    ),
  }),
  output: z.object({ window: windowView }),
  async handler(args, ctx) {
    const cells = checkLayout(args.layout);
    const target = windowTarget(args.windowId);
    const select = ["select-layout", "-t", target, args.layout];
    // tmux 3.3a refuses a string for fewer panes than the window has ("have 3
    // panes but need 2") and silently drops cells of one for more, so the
    // window would not get the layout asked for. tmux compares the counts
    // right before the change, in its round trip, so a pane added meanwhile counts.
    const [selected, output] = await withoutValues([args.layout], () =>
      ctx.tmux.run([
        cells === null ? select : runIf(target, `#{==:#{window_panes},${cells}}`, [select], [[
          "display-message",
          "-p",
          OTHER_COUNT,
        ]]),
        windowViewCommand(args.windowId),
      ]));
    const [window] = parseWindows(output);
    if (!window) throw noSuch("window");
    if (cells !== null && printed(selected, OTHER_COUNT)) {
      throw otherCount(window.windowId, cells, window.panes);
    }
    return { window };
  },
});
