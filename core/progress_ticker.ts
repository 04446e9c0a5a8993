/**
 * Progress notifications during a long wait: at its start (clients can
 * show it) and every second after, for clients that sent a progress token
 * (`ToolContext.progress` is a no-op otherwise).
 *
 * @module
 */

import type { ToolContext } from "./registry.ts";

/** Progress is reported this often while waiting. */
const PROGRESS_MS = 1_000;

/**
 * Runs `body`, reporting progress meanwhile as seconds: `done` is
 * `offsetSeconds` plus the time waited here, out of `offsetSeconds +
 * totalSeconds`, so that a wait resumed by a later call goes on counting.
 */
export async function withProgress<T>(
  ctx: ToolContext,
  what: string,
  offsetSeconds: number,
  totalSeconds: number,
  body: () => Promise<T>,
): Promise<T> {
  const began = performance.now();
  let last = -1;
  const report = () => {
    const done = Math.round(offsetSeconds * 1000 + performance.now() - began) / 1000;
    if (done <= last) return;
    last = done;
    ctx.progress(done, offsetSeconds + totalSeconds, what).catch((error: unknown) => {
      // A courtesy: a client that went away ends the wait by cancelling it.
      if (!ctx.signal.aborted) console.error(`tmux-mcp: progress notification failed: ${error}`);
    });
  };
  report();
  const timer = setInterval(report, PROGRESS_MS);
  try {
    return await body();
  } finally {
    clearInterval(timer);
  }
}
