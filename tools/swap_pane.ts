/** `swap_pane`: exchanges the places of two panes. */

import { z } from "zod";
import { ownPaneRefusal } from "../core/caller_guard.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { action, paneId } from "../core/schemas.ts";
import { anyPaneWhere, holdsPane, printed, runIf } from "../tmux/guard.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { getPane, listPanesCommand, parsePanes } from "../tmux/views.ts";

/** What the guard prints when tmux refused the swap. */
const INTO_SYNCED = "tmux-mcp-swap-into-synced";

/**
 * The swap, run only while it would not move `caller` (this server's own
 * pane, one of the two) into the window of `other` when synchronize-panes is
 * on there. A pane takes its options from the window it sits in, so the
 * caller's pane would then copy whatever a person types into it (the agent's
 * terminal) into that window's panes: the state set_synchronize_panes refuses
 * to create for the caller's window. tmux decides right before the swap, in
 * the same round trip; a window that already holds the caller changes nothing.
 */
function unlessIntoSynced(caller: string, other: string, swap: string[]): string[] {
  const synced = anyPaneWhere("#{synchronize-panes}");
  const holdsCaller = holdsPane(caller);
  return runIf(
    paneTarget(other),
    `#{?${holdsCaller},0,#{?${synced},1,0}}`,
    [["display-message", "-p", INTO_SYNCED]],
    [swap],
  );
}

/** The swap_pane tool. */
export const swapPane = defineTool({
  name: "swap_pane",
  title: "Swap panes",
  description:
    "Exchanges two panes' places, in one window or across windows; their programs keep " +
    "running.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId,
    targetPaneId: paneId.describe("The other pane."),
    keepZoom: z.boolean().default(false),
  }),
  output: action,
  async handler(args, ctx) {
    if (args.paneId === args.targetPaneId) {
      const pane = await getPane(ctx.tmux, args.paneId, null);
      return { changed: false, paneId: pane.paneId, windowId: pane.windowId };
    }
    const command = [
      "swap-pane",
      "-d",
      "-s",
      paneTarget(args.paneId),
      "-t",
      paneTarget(args.targetPaneId),
    ];
    if (args.keepZoom) command.push("-Z");
    const caller = await ctx.caller.guardedPane(ctx.tmux);
    const other = caller === args.paneId
      ? args.targetPaneId
      : caller === args.targetPaneId
      ? args.paneId
      : null;
    const [swapped, output] = await ctx.tmux.run([
      caller && other ? unlessIntoSynced(caller, other, command) : command,
      listPanesCommand({ kind: "pane", paneId: args.paneId }),
    ]);
    if (caller && other && printed(swapped, INTO_SYNCED)) {
      throw ownPaneRefusal(`pane ${caller}`, {
        harm:
          `swapping it with pane ${other} would move it into a window with synchronize-panes on, ` +
          "where keys typed into it (the agent's own terminal) are also typed into the window's other panes",
        hint:
          "Turn synchronization off there first (set_synchronize_panes with enabled: false), or " +
          "swap with a pane of another window.",
      });
    }
    const [pane] = parsePanes(output, null);
    if (!pane) throw noSuch("pane");
    ctx.topologyChanged();
    return { changed: true, paneId: pane.paneId, windowId: pane.windowId };
  },
});
