/** `kill_pane`: ends one pane and its process (its window closes with its last pane). */

import { z } from "zod";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { paneId } from "../mcp/schemas.ts";
import {
  cascade,
  keepOwnServerAlive,
  killedOutput,
  readRows,
  refuseCaller,
  renderKilled,
} from "../mcp/teardown.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/views.ts";

/** The kill_pane tool. */
export const killPane = defineTool({
  name: "kill_pane",
  title: "Kill pane",
  description: "Kills one pane and ends the program running in it. A window closes with its last " +
    "pane and a session with its last window; the result lists everything that went. " +
    "Refuses the pane this server runs in.",
  capability: changesTmux("teardown", ["delete"]),
  input: z.strictObject({ paneId }),
  output: killedOutput,
  async handler(args, ctx) {
    const { rows } = await readRows(ctx.tmux, ["list-panes", "-t", paneTarget(args.paneId)]);
    const own = rows.filter((row) => row.paneId === args.paneId);
    if (own.length === 0) throw noSuch("pane");
    await refuseCaller(ctx, own, `pane ${args.paneId}`);
    const killed = cascade(rows, { paneId: args.paneId });
    await ctx.tmux.run([...keepOwnServerAlive(ctx.tmux), [
      "kill-pane",
      "-t",
      paneTarget(args.paneId),
    ]]);
    ctx.topologyChanged();
    return { killed };
  },
  render: renderKilled,
});
