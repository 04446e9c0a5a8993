/** `create_session`: starts a new detached session with one window and pane. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneView, sessionView, windowView } from "../core/schemas.ts";
import {
  confirmDirectory,
  directoryArgs,
  environment,
  environmentArgs,
  exitedIfGone,
  nameText,
  renderStarted,
  sessionName,
  splitRecords,
  startDirectory,
  startDirectoryConfirmed,
  withoutValues,
} from "../domain/workspace.ts";
import { isOwnSocket } from "../tmux/client.ts";
import { escapeFormat } from "../tmux/format.ts";
import {
  PANE_FORMAT,
  parsePanes,
  parseSessions,
  parseWindows,
  SESSION_FORMAT,
  WINDOW_FORMAT,
} from "../tmux/views.ts";

const cells = z.int().min(1).max(10_000).nullish();

/** The create_session tool. */
export const createSession = defineTool({
  name: "create_session",
  title: "Create session",
  description: "Starts a detached session running the default shell (and this server's own tmux " +
    "server if needed).",
  capability: changesTmux("execute", ["change"], { processReach: "configured-process" }),
  input: z.strictObject({
    name: sessionName().nullish().describe("Omit for tmux's next number."),
    windowName: nameText().nullish(),
    startDirectory,
    width: cells.describe("Columns (default 80)."),
    height: cells.describe("Rows (default 24)."),
    environment,
  }),
  output: z.object({
    session: sessionView,
    window: windowView,
    pane: paneView,
    startDirectoryConfirmed,
  }),
  async handler(args, ctx) {
    // A restarted own server must outlive its last session again.
    if (isOwnSocket(ctx.tmux.socket)) await ctx.tmux.ensureOwnServer();
    const command = ["new-session", "-d", "-P", "-F", SESSION_FORMAT + WINDOW_FORMAT + PANE_FORMAT];
    if (args.name) command.push("-s", escapeFormat(args.name));
    if (args.windowName) command.push("-n", escapeFormat(args.windowName));
    if (args.width) command.push("-x", String(args.width));
    if (args.height) command.push("-y", String(args.height));
    command.push(...directoryArgs(args.startDirectory), ...environmentArgs(args.environment));
    const output = await withoutValues(
      [args.name, args.windowName, args.startDirectory, ...Object.values(args.environment ?? {})],
      () => ctx.tmux.one(command),
      [[
        /duplicate session/,
        new ToolError(
          "a session with that name already exists (tmux stores ':' and '.' as '_')",
          "Pick another name, or use the existing session (list_sessions).",
        ),
      ]],
    );
    ctx.topologyChanged();
    const [s, w, p] = splitRecords(output, 3);
    const caller = await callerPane(ctx);
    const [session] = parseSessions(s);
    const names = Object.keys(args.environment ?? {});
    if (names.length > 0) {
      // new-session -e also stores the variables in the session's environment,
      // where later windows would inherit them and show-environment would list
      // them; the first shell already has them, so take them out again.
      await ctx.tmux.run(
        names.map((name) => ["set-environment", "-t", session.sessionId, "-u", name]),
      ).catch((error) => {
        throw exitedIfGone(error);
      });
    }
    const [window] = parseWindows(w);
    const [pane] = parsePanes(p, caller);
    return { session, window, ...await confirmDirectory(ctx, pane, args.startDirectory, caller) };
  },
  render: renderStarted,
});
