/** `select_window`: makes a window its session's current window. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { changesTmux, defineTool, type ToolContext } from "../core/registry.ts";
import { optionalSession, windowId, windowView } from "../core/schemas.ts";
import { nothingToDo } from "../domain/workspace.ts";
import { flag, formatOf, int, parseRows, text } from "../tmux/format.ts";
import { linkTarget, windowTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import {
  findSession,
  listSessionsCommand,
  parseSessions,
  parseWindows,
  type WindowView,
  windowViewCommand,
} from "../tmux/views.ts";

const ROW = {
  sessionId: text("session_id"),
  windowId: text("window_id"),
  index: int("window_index"),
  active: flag("window_active"),
  last: flag("window_last_flag"),
};

/** The select_window tool. */
export const selectWindow = defineTool({
  name: "select_window",
  title: "Select window",
  description:
    "Makes a window its session's current one: windowId, or a direction from it or from " +
    "the session's current window.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    windowId: windowId.nullish().describe("Window to select, or where direction starts."),
    session: optionalSession(
      "Its current window is where direction starts.",
    ),
    direction: z.enum(["next", "previous", "last"]).nullish().describe(
      "Relative window; last: the previously current.",
    ),
  }),
  output: z.object({ window: windowView }),
  async handler(args, ctx) {
    if (!args.windowId && !args.session) throw nothingToDo("windowId or session");
    if (!args.windowId && !args.direction) throw nothingToDo("windowId or direction");
    if (args.windowId && !args.session && !args.direction) {
      // Nothing to look up: select and read back in one round trip.
      return { window: await select(ctx, args.windowId) };
    }
    // A server without sessions fails list-windows -a as a no_session error.
    const [sessionsOut, windowsOut] = await ctx.tmux.run([
      listSessionsCommand(),
      ["list-windows", "-a", "-F", formatOf(ROW)],
    ]);
    const rows = parseRows(ROW, windowsOut);
    const sessionId = args.session
      ? findSession(parseSessions(sessionsOut), args.session).sessionId
      : rows.find((row) => row.windowId === args.windowId)?.sessionId;
    if (!sessionId) throw noSuch("window");
    const windows = rows.filter((row) => row.sessionId === sessionId)
      .sort((a, b) => a.index - b.index);
    const from = args.windowId
      ? windows.find((row) => row.windowId === args.windowId)
      : windows.find((row) => row.active);
    if (!from) {
      throw new ToolError(
        "that window is not in that session",
        "Give only windowId, or a windowId from list_windows for that session.",
      );
    }
    let target = from.windowId;
    if (args.direction === "last") {
      const last = windows.find((row) => row.last);
      if (!last) {
        throw new ToolError(
          "the session has no previously selected window",
          "Select a window by windowId or with next/previous.",
        );
      }
      target = last.windowId;
    } else if (args.direction) {
      const at = windows.indexOf(from);
      const step = args.direction === "next" ? 1 : -1;
      target = windows[(at + step + windows.length) % windows.length].windowId;
    }
    return { window: await select(ctx, target, sessionId) };
  },
});

/**
 * Selects `windowId` and reads it back in the same round trip, as seen from
 * `sessionId` (a linked window shows once per session), else from a session
 * where it is now the current window.
 */
async function select(ctx: ToolContext, windowId: string, sessionId?: string): Promise<WindowView> {
  // A bare "@N" of a linked window lets tmux pick the session it is selected
  // in: with a session known, select it there.
  const target = sessionId ? linkTarget(sessionId, windowId) : windowTarget(windowId);
  const [, output] = await ctx.tmux.run([
    ["select-window", "-t", target],
    windowViewCommand(windowId),
  ]);
  const windows = parseWindows(output);
  // Without a session, the one tmux chose is where the window is now current.
  const window = sessionId
    ? windows.find((row) => row.sessionId === sessionId)
    : windows.find((row) => row.active) ?? windows[0];
  if (!window) throw noSuch("window");
  return window;
}
