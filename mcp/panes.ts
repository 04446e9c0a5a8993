/**
 * Pane helpers every pane tool shares: the default pane, budgets for text
 * read from a pane, and the input-safety refusals (CONTRACT §4).
 *
 * @module
 */

import { commandBytes, ROUND_TRIP_BYTES, runBounded } from "../tmux/chunks.ts";
import { runIf } from "../tmux/guard.ts";
import { paneTarget } from "../tmux/targets.ts";
import { getPane, getPaneWith, isNoServer, noSuch, type PaneView } from "../tmux/views.ts";
import { TmuxError } from "../tmux/errors.ts";
import { budgetLines, type Content } from "./budget.ts";
import { ToolError } from "./errors.ts";
import type { ToolContext } from "./registry.ts";

/**
 * The pane a reading tool acts on: the one given, else this server's own pane
 * when verified on the driven server, else the active pane of the first session.
 */
export async function resolvePane(
  ctx: ToolContext,
  paneId: string | null | undefined,
): Promise<string> {
  if (paneId) return paneId;
  const own = await ctx.caller.verifiedPane(ctx.tmux);
  if (own) return own;
  let output: string;
  try {
    output = await ctx.tmux.one(["list-sessions", "-F", "#{pane_id}"]);
  } catch (error) {
    if (isNoServer(error)) throw noSessions(ctx);
    throw error;
  }
  const first = output.split("\n")[0];
  if (!first) throw noSessions(ctx);
  return first;
}

function noSessions(ctx: ToolContext): TmuxError {
  return new TmuxError(
    "no_server",
    `no tmux server on ${ctx.tmux.label} has a session to read`,
    "Name a pane with paneId, or create a session first (create_session).",
  );
}

/** The verified caller pane id (for `isCaller` in views), or null. */
export function callerPane(ctx: ToolContext): Promise<string | null> {
  return ctx.caller.verifiedPane(ctx.tmux);
}

/** Budgets lines read from a pane with the call's `maxLines` or the server default. */
export function budget(
  ctx: ToolContext,
  lines: readonly string[],
  maxLines?: number | null,
): Content {
  return budgetLines(lines, maxLines ?? ctx.settings.maxLines, ctx.settings.maxBytes);
}

/** Splits `capture-pane -p` output into lines (tmux ends every line with a newline). */
export function splitCapture(output: string): string[] {
  return output === "" ? [] : output.split("\n");
}

/**
 * The format tmux tests before input reaches a pane: true while the pane
 * exists, its program runs and no mode (copy mode, view mode) would take the
 * keys. A missing target leaves every pane field empty (tmux 3.3a), hence the
 * test of `pane_id`. It reads the fields {@link refuseUnsafeInput} words.
 */
const ACCEPTS_INPUT = "#{?pane_id,#{?pane_dead,0,#{?pane_in_mode,0,1}},0}";
/** What the guard prints when it sent the input. */
const SENT = "tmux-mcp-input-sent";
/**
 * What it prints when it refused: the fields it tested, as it read them
 * (`pane_in_mode` is a count, 2 for view mode over copy mode).
 */
const REFUSED = "tmux-mcp-input-refused #{pane_id} #{pane_dead} #{?pane_in_mode,1,0}";

/** Refuses typing into this server's own pane (before anything reaches tmux). */
async function refuseOwnPane(ctx: ToolContext, paneId: string): Promise<void> {
  if (await ctx.caller.guardedPane(ctx.tmux) === paneId) {
    throw new ToolError(
      `pane ${paneId} is the pane this server runs in; typing into it would reach the agent's own terminal`,
      "Use another pane (create_window or split_window make one).",
    );
  }
}

/** Refuses input into a dead pane or one in a mode, as {@link ACCEPTS_INPUT} decides in tmux. */
function refuseUnsafeInput(pane: Pick<PaneView, "paneId" | "dead" | "inMode">): void {
  if (pane.dead) {
    throw new ToolError(
      `pane ${pane.paneId} is dead (its program exited)`,
      "Restart it with respawn_pane, or use another pane.",
    );
  }
  if (pane.inMode) {
    throw new ToolError(
      `pane ${pane.paneId} is in a mode (such as copy mode), so keys would go to the mode, not the program`,
      "Leave the mode first (press q in that pane), then try again, or use another pane.",
    );
  }
}

/**
 * Refuses input into a pane that is dead, in a mode (copy mode), or the
 * caller's own, running the reads `also` in the same round trip; resolves
 * with the pane's view and their outputs when input is safe.
 */
export async function checkInputTargetWith(
  ctx: ToolContext,
  paneId: string,
  also: string[][],
): Promise<[PaneView, string[]]> {
  await refuseOwnPane(ctx, paneId);
  const [pane, outputs] = await getPaneWith(ctx.tmux, paneId, await callerPane(ctx), also);
  refuseUnsafeInput(pane);
  return [pane, outputs];
}

/** Input for one pane: what {@link sendInput} sends, and when. */
export interface PaneInput {
  /** Commands that prepare the input (filling a buffer) and need no check. */
  setup?: string[][];
  /** The commands that reach the pane, in order. */
  input: string[][];
  /** Commands to run instead when tmux finds the pane unsafe (dropping a buffer, removing a mark). */
  refused?: string[][];
}

/**
 * Sends input to a pane that is not this server's own, not dead and in no
 * mode. tmux itself tests the pane right before the input (`if-shell -F`),
 * so the pane cannot change between check and input, and prints which branch
 * it took; with the setup, that is one round trip. Input too long for one
 * round trip sends its first part guarded and the rest after it. A refusal
 * throws after tmux ran `refused`.
 */
export async function sendInput(
  ctx: ToolContext,
  paneId: string,
  { setup = [], input, refused = [] }: PaneInput,
): Promise<void> {
  await refuseOwnPane(ctx, paneId);
  const options = { signal: ctx.signal };
  const target = paneTarget(paneId);
  const guard = (commands: string[][]) =>
    runIf(target, ACCEPTS_INPUT, [["display-message", "-p", SENT], ...commands], [
      ["display-message", "-p", "-t", target, REFUSED],
      ...refused,
    ]);
  // The longest start of the input that fits one round trip with the check
  // (grown from the front: only what fits is ever quoted).
  let head = 0;
  let guarded: string[] | undefined;
  for (; head < input.length; head++) {
    const next = guard(input.slice(0, head + 1));
    if (commandBytes(next) > ROUND_TRIP_BYTES) break;
    guarded = next;
  }
  if (!guarded) {
    // Not even the first command fits inside the guard: check, then send.
    refuseUnsafeInput(await getPane(ctx.tmux, paneId, null));
    await runBounded(ctx.tmux, [...setup, ...input], options);
    return;
  }
  const withSetup = [...setup, guarded];
  let answer: string | undefined;
  if (withSetup.reduce((sum, command) => sum + commandBytes(command), 0) <= ROUND_TRIP_BYTES) {
    answer = (await ctx.tmux.run(withSetup, options)).at(-1);
  } else {
    await runBounded(ctx.tmux, setup, options);
    answer = await ctx.tmux.one(guarded, options);
  }
  const [said, found, dead, inMode] = (answer ?? "").split("\n")[0].split(" ");
  if (said !== SENT) {
    if (found === "") throw noSuch("pane");
    refuseUnsafeInput({ paneId, dead: dead === "1", inMode: inMode === "1" });
    // Not reached while tmux prints what it tested; an answer we cannot read
    // is never taken for a sent input.
    throw new ToolError(
      `tmux did not confirm that the input reached pane ${paneId}`,
      "Look at the pane (get_pane_info or capture_pane) before trying again.",
    );
  }
  await runBounded(ctx.tmux, input.slice(head), options);
}

/** Drops the empty rows below the last printed one: they are screen, not output. */
export function trimTrailingBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  return lines.slice(0, end);
}
