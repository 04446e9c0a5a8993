/**
 * Waiting, after a `run_shell_command` run ended, until its shell has drawn
 * its prompt again. The run ends when the frame signals tmux, before the
 * shell prints the prompt (a slow PROMPT_COMMAND or `$(...)` in PS1 takes
 * a while): a capture_since cursor taken in between sits on an empty row,
 * and the next typed line is echoed after a prompt that was not there yet,
 * where a wait with that cursor took the echo for output.
 *
 * The frame leaves the terminal's cursor at the start of a line (its end
 * marker ends with a newline); a prompt moves it right. A shell whose
 * prompt leaves it at column 0 (PS1 empty or ending in a newline) is only
 * waited for once: after that its pane is remembered and not waited on.
 *
 * @module
 */

import { TmuxError } from "../tmux/errors.ts";
import { paneTarget } from "../tmux/targets.ts";
import type { ToolContext } from "../core/registry.ts";

/** How long a shell may take to draw its prompt after a run. */
export const PROMPT_GRACE_MS = 1_500;
/**
 * The first and the longest pause between reads of the cursor (one small
 * round trip each): a shell whose prompt is a plain PS1 draws it within a
 * millisecond or two of the frame's end, so the pauses start short and double.
 */
const FIRST_POLL_MS = 1;
const PROMPT_POLL_MS = 10;
/** Shells (socket, pane, pid) whose prompt did not move the cursor in time. */
const promptless = new Set<string>();
/** Entries of {@link promptless} kept at most (a long-lived server sees many panes). */
const PROMPTLESS_MAX = 256;

/** The look at the pane: cursor, mode, alternate screen, dead, shell pid. */
function promptRead(paneId: string): string[] {
  const format = "#{cursor_x} #{pane_in_mode} #{alternate_on} #{pane_dead} #{pane_pid} #{cursor_y}";
  return ["display-message", "-p", "-t", paneTarget(paneId), format];
}

/**
 * Resolves once the shell of `paneId` has drawn its prompt after a run
 * (the cursor left column 0), or the pane shows something else (a mode,
 * the alternate screen, a dead pane), or {@link PROMPT_GRACE_MS} passed.
 * `end` is the cursor where the frame ended, when it stored it: the prompt
 * is back once the cursor left it (output without a final newline leaves it
 * off column 0). Never throws for a pane that went away: the run's result
 * stands.
 */
export async function promptBack(
  ctx: ToolContext,
  paneId: string,
  end?: { x: number; y: number },
): Promise<void> {
  const deadline = performance.now() + PROMPT_GRACE_MS;
  let key: string | undefined;
  let pause = FIRST_POLL_MS;
  while (!ctx.signal.aborted) {
    let read: string;
    try {
      read = await ctx.tmux.one(promptRead(paneId));
    } catch (error) {
      if (error instanceof TmuxError) return;
      throw error;
    }
    const [x, mode, alternate, dead, pid, y] = read.split(" ");
    key ??= `${ctx.tmux.label} ${paneId} ${pid}`;
    const moved = end ? x !== String(end.x) || y !== String(end.y) : x !== "0";
    if (moved) promptless.delete(key);
    if (moved || mode !== "0" || alternate !== "0" || dead !== "0") return;
    if (promptless.has(key)) return;
    if (performance.now() >= deadline) {
      if (promptless.size >= PROMPTLESS_MAX) promptless.clear();
      promptless.add(key);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, PROMPT_POLL_MS);
  }
}
