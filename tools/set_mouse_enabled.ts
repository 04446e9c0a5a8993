/** `set_mouse_enabled`: switches tmux mouse support on or off. */

import { z } from "zod";
import { changesTmux, defineTool } from "../core/registry.ts";
import { action, optionalSession } from "../core/schemas.ts";
import { withoutValues } from "../domain/workspace.ts";
import { sessionWindowTarget } from "../tmux/targets.ts";

/** The set_mouse_enabled tool. */
export const setMouseEnabled = defineTool({
  name: "set_mouse_enabled",
  title: "Set mouse enabled",
  description: "Turns tmux mouse support on or off, for one session or globally.",
  capability: changesTmux("manage", ["change"], { amplifiesFutureInput: true }),
  input: z.strictObject({
    enabled: z.boolean(),
    session: optionalSession("Omit for the global value."),
  }),
  output: action,
  async handler(args, ctx) {
    const value = args.enabled ? "on" : "off";
    if (!args.session) {
      const [before, , after] = await ctx.tmux.run([
        ["show-options", "-gv", "mouse"],
        ["set-option", "-g", "mouse", value],
        ["show-options", "-gv", "mouse"],
      ]);
      return { changed: before !== after };
    }
    // Both commands take a pane target, where a name needs the "=name:" form.
    const target = sessionWindowTarget(args.session);
    // set-option fails for a missing session, so the reads around it are of a real one.
    const [before, , after] = await withoutValues([args.session], () =>
      ctx.tmux.run([
        ["display-message", "-p", "-t", target, "#{session_id} #{mouse}"],
        ["set-option", "-t", target, "mouse", value],
        ["display-message", "-p", "-t", target, "#{session_id} #{mouse}"],
      ]));
    const [sessionId, now] = after.split(" ");
    return { changed: before.split(" ")[1] !== now, sessionId };
  },
});
