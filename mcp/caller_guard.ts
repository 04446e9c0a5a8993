/**
 * The caller guard of the changing tools (CONTRACT §4 caller): nothing that
 * holds this server's own pane is destroyed, and no window holding it is
 * synchronized. A target read earlier may hold the pane by now (a concurrent
 * swap_pane or move_window), so tmux checks it right before the change.
 * The input tools' guard, which also needs tmux's view of the pane, is in
 * input.ts; its refusal of the own pane is {@link ownPaneRefusal}.
 *
 * @module
 */

import { anyPaneWhere, runIf } from "../tmux/guard.ts";
import { ToolError } from "./errors.ts";
import type { ToolContext } from "./registry.ts";

/** What destroying a target that holds the caller's pane would do, and what to do instead. */
const DESTROYS: Harm = {
  harm: "destroying it would end the agent's own terminal",
  hint: "Leave that target alone; kill other panes, windows or sessions instead.",
};

/** What a change to the caller's pane would do to the agent, and what to do instead. */
export interface Harm {
  /** The consequence, after "the pane this server runs in; ". */
  harm: string;
  /** What the agent can do instead. */
  hint: string;
}

/** The refusal of acting on `pane` (given as `pane %N`), the pane this server runs in. */
export function ownPaneRefusal(pane: string, { harm, hint }: Harm): ToolError {
  return new ToolError(`${pane} is the pane this server runs in; ${harm}`, hint);
}

/**
 * Refuses when `paneId` is the pane this server runs in, or the pane that
 * may be it when `TMUX` is malformed; `harm` says what the tool would do to it.
 */
export async function refuseCallerPane(
  ctx: ToolContext,
  paneId: string,
  harm: Harm = DESTROYS,
): Promise<void> {
  if (paneId === await ctx.caller.guardedPane(ctx.tmux)) {
    throw ownPaneRefusal(`pane ${paneId}`, harm);
  }
}

/** The refusal of destroying `what` (a window or session), which holds `caller`. */
function holdsCallerRefusal(caller: string, what: string): ToolError {
  return new ToolError(
    `${what} contains pane ${caller}, the pane this server runs in; ${DESTROYS.harm}`,
    DESTROYS.hint,
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
  if (heldCaller(caller, output)) throw holdsCallerRefusal(caller!, what);
}
