/**
 * Waiting on a tmux `wait-for` channel. A control-mode client answers
 * `wait-for` at once, so the wait runs as its own `tmux wait-for` process,
 * killed and reaped on timeout, on abort, and when this process exits.
 *
 * @module
 */

import { socketArgs, type Tmux } from "./client.ts";
import { classifyTmuxFailure, TmuxError } from "./errors.ts";
import { spawnTmux } from "./spawn.ts";

/** Options of {@link waitForChannel}. */
export interface WaitOptions {
  /** Give up after this many milliseconds and resolve with "timeout". */
  timeoutMs: number;
  /** Abort the wait (rejects with a TmuxError of kind cancelled). */
  signal?: AbortSignal;
}

/** Channel names tmux-mcp accepts (CONTRACT §6). */
export const CHANNEL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

// Waits in flight, so that none outlives this process: Deno.exit does not
// end children, and an orphaned `tmux wait-for` would linger until signalled.
const live = new Set<AbortController>();
let unloadHooked = false;

function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const controller of live) controller.abort();
  });
}

/** Number of `tmux wait-for` processes this process is waiting on now. */
export function liveWaits(): number {
  return live.size;
}

/**
 * Waits until `channel` is signalled (`tmux wait-for -S`) or `timeoutMs`
 * passes. tmux also ends a waiter when its server exits; that is reported as
 * a `no_server` TmuxError, never as "signalled".
 */
export async function waitForChannel(
  tmux: Tmux,
  channel: string,
  options: WaitOptions,
): Promise<"signalled" | "timeout"> {
  if (!CHANNEL_NAME.test(channel)) {
    throw new TmuxError(
      "failed",
      "the channel name is not valid",
      "Use 1 to 128 characters from A-Z, a-z, 0-9, _ . : -.",
    );
  }
  // The server's pid before and after tells a signal from a server that
  // exited (or was replaced) during the wait.
  const before = await serverPid(tmux);
  const own = new AbortController();
  const forward = () => own.abort();
  options.signal?.addEventListener("abort", forward, { once: true });
  if (options.signal?.aborted) own.abort();
  live.add(own);
  hookUnload();
  try {
    const result = await spawnTmux(
      tmux.binary,
      [...socketArgs(tmux.socket), "wait-for", channel],
      { timeoutMs: Math.max(0, options.timeoutMs), signal: own.signal },
    );
    if (result.code !== 0) {
      throw classifyTmuxFailure(new TextDecoder().decode(result.stderr), tmux.label);
    }
  } catch (error) {
    if (error instanceof TmuxError && error.kind === "timeout") return "timeout";
    throw error;
  } finally {
    live.delete(own);
    options.signal?.removeEventListener("abort", forward);
  }
  let after: string | null;
  try {
    after = await serverPid(tmux);
  } catch (error) {
    if (!(error instanceof TmuxError)) throw error;
    after = null;
  }
  if (after !== before) {
    throw new TmuxError(
      "no_server",
      `the tmux server on ${tmux.label} exited during the wait`,
      "Start tmux again (create_session) and repeat what was being waited for.",
    );
  }
  return "signalled";
}

function serverPid(tmux: Tmux): Promise<string> {
  return tmux.one(["display-message", "-p", "#{pid}"]);
}
