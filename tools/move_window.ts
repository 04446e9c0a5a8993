/** `move_window`: moves a window to another index and/or session. */

import { z } from "zod";
import { ToolError } from "../mcp/errors.ts";
import { changesTmux, defineTool } from "../mcp/registry.ts";
import { action, optionalSession, windowId } from "../mcp/schemas.ts";
import {
  refuseIfEndedCallerSession,
  refuseIfHeldCaller,
  unlessEndsCallerSession,
  unlessHoldsCaller,
} from "../mcp/caller_guard.ts";
import { nothingToDo, withoutValues } from "../mcp/workspace.ts";
import { formatOf, int, parseRows, text } from "../tmux/format.ts";
import { linkTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import {
  findSession,
  listSessionsCommand,
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
    "Moves a window to another index or session; replaceExisting kills a window there. A " +
    "session left without windows ends.",
  capability: changesTmux("manage", ["change", "delete"]),
  input: z.strictObject({
    windowId,
    destinationSession: optionalSession(
      "Omit to stay in its session.",
    ),
    destinationIndex: z.int().min(0).max(100_000).nullish().describe(
      "Index as list_windows shows it; omit for the first free one.",
    ),
    replaceExisting: z.boolean().default(false).describe(
      "Kill the window at destinationIndex instead of refusing.",
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
    const inDestination = rows.some((row) => row.windowId === args.windowId);
    if (index === null && inDestination) return unchanged;
    const occupant = index === null ? undefined : rows.find((row) => row.index === index);
    if (occupant?.windowId === args.windowId) return unchanged;
    // A window linked into several sessions has one link in each, and a bare
    // "@N" lets tmux pick which one moves (often another session's, which then
    // loses the window while the destination holds it twice): name the link,
    // the destination's own when it holds the window, else the link in the
    // first session tmux lists it in.
    const from = inDestination ? destination : source.sessionId;
    const command = ["move-window", "-d", "-s", linkTarget(from, args.windowId)];
    if (occupant && !args.replaceExisting) throw occupied(occupant.windowId);
    if (occupant) command.push("-k");
    command.push("-t", `${destination}:${index ?? ""}`);
    // The occupant -k kills may hold this server's pane by now (a concurrent
    // swap_pane), and a window leaving its session may be the last one of the
    // session holding that pane: tmux checks both right before the move, in
    // its round trip.
    const caller = await ctx.caller.guardedPane(ctx.tmux);
    const replacing = unlessHoldsCaller(
      occupant ? caller : null,
      `${destination}:${index}`,
      "window",
      [command],
    );
    const [move] = from === destination
      ? replacing
      : unlessEndsCallerSession(caller, linkTarget(from, args.windowId), replacing);
    const [moveOut, after] = await withoutValues(
      [],
      () => ctx.tmux.run([move, windowViewCommand(args.windowId)]),
      [[
        /index in use/,
        new ToolError(
          "another window took that index while the window was being moved",
          "List the session's windows (list_windows) and pick a free index.",
        ),
      ]],
    );
    refuseIfEndedCallerSession(caller, moveOut, args.windowId, from);
    if (occupant) {
      refuseIfHeldCaller(caller, moveOut, `window ${occupant.windowId} (at the destination index)`);
    }
    const windows = parseWindows(after);
    if (windows.length === 0) throw noSuch("window");
    const moved = windows.find((w) =>
      w.sessionId === destination && (index === null || w.index === index)
    );
    // A command inside tmux's check reports no failure of its own: the window
    // must be where it was sent.
    if (!moved) {
      throw new ToolError(
        `tmux did not move window ${args.windowId}`,
        "List the windows (list_windows) to see where it is, and try again.",
      );
    }
    ctx.topologyChanged();
    return { changed: true, windowId: moved.windowId, sessionId: moved.sessionId };
  },
});
