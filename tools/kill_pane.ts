/** `kill_pane`: ends one pane and its process (its window closes with its last pane). */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId } from "../core/schemas.ts";
import { refuseCallerPane } from "../core/caller_guard.ts";
import {
  cascade,
  keepOwnServerAlive,
  killedOutput,
  readRows,
  renderKilled,
} from "../domain/teardown.ts";
import { paneTarget } from "../tmux/targets.ts";

/** The kill_pane tool. */
export const killPane = defineTool({
  name: "kill_pane",
  title: "Kill pane",
  description: "Kills a pane and its program; a window closes with its last pane, a session with " +
    "its last window.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ paneId }),
  output: killedOutput,
  async handler(args, ctx) {
    await refuseCallerPane(ctx, args.paneId);
    const target = paneTarget(args.paneId);
    // The rows are read right before the kill, in its round trip: what went is what was there.
    const { rows } = await readRows(ctx.tmux, ["list-panes", "-t", target], [
      ...keepOwnServerAlive(ctx.tmux),
      ["kill-pane", "-t", target],
    ]);
    const killed = cascade(rows, { paneId: args.paneId });
    ctx.topologyChanged();
    return { killed };
  },
  render: renderKilled,
});
