/**
 * A bound on whole-history reads in flight at once. Each holds a pane's
 * whole scrollback in memory (tmux's answer, then its lines), which for a
 * long history is tens of megabytes: parallel calls would multiply that.
 * The reads past the bound wait their turn, first come first served.
 *
 * @module
 */

/** Whole-history reads that may run at once in this process. */
export const WHOLE_HISTORY_READS = 2;

let running = 0;
const queue: (() => void)[] = [];

/** Runs `read` (a read of whole histories) once fewer than {@link WHOLE_HISTORY_READS} run. */
export async function wholeHistoryRead<T>(read: () => Promise<T>): Promise<T> {
  if (running >= WHOLE_HISTORY_READS) await new Promise<void>((resolve) => queue.push(resolve));
  else running++;
  try {
    return await read();
  } finally {
    // The slot passes straight to the next reader, so the count never dips.
    const next = queue.shift();
    if (next) next();
    else running--;
  }
}
