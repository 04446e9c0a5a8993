/** `move_window`: moves a window to another index and/or session. */

import { z } from "zod";
import { ToolError } from "../mcp/errors.ts";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { action, session, windowId } from "../mcp/schemas.ts";
import { readRows, refuseCaller } from "../mcp/teardown.ts";
import { nothingToDo, withoutValues } from "../mcp/workspace.ts";
import { formatOf, int, parseRows, text } from "../tmux/format.ts";
import { windowTarget } from "../tmux/targets.ts";
import {
  findSession,
  listSessionsCommand,
  noSuch,
  parseSessions,
  parseWindows,
  windowViewCommand,
} from "../tmux/views.ts";

const ROW = {
  sessionId: text("session_id"),
  windowId: text("window_id"),
  index: int("window_index"),
};

function occupied(windowId: string): ToolError {
  return new ToolError(
    `the destination index already holds window ${windowId}`,
    "Pick a free index, or pass replaceExisting: true to put this window there and kill that one.",
  );
}

/** The move_window tool. */
export const moveWindow = defineTool({
  name: "move_window",
  title: "Move window",
  description:
    "Moves a window to another index of its session, or into another session (at destinationIndex, or " +
    "else the first free index). The current window of each session stays as it is. An occupied index is " +
    "refused unless replaceExisting is true, which kills the window there (never the one holding this " +
    "server's own pane). Moving a session's last window away ends that session.",
  capability: changesTmux("manage", ["change", "delete"]),
  input: z.strictObject({
    windowId,
    destinationSession: session.nullish().describe(
      "The session to move into (id or exact name). Omit to stay in the window's session.",
    ),
    destinationIndex: z.int().min(0).max(100_000).nullish().describe(
      "The window index to move to. Omit for the first free index of the destination session.",
    ),
    replaceExisting: z.boolean().default(false).describe(
      "Kill the window already at destinationIndex instead of refusing.",
    ),
  }),
  output: action,
  async handler(args, ctx) {
    const index = args.destinationIndex ?? null;
    if (!args.destinationSession && index === null) {
      throw nothingToDo("destinationSession, destinationIndex or both");
    }
    const [windowOut, sessionsOut, rowsOut] = await ctx.tmux.run([
      windowViewCommand(args.windowId),
      listSessionsCommand(),
      ["list-windows", "-a", "-F", formatOf(ROW)],
    ]);
    const [source] = parseWindows(windowOut);
    if (!source) throw noSuch("window");
    const destination = args.destinationSession
      ? findSession(parseSessions(sessionsOut), args.destinationSession).sessionId
      : source.sessionId;
    const rows = parseRows(ROW, rowsOut).filter((row) => row.sessionId === destination);
    const unchanged = { changed: false, windowId: args.windowId, sessionId: destination };
    if (index === null && rows.some((row) => row.windowId === args.windowId)) return unchanged;
    const occupant = index === null ? undefined : rows.find((row) => row.index === index);
    if (occupant?.windowId === args.windowId) return unchanged;
    const command = ["move-window", "-d", "-s", windowTarget(args.windowId)];
    if (occupant) {
      if (!args.replaceExisting) throw occupied(occupant.windowId);
      const { rows: panes } = await readRows(ctx.tmux, ["list-panes", "-t", occupant.windowId]);
      await refuseCaller(
        ctx,
        panes.filter((row) => row.windowId === occupant.windowId),
        `window ${occupant.windowId} (at the destination index)`,
      );
      command.push("-k");
    }
    command.push("-t", `${destination}:${index ?? ""}`);
    const [, after] = await withoutValues(
      [],
      () => ctx.tmux.run([command, windowViewCommand(args.windowId)]),
      [[
        /index in use/,
        new ToolError(
          "another window took that index while the window was being moved",
          "List the session's windows (list_windows) and pick a free index.",
        ),
      ]],
    );
    const moved = parseWindows(after).find((w) => w.sessionId === destination) ??
      parseWindows(after)[0];
    if (!moved) throw noSuch("window");
    ctx.topologyChanged();
    return { changed: true, windowId: moved.windowId, sessionId: moved.sessionId };
  },
});
