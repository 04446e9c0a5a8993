/** `set_history_limit`: how many scrollback lines a session's new panes keep. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { action, session } from "../core/schemas.ts";
import { withoutValues } from "../domain/workspace.ts";
import { sessionWindowTarget } from "../tmux/targets.ts";

const FORMAT = "#{session_id} #{history-limit}";

/** The set_history_limit tool. */
export const setHistoryLimit = defineTool({
  name: "set_history_limit",
  title: "Set history limit",
  description: "Sets a session's history-limit (scrollback lines); only panes created afterwards " +
    "get it.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    session,
    lines: z.int().min(0).max(2_000_000),
  }),
  output: action,
  async handler(args, ctx) {
    // Both commands take a pane target, where a name needs the "=name:" form.
    const target = sessionWindowTarget(args.session);
    // set-option fails for a missing session, so the reads around it are of a real one.
    const [before, , after] = await withoutValues([args.session], () =>
      ctx.tmux.run([
        ["display-message", "-p", "-t", target, FORMAT],
        ["set-option", "-t", target, "history-limit", String(args.lines)],
        ["display-message", "-p", "-t", target, FORMAT],
      ]));
    const [sessionId, value] = after.split(" ");
    return { changed: before.split(" ")[1] !== value, sessionId };
  },
  render: (result) =>
    `history-limit of session ${result.sessionId} ${
      result.changed ? "set" : "was already at that value"
    }. It applies to panes created from now on; existing panes keep their limit.`,
});
