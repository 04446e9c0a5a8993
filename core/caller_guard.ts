/**
 * The caller guard of the changing tools (docs/behaviour.md#safety-guards): nothing that
 * holds this server's own pane is destroyed, and no window holding it is
 * synchronized. A target read earlier may hold the pane by now (a concurrent
 * swap_pane or move_window), so tmux checks it right before the change.
 * The input tools' guard, which also needs tmux's view of the pane, is in
 * input.ts; its refusal of the own pane is {@link ownPaneRefusal}.
 *
 * @module
 */

import { holdsPane, printed, runIf } from "../tmux/guard.ts";
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

/** The refusal of acting on `what` (a window or session), which holds `caller`; `harm` says what it would do. */
function holdsCallerRefusal(
  caller: string,
  what: string,
  { harm, hint }: Harm = DESTROYS,
): ToolError {
  return new ToolError(
    `${what} contains pane ${caller}, the pane this server runs in; ${harm}`,
    hint,
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
  const inWindow = holdsPane(caller);
  const holds = scope === "session" ? `#{W:${inWindow}}` : inWindow;
  return [runIf(target, holds, [["display-message", "-p", HOLDS_CALLER]], then)];
}

/** True when `output` (of {@link unlessHoldsCaller}'s command) says tmux refused. */
export function heldCaller(caller: string | null, output: string | undefined): boolean {
  return caller !== null && printed(output, HOLDS_CALLER);
}

/**
 * Throws the caller refusal when `output` (of {@link unlessHoldsCaller}'s
 * command) says tmux refused; `what` names the target in the message, and
 * `harm` what the change would do (by default: end the agent's terminal).
 */
export function refuseIfHeldCaller(
  caller: string | null,
  output: string | undefined,
  what: string,
  harm: Harm = DESTROYS,
) {
  if (heldCaller(caller, output)) throw holdsCallerRefusal(caller!, what, harm);
}

/**
 * What ending a session would do when the caller's pane lives on in another
 * session that shows its window (a session group, a linked window): clients
 * attached to the ended session lose it, and the one a person watches the
 * agent through may be among them.
 */
export const DETACHES: Harm = {
  harm: "its window is also in another session (a session group or a linked window), so the pane " +
    "would live on there, but ending this session would detach a client attached to it (such as " +
    "the terminal a person watches the agent in) or switch it to another session",
  hint: "Leave that session alone, or ask the person to end it (tmux kill-session) if nobody " +
    "watches through it; kill other sessions instead.",
};

/** What {@link unlessEndsCallerSession} prints when tmux refused. */
const ENDS_CALLER_SESSION = "tmux-mcp-ends-caller-session";

/**
 * `then` (a move of the window link `link`, `$S:@N`, out of its session),
 * run only unless that window is the session's last and holds `caller`:
 * the move would end the session, and a client attached to it (a person
 * watching the agent's terminal) would be detached or switched away, even
 * though the pane itself lives on where the window goes. tmux decides right
 * before `then`, in the same round trip. Check the output with
 * {@link refuseIfEndedCallerSession}.
 */
export function unlessEndsCallerSession(
  caller: string | null,
  link: string,
  then: string[][],
): string[][] {
  if (!caller) return then;
  const last = `#{&&:#{==:#{session_windows},1},${holdsPane(caller)}}`;
  return [runIf(link, last, [["display-message", "-p", ENDS_CALLER_SESSION]], then)];
}

/**
 * Throws the refusal when `output` (of {@link unlessEndsCallerSession}'s
 * command) says tmux refused; `windowId` and `sessionId` name the window and
 * the session it would have ended.
 */
export function refuseIfEndedCallerSession(
  caller: string | null,
  output: string | undefined,
  windowId: string,
  sessionId: string,
): void {
  if (caller === null || !printed(output, ENDS_CALLER_SESSION)) return;
  throw holdsCallerRefusal(caller, `window ${windowId}, the last window of session ${sessionId},`, {
    harm: "moving it away would end that session, and a client attached to it (such as the " +
      "terminal a person watches the agent in) would be detached or switched to another session",
    hint: "Create another window in that session first (create_window), then move this one; or " +
      "leave it where it is.",
  });
}
