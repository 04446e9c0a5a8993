/** `select_pane`: makes a pane the active pane of its window. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool, type ToolContext } from "../core/registry.ts";
import { paneId, paneView, windowId } from "../core/schemas.ts";
import { nothingToDo } from "../domain/workspace.ts";
import { flag, formatOf, int, parseRows, type Row, text } from "../tmux/format.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, type PaneView, parsePanes } from "../tmux/views.ts";

const GEOMETRY = {
  paneId: text("pane_id"),
  windowId: text("window_id"),
  index: int("pane_index"),
  active: flag("pane_active"),
  last: flag("pane_last"),
  left: int("pane_left"),
  top: int("pane_top"),
  right: int("pane_right"),
  bottom: int("pane_bottom"),
};
type Geometry = Row<typeof GEOMETRY>;
type Side = "up" | "down" | "left" | "right";

/** Cells two ranges share. */
function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0) + 1);
}

/**
 * The neighbour of `from` on `side`: panes across the one-cell border that
 * share rows (or columns) with it; past the window's edge, wrap around to the
 * farthest panes on the other side, as tmux does. The largest shared span
 * wins, then the lower index. With no neighbour, `from` itself.
 */
function neighbour(panes: Geometry[], from: Geometry, side: Side): Geometry {
  const vertical = side === "up" || side === "down";
  const span = (p: Geometry) =>
    vertical
      ? overlap(p.left, p.right, from.left, from.right)
      : overlap(p.top, p.bottom, from.top, from.bottom);
  const others = panes.filter((p) => p !== from && span(p) > 0);
  const adjacent = others.filter((p) =>
    side === "left"
      ? p.right + 2 === from.left
      : side === "right"
      ? p.left === from.right + 2
      : side === "up"
      ? p.bottom + 2 === from.top
      : p.top === from.bottom + 2
  );
  let candidates = adjacent;
  if (candidates.length === 0 && others.length > 0) {
    const edge = (p: Geometry) =>
      side === "left" ? p.right : side === "right" ? -p.left : side === "up" ? p.bottom : -p.top;
    const far = Math.max(...others.map(edge));
    candidates = others.filter((p) => edge(p) === far);
  }
  if (candidates.length === 0) return from;
  return candidates.reduce((best, p) =>
    span(p) > span(best) || (span(p) === span(best) && p.index < best.index) ? p : best
  );
}

/** The select_pane tool. */
export const selectPane = defineTool({
  name: "select_pane",
  title: "Select pane",
  description: "Makes a pane its window's active pane: paneId, or a direction from paneId or " +
    "windowId's active pane. The current window stays (select_window).",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId: paneId.nullish().describe("Pane to select, or where direction starts."),
    windowId: windowId.nullish().describe("Its active pane is where direction starts."),
    direction: z.enum(["up", "down", "left", "right", "last", "next", "previous"]).nullish()
      .describe("Relative pane; last: the previously active."),
  }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    if (!args.paneId && !args.windowId) throw nothingToDo("paneId or windowId");
    if (!args.paneId && !args.direction) throw nothingToDo("paneId or direction");
    if (args.paneId && !args.windowId && !args.direction) {
      // Nothing to look up: select and read back in one round trip.
      return { pane: await select(ctx, args.paneId) };
    }
    // A server without sessions fails list-panes -a as a no_session error.
    const output = await ctx.tmux.one(["list-panes", "-a", "-F", formatOf(GEOMETRY)]);
    // A window linked into several sessions lists its panes once per session.
    const rows = [...new Map(parseRows(GEOMETRY, output).map((r) => [r.paneId, r])).values()];
    const windowOf = args.paneId
      ? rows.find((r) => r.paneId === args.paneId)?.windowId
      : args.windowId;
    if (args.paneId && !windowOf) throw noSuch("pane");
    if (args.paneId && args.windowId && windowOf !== args.windowId) {
      throw new ToolError(
        "that pane is not in that window",
        "Give only paneId, or a paneId from list_panes for that window.",
      );
    }
    const panes = rows.filter((r) => r.windowId === windowOf).sort((a, b) => a.index - b.index);
    const from = args.paneId
      ? panes.find((r) => r.paneId === args.paneId)
      : panes.find((r) => r.active);
    if (!from) throw noSuch("window");
    let target = from;
    if (args.direction === "last") {
      const last = panes.find((r) => r.last);
      if (!last) {
        throw new ToolError(
          "the window has no previously active pane",
          "Select a pane by paneId or with a direction.",
        );
      }
      target = last;
    } else if (args.direction === "next" || args.direction === "previous") {
      const step = args.direction === "next" ? 1 : -1;
      target = panes[(panes.indexOf(from) + step + panes.length) % panes.length];
    } else if (args.direction) {
      target = neighbour(panes, from, args.direction);
    }
    return { pane: await select(ctx, target.paneId) };
  },
});

/** Selects `paneId` and reads it back in the same round trip. */
async function select(ctx: ToolContext, paneId: string): Promise<PaneView> {
  const [, view] = await ctx.tmux.run([
    ["select-pane", "-t", paneTarget(paneId)],
    listPanesCommand({ kind: "pane", paneId }),
  ]);
  const [pane] = parsePanes(view, await callerPane(ctx));
  if (!pane) throw noSuch("pane");
  return pane;
}
