/** `move_window`: moves a window to another index and/or session. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { changesTmux, defineTool, type ToolContext } from "../core/registry.ts";
import { action, optionalSession, windowId } from "../core/schemas.ts";
import {
  refuseIfEndedCallerSession,
  refuseIfHeldCaller,
  unlessEndsCallerSession,
  unlessHoldsCaller,
} from "../core/caller_guard.ts";
import { nothingToDo, withoutValues } from "../domain/workspace.ts";
import { formatOf, int, parseRows, type Row, text } from "../tmux/format.ts";
import { linkTarget } from "../tmux/targets.ts";
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
    const plan = await planMove(ctx, args.windowId, args.destinationSession, index);
    if (plan.kind === "unchanged") return plan.result;
    if (plan.occupant && !args.replaceExisting) throw occupied(plan.occupant.windowId);
    const moved = await runMove(ctx, args.windowId, plan);
    ctx.topologyChanged();
    return { changed: true, windowId: moved.windowId, sessionId: moved.sessionId };
  },
});

/** A move's result: where the window is. */
interface Changed {
  changed: boolean;
  windowId: string;
  sessionId: string;
}

/** Where a window goes; `from` is the session whose link moves. */
interface Move {
  kind: "move";
  destination: string;
  index: number | null;
  occupant: Row<typeof ROW> | undefined;
  from: string;
}

/** Reads where the window is and decides where it goes, or that it is there already. */
async function planMove(
  ctx: ToolContext,
  windowId: string,
  destinationSession: string | null | undefined,
  index: number | null,
): Promise<Move | { kind: "unchanged"; result: Changed }> {
  const [windowOut, sessionsOut, rowsOut] = await ctx.tmux.run([
    windowViewCommand(windowId),
    listSessionsCommand(),
    ["list-windows", "-a", "-F", formatOf(ROW)],
  ]);
  const [source] = parseWindows(windowOut);
  if (!source) throw noSuch("window");
  const destination = destinationSession
    ? findSession(parseSessions(sessionsOut), destinationSession).sessionId
    : source.sessionId;
  const rows = parseRows(ROW, rowsOut).filter((row) => row.sessionId === destination);
  const unchanged = {
    kind: "unchanged" as const,
    result: { changed: false, windowId, sessionId: destination },
  };
  const inDestination = rows.some((row) => row.windowId === windowId);
  if (index === null && inDestination) return unchanged;
  const occupant = index === null ? undefined : rows.find((row) => row.index === index);
  if (occupant?.windowId === windowId) return unchanged;
  // A window linked into several sessions has one link in each, and a bare
  // "@N" lets tmux pick which one moves (often another session's, which then
  // loses the window while the destination holds it twice): name the link,
  // the destination's own when it holds the window, else the link in the
  // first session tmux lists it in.
  const from = inDestination ? destination : source.sessionId;
  return { kind: "move", destination, index, occupant, from };
}

/** Moves the window as `plan` says; resolves with the window where it landed. */
async function runMove(ctx: ToolContext, windowId: string, plan: Move): Promise<WindowView> {
  const { destination, index, occupant, from } = plan;
  const command = ["move-window", "-d", "-s", linkTarget(from, windowId)];
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
    : unlessEndsCallerSession(caller, linkTarget(from, windowId), replacing);
  const [moveOut, after] = await withoutValues(
    [],
    () => ctx.tmux.run([move, windowViewCommand(windowId)]),
    [[
      /index in use/,
      new ToolError(
        "another window took that index while the window was being moved",
        "List the session's windows (list_windows) and pick a free index.",
      ),
    ]],
  );
  refuseIfEndedCallerSession(caller, moveOut, windowId, from);
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
      `tmux did not move window ${windowId}`,
      "List the windows (list_windows) to see where it is, and try again.",
    );
  }
  return moved;
}
