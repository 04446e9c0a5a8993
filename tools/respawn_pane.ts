/** `respawn_pane`: starts a pane's command again. */

import { z } from "zod";
import { refuseCallerPane } from "../core/caller_guard.ts";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import {
  confirmDirectory,
  directoryArgs,
  renderStarted,
  startDirectory,
  startDirectoryConfirmed,
  withoutValues,
} from "../domain/workspace.ts";
import { respawnSafely } from "../tmux/respawn_safety.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { getPane, listPanesCommand, parsePanes } from "../tmux/views.ts";

function stillRunning(): ToolError {
  return new ToolError(
    "the pane's program is still running",
    "Pass killFirst: true to end it and start the pane's command again, or use another pane.",
  );
}

/** The respawn_pane tool. */
export const respawnPane = defineTool({
  name: "respawn_pane",
  title: "Respawn pane",
  description: "Restarts a pane's command (usually the shell) in place, e.g. after it exited; a " +
    "running program only with killFirst.",
  capability: changesTmux("execute", ["change", "delete"], { processReach: "configured-process" }),
  input: z.strictObject({
    paneId,
    killFirst: z.boolean().default(false).describe("End a running program first (SIGHUP)."),
    startDirectory,
  }),
  output: z.object({
    pane: paneView,
    startDirectoryConfirmed,
  }),
  async handler(args, ctx) {
    await refuseCallerPane(ctx, args.paneId, {
      harm: "respawning it would end the agent's own terminal",
      hint: "Respawn another pane.",
    });
    const caller = await callerPane(ctx);
    if (!args.killFirst && !(await getPane(ctx.tmux, args.paneId, caller)).dead) {
      throw stillRunning();
    }
    const command = ["respawn-pane", "-t", paneTarget(args.paneId)];
    if (args.killFirst) command.push("-k");
    command.push(...directoryArgs(args.startDirectory));
    const [, output] = await withoutValues(
      [args.startDirectory],
      () =>
        respawnSafely(
          ctx.tmux,
          args.paneId,
          () => ctx.tmux.run([command, listPanesCommand({ kind: "pane", paneId: args.paneId })]),
        ),
      // tmux says "respawn pane failed: pane … still active" when the pane came back to life meanwhile.
      [[/still active|respawn pane failed/, stillRunning()]],
    );
    const [pane] = parsePanes(output, caller);
    if (!pane) throw noSuch("pane");
    return await confirmDirectory(ctx, pane, args.startDirectory, caller);
  },
  render: renderStarted,
});
