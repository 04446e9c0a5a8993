/** `get_pane_info`: one pane's view. */

import { z } from "zod";
import { callerPane } from "../core/panes.ts";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import { getPane } from "../tmux/views.ts";

/** The get_pane_info tool. */
export const getPaneInfo = defineTool({
  name: "get_pane_info",
  title: "Get pane info",
  description: "One pane: ids, size, title, state, command, directory, pid, history size.",
  capability: readsMetadata(),
  input: z.strictObject({ paneId }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    return { pane: await getPane(ctx.tmux, args.paneId, await callerPane(ctx)) };
  },
});
