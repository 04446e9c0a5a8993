/** `create_window`: opens a new window in a session. */

import { isNoServer } from "../tmux/errors.ts";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool, type ToolContext } from "../core/registry.ts";
import { optionalSession, paneView, windowView } from "../core/schemas.ts";
import {
  confirmDirectory,
  directoryArgs,
  environment,
  environmentArgs,
  nameText,
  renderStarted,
  SESSION_DIRECTORY_ARGS,
  splitRecords,
  startDirectory,
  startDirectoryConfirmed,
  withoutValues,
} from "../domain/workspace.ts";
import { escapeFormat } from "../tmux/format.ts";
import { sessionWindowTarget } from "../tmux/targets.ts";
import { PANE_FORMAT, parsePanes, parseWindows, WINDOW_FORMAT } from "../tmux/views.ts";

/** The session a window goes to when none is named: the caller's, else the first. */
async function defaultSession(ctx: ToolContext): Promise<string> {
  const own = await callerPane(ctx);
  let output = "";
  try {
    output = own
      ? await ctx.tmux.one([
        "list-panes",
        "-a",
        "-f",
        `#{==:#{pane_id},${own}}`,
        "-F",
        "#{session_id}",
      ])
      : await ctx.tmux.one(["list-sessions", "-F", "#{session_id}"]);
  } catch (error) {
    if (!isNoServer(error)) throw error;
  }
  const first = output.split("\n")[0];
  if (!first) {
    throw new ToolError(
      `no session on ${ctx.tmux.label} to open a window in`,
      "Create a session first (create_session) or name one with session.",
    );
  }
  return first;
}

/** The create_window tool. */
export const createWindow = defineTool({
  name: "create_window",
  title: "Create window",
  description: "Opens a window running the default shell, without making it current.",
  capability: changesTmux("execute", ["change"], { processReach: "configured-process" }),
  input: z.strictObject({
    session: optionalSession(
      "Omit: your own session, else the first.",
    ),
    name: nameText().nullish().describe("Window name."),
    startDirectory,
    environment,
  }),
  output: z.object({
    window: windowView,
    pane: paneView,
    startDirectoryConfirmed,
  }),
  async handler(args, ctx) {
    const target = sessionWindowTarget(args.session ?? await defaultSession(ctx));
    const command = ["new-window", "-d", "-t", target, "-P", "-F", WINDOW_FORMAT + PANE_FORMAT];
    if (args.name) command.push("-n", escapeFormat(args.name));
    const directory = args.startDirectory
      ? directoryArgs(args.startDirectory)
      : SESSION_DIRECTORY_ARGS;
    command.push(...directory, ...environmentArgs(args.environment));
    const output = await withoutValues(
      [args.name, args.startDirectory, ...Object.values(args.environment ?? {})],
      () => ctx.tmux.one(command),
    );
    ctx.topologyChanged();
    const [w, p] = splitRecords(output, 2);
    const caller = await callerPane(ctx);
    const [window] = parseWindows(w);
    const [pane] = parsePanes(p, caller);
    return { window, ...await confirmDirectory(ctx, pane, args.startDirectory, caller) };
  },
  render: renderStarted,
});
