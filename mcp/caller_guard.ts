/**
 * The caller guard of the changing tools (CONTRACT §4 caller): nothing that
 * holds this server's own pane is destroyed, and no window holding it is
 * synchronized. A target read earlier may hold the pane by now (a concurrent
 * swap_pane or move_window), so tmux checks it right before the change.
 * The input tools' guard is in input.ts.
 *
 * @module
 */

import { anyPaneWhere, runIf } from "../tmux/guard.ts";
import { ToolError } from "./errors.ts";
import type { ToolContext } from "./registry.ts";
import type { PaneRow } from "./teardown.ts";

/**
 * Refuses when `scope` (the rows of the target) holds the pane this server
 * runs in, or the pane that may be it when `TMUX` is malformed.
 */
export async function refuseCaller(
  ctx: ToolContext,
  scope: readonly Pick<PaneRow, "paneId">[],
  what: string,
): Promise<void> {
  const guarded = await ctx.caller.guardedPane(ctx.tmux);
  if (guarded && scope.some((row) => row.paneId === guarded)) throw callerRefusal(guarded, what);
}

function callerRefusal(caller: string, what: string): ToolError {
  const holds = what === `pane ${caller}` ? what + " is" : `${what} contains pane ${caller},`;
  return new ToolError(
    `${holds} the pane this server runs in; destroying it would end the agent's own terminal`,
    "Leave that target alone; kill other panes, windows or sessions instead.",
  );
}

/** What {@link unlessHoldsCaller} prints when tmux refused. */
const HOLDS_CALLER = "tmux-mcp-holds-caller";

/**
 * `then`, run only while `target` (a window, or a session when `scope` says
 * so) holds no pane that is `caller`. tmux decides right before `then`, in
 * the same round trip, so a pane moved in by a concurrent call (swap_pane,
 * move_window) is seen. Check the output with {@link refuseIfHeldCaller}.
 */
export function unlessHoldsCaller(
  caller: string | null,
  target: string,
  scope: "window" | "session",
  then: string[][],
): string[][] {
  if (!caller) return then;
  const inWindow = anyPaneWhere(`#{==:#{pane_id},${caller}}`);
  const holds = scope === "session" ? `#{W:${inWindow}}` : inWindow;
  return [runIf(target, holds, [["display-message", "-p", HOLDS_CALLER]], then)];
}

/** True when `output` (of {@link unlessHoldsCaller}'s command) says tmux refused. */
export function heldCaller(caller: string | null, output: string | undefined): boolean {
  return caller !== null && output?.split("\n")[0] === HOLDS_CALLER;
}

/**
 * Throws the caller refusal when `output` (of {@link unlessHoldsCaller}'s
 * command) says tmux refused; `what` names the target in the message.
 */
export function refuseIfHeldCaller(
  caller: string | null,
  output: string | undefined,
  what: string,
) {
  if (heldCaller(caller, output)) throw callerRefusal(caller!, what);
}
