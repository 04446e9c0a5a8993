/**
 * What the teardown tools share: which sessions, windows and panes a kill
 * takes with it, the kill that tmux refuses when the target holds this
 * server's own pane (see caller_guard.ts), and keeping the own tmux server alive.
 *
 * @module
 */

import { z } from "zod";
import { isOwnSocket, type Tmux } from "../tmux/client.ts";
import { sessionTarget, windowTarget } from "../tmux/targets.ts";
import { DETACHES, refuseIfHeldCaller, unlessHoldsCaller } from "../core/caller_guard.ts";
import type { ToolContext } from "../core/registry.ts";

/** One pane as `list-panes -a` prints it: a linked window shows once per session. */
export interface PaneRow {
  /** `$N` */
  sessionId: string;
  /** `@N` */
  windowId: string;
  /** `%N` */
  paneId: string;
}

/** The `{killed}` result: every object the kill removed. */
export const killedOutput = z.object({
  killed: z.object({
    sessionIds: z.array(z.string()).describe(
      "Sessions that ended (a session ends with its last window).",
    ),
    windowIds: z.array(z.string()).describe(
      "Windows that closed (a window closes with its last pane).",
    ),
    paneIds: z.array(z.string()).describe("Panes whose processes were ended."),
  }),
});

/** The value of {@link killedOutput}'s `killed`. */
export type Killed = z.infer<typeof killedOutput>["killed"];

const ROW_FORMAT = "#{session_id} #{window_id} #{pane_id}";

/**
 * Reads every pane of the server in the round trip after `check`, a command
 * that fails when the target does not exist (so a missing target is a
 * no-such error, not an empty server), then runs `then` in the same round
 * trip (nothing of it when the check fails); `after` holds their outputs.
 */
export async function readRows(
  tmux: Tmux,
  check: string[],
  then: string[][] = [],
): Promise<{ checked: string; rows: PaneRow[]; after: string[] }> {
  const [checked, output, ...after] = await tmux.run([
    check,
    ["list-panes", "-a", "-F", ROW_FORMAT],
    ...then,
  ]);
  const rows = output.split("\n").filter((line) => line !== "").map((line) => {
    const [sessionId, windowId, paneId] = line.split(" ");
    return { sessionId, windowId, paneId };
  });
  return { checked, rows, after };
}

/** What killing `target` removes, as tmux cascades it (pane → window → session). */
export function cascade(
  rows: PaneRow[],
  target: { paneId: string } | { windowId: string } | { sessionId: string },
): Killed {
  const windowsOf = (session: string) =>
    new Set(rows.filter((r) => r.sessionId === session).map((r) => r.windowId));
  const sessionsOf = (window: string) =>
    new Set(rows.filter((r) => r.windowId === window).map((r) => r.sessionId));
  const panesOf = (window: string) =>
    new Set(rows.filter((r) => r.windowId === window).map((r) => r.paneId));
  let windows: string[];
  let panes: string[];
  let sessions: string[];
  if ("sessionId" in target) {
    sessions = [target.sessionId];
    // A window linked into another session survives there.
    windows = [...windowsOf(target.sessionId)].filter((w) => sessionsOf(w).size === 1);
    panes = windows.flatMap((w) => [...panesOf(w)]);
  } else {
    const windowId = "windowId" in target
      ? target.windowId
      : rows.find((r) => r.paneId === target.paneId)?.windowId ?? "";
    const lastPane = "windowId" in target || panesOf(windowId).size === 1;
    panes = "paneId" in target ? [target.paneId] : [...panesOf(windowId)];
    windows = lastPane ? [windowId] : [];
    sessions = lastPane ? [...sessionsOf(windowId)].filter((s) => windowsOf(s).size === 1) : [];
  }
  return { sessionIds: sessions, windowIds: windows, paneIds: panes };
}

/** A window or a session (an id, or an exact name) for {@link guardedKill}. */
export type KillTarget = { windowId: string } | { session: string };

/** How {@link guardedKill} checks, guards and kills one kind of target. */
interface KillPlan {
  /** A read that fails when the target does not exist. */
  check: string[];
  kill: string[];
  /** The tmux target whose panes must not include this server's own. */
  guardTarget: string;
  scope: "window" | "session";
  /** The target as {@link cascade} takes it, from the check's output. */
  cascadeTarget: (checked: string) => { windowId: string } | { sessionId: string };
}

function killPlan(target: KillTarget): KillPlan {
  if ("windowId" in target) {
    const window = windowTarget(target.windowId);
    return {
      // list-panes -t @N fails for a window that does not exist.
      check: ["list-panes", "-t", window],
      kill: ["kill-window", "-t", window],
      guardTarget: window,
      scope: "window",
      cascadeTarget: () => ({ windowId: target.windowId }),
    };
  }
  const session = sessionTarget(target.session);
  return {
    // list-windows -t fails for a session that does not exist and names its id.
    check: ["list-windows", "-t", session, "-F", "#{session_id}"],
    kill: ["kill-session", "-t", session],
    // `=name:` (the session's current window): tmux 3.3a expands formats
    // for a bare `=name` target without the session.
    guardTarget: `${session}:`,
    scope: "session",
    cascadeTarget: (checked) => ({ sessionId: checked.split("\n")[0] }),
  };
}

/**
 * Kills `target` in one round trip: a check that fails when it does not
 * exist, every pane's row, and the kill unless the target holds this
 * server's pane (decided by tmux right before it). Throws the caller
 * refusal; resolves with what the kill removed.
 */
export async function guardedKill(ctx: ToolContext, target: KillTarget): Promise<Killed> {
  const plan = killPlan(target);
  const caller = await ctx.caller.guardedPane(ctx.tmux);
  const { checked, rows, after } = await readRows(ctx.tmux, plan.check, [
    ...keepOwnServerAlive(ctx.tmux),
    ...unlessHoldsCaller(caller, plan.guardTarget, plan.scope, [plan.kill]),
  ]);
  const named = plan.cascadeTarget(checked);
  const killed = cascade(rows, named);
  if ("windowId" in named) {
    refuseIfHeldCaller(caller, after.at(-1), `window ${named.windowId}`);
  } else {
    // A session sharing the caller's window with another session (a group,
    // a linked window) ends without the pane: the refusal says what is lost.
    const inSession = rows.some((r) => r.paneId === caller && r.sessionId === named.sessionId);
    const livesOn = inSession && caller !== null && !killed.paneIds.includes(caller);
    refuseIfHeldCaller(
      caller,
      after.at(-1),
      `session ${named.sessionId}`,
      livesOn ? DETACHES : undefined,
    );
  }
  return killed;
}

/**
 * The commands that precede a kill: on the own `libtmux-mcp` server,
 * `exit-empty off` again, so a server restarted since start-up also outlives
 * its last session.
 */
export function keepOwnServerAlive(tmux: Tmux): string[][] {
  return isOwnSocket(tmux.socket) ? [["set-option", "-s", "exit-empty", "off"]] : [];
}

/** The text block of a kill. */
export function renderKilled(result: { killed: Killed }): string {
  const { sessionIds, windowIds, paneIds } = result.killed;
  const part = (label: string, ids: string[]) => (ids.length ? [`${label} ${ids.join(", ")}`] : []);
  return `Killed ${
    [
      ...part("sessions", sessionIds),
      ...part("windows", windowIds),
      ...part("panes", paneIds),
    ].join("; ") || "nothing"
  }.`;
}
