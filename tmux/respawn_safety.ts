/**
 * Respawning a pane without crashing tmux versions that keep stale output
 * offsets on respawn ({@link respawnKeepsOutputOffsets}) while a control
 * client of ours that receives the pane's output lags behind it.
 *
 * @module
 */

import type { Tmux } from "./client.ts";
import { pauseOutput } from "./output_watch.ts";
import { respawnKeepsOutputOffsets } from "./version.ts";

/**
 * Runs `respawn` (commands that respawn `paneId`) so that no watch client of
 * ours lags behind the pane meanwhile: on versions with the bug, the pane's
 * output to them is paused first (tmux drops what they had queued and, at its
 * next turn, the buffer's offsets agree again) and resumed after.
 */
export async function respawnSafely<T>(
  tmux: Tmux,
  paneId: string,
  respawn: () => Promise<T>,
): Promise<T> {
  if (!respawnKeepsOutputOffsets(tmux.version)) return await respawn();
  const resume = await pauseOutput(tmux, paneId);
  try {
    return await respawn();
  } finally {
    await resume();
  }
}
