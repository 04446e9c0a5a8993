/** `split_window`: splits a pane to make a new one beside it. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import {
  confirmDirectory,
  directoryArgs,
  environment,
  environmentArgs,
  renderStarted,
  splitDirectoryArgs,
  startDirectory,
  startDirectoryConfirmed,
  withoutValues,
} from "../domain/workspace.ts";
import { paneTarget } from "../tmux/targets.ts";
import { PANE_FORMAT, parsePanes } from "../tmux/views.ts";

const DIRECTION = {
  Above: ["-v", "-b"],
  Below: ["-v"],
  Left: ["-h", "-b"],
  Right: ["-h"],
} as const;

/** The split_window tool. */
export const splitWindow = defineTool({
  name: "split_window",
  title: "Split window",
  description: "Splits a pane; the new pane runs the default shell. The active pane stays.",
  capability: changesTmux("execute", ["change"], { processReach: "configured-process" }),
  input: z.strictObject({
    paneId: paneId,
    direction: z.enum(["Above", "Below", "Left", "Right"]).default("Below").describe(
      "Side of paneId.",
    ),
    percentage: z.int().min(1).max(99).nullish().describe("Percent of the space (default half)."),
    startDirectory,
    environment,
  }),
  output: z.object({
    pane: paneView,
    startDirectoryConfirmed,
  }),
  async handler(args, ctx) {
    const command = [
      "split-window",
      "-d",
      "-t",
      paneTarget(args.paneId),
      ...DIRECTION[args.direction],
      "-P",
      "-F",
      PANE_FORMAT,
    ];
    if (args.percentage) command.push("-l", `${args.percentage}%`);
    const directory = args.startDirectory
      ? directoryArgs(args.startDirectory)
      : splitDirectoryArgs(args.paneId);
    command.push(...directory, ...environmentArgs(args.environment));
    const output = await withoutValues(
      [args.startDirectory, ...Object.values(args.environment ?? {})],
      () => ctx.tmux.one(command),
      [[
        /no space for new pane|size missing|too small/,
        new ToolError(
          "the pane is too small to split",
          "Make room first (resize_pane, select_layout or kill_pane) or split a larger pane.",
        ),
      ]],
    );
    ctx.topologyChanged();
    const caller = await callerPane(ctx);
    const [pane] = parsePanes(output, caller);
    return await confirmDirectory(ctx, pane, args.startDirectory, caller);
  },
  render: renderStarted,
});
