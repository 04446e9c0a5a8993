/**
 * Waiting on a tmux `wait-for` channel. A control-mode client ends the
 * block of a `wait-for` at once and holds its later commands until the
 * signal, so the wait runs as its own `tmux wait-for` process, ended and
 * reaped on timeout, on abort, and when this process exits. A killed
 * waiter lingers in tmux: docs/tmux-quirks.md#wait-for.
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
  /**
   * End a timed-out or aborted wait by signalling the channel instead of
   * killing the waiter (no phantom waiter is left). Only for channels that
   * no one else waits on: the signal would wake them too.
   */
  release?: boolean;
  /** The server's `#{pid}`, read by the caller right before: saves reading it here. */
  serverPid?: string;
  /**
   * False: a signal resolves "signalled" without reading the server's pid
   * again; the caller compares it in its next round trip ({@link checkServer}).
   */
  confirm?: boolean;
}

/** How long a released waiter may take to leave before it is killed. */
const RELEASE_GRACE_MS = 2_000;

/** Channel names tmux-mcp accepts: 1-128 of letters, digits and `_.:-`. */
export const CHANNEL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Most waits at once. Each is a tmux client process of a few MB, and
 * nothing else bounds how many calls wait in parallel.
 */
export const MAX_WAITS = 32;

/** Waits running now. */
let waits = 0;

/**
 * Waits until `channel` is signalled (`tmux wait-for -S`) or `timeoutMs`
 * passes. tmux also ends a waiter when its server exits; that is reported as
 * a `no_server` TmuxError, never as "signalled". Refused while
 * {@link MAX_WAITS} waits run.
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
  if (waits >= MAX_WAITS) {
    throw new TmuxError(
      "failed",
      `${MAX_WAITS} waits (wait_for_channel, run_shell_command) are already running, the most at once`,
      "Call again once one has ended, or cancel one no longer needed.",
    );
  }
  waits++;
  try {
    return await waitOnce(tmux, channel, options);
  } finally {
    waits--;
  }
}

/** {@link waitForChannel} for a valid channel, one process. */
async function waitOnce(
  tmux: Tmux,
  channel: string,
  options: WaitOptions,
): Promise<"signalled" | "timeout"> {
  // The server's pid before and after tells a signal from a server that
  // exited (or was replaced) during the wait.
  const before = options.serverPid ?? await serverPid(tmux);
  if (options.signal?.aborted) throw cancelledWait();
  const kill = new AbortController();
  let ended: "timeout" | "cancelled" | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const end = (why: "timeout" | "cancelled") => {
    if (ended) return;
    ended = why;
    if (!options.release) return kill.abort();
    grace = setTimeout(() => kill.abort(), RELEASE_GRACE_MS);
    // Without tmux to signal through, killing is all that is left.
    tmux.one(["wait-for", "-S", "--", channel]).catch(() => kill.abort());
  };
  const timer = setTimeout(() => end("timeout"), Math.max(0, options.timeoutMs));
  const onAbort = () => end("cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let code: number;
  let stderr: Uint8Array;
  try {
    ({ code, stderr } = await spawnTmux(
      tmux.binary,
      // "--": a channel name may start with "-", which tmux would read as flags.
      [...socketArgs(tmux.socket), "wait-for", "--", channel],
      // spawnTmux's own limit only backs up the timer above.
      { timeoutMs: Math.max(0, options.timeoutMs) + 2 * RELEASE_GRACE_MS, signal: kill.signal },
    ));
  } catch (error) {
    if (!(error instanceof TmuxError) || !["timeout", "cancelled"].includes(error.kind)) {
      throw error;
    }
    if (ended === "cancelled") throw cancelledWait();
    return "timeout";
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (ended === "cancelled") throw cancelledWait();
  if (ended === "timeout") return "timeout";
  if (code !== 0) throw classifyTmuxFailure(new TextDecoder().decode(stderr), tmux.label);
  if (options.confirm === false) return "signalled";
  let after: string | null;
  try {
    after = await serverPid(tmux);
  } catch (error) {
    if (!(error instanceof TmuxError)) throw error;
    after = null;
  }
  checkServer(tmux, before, after);
  return "signalled";
}

/** The command that prints the server's pid, for {@link WaitOptions.serverPid} and {@link checkServer}. */
export const SERVER_PID: string[] = ["display-message", "-p", "#{pid}"];

/**
 * Throws when the server's pid read after a wait (`after`, null when none
 * answered) is not the one read before it: the server exited (or was
 * replaced) during the wait, and the signal came from no run of it.
 */
export function checkServer(tmux: Tmux, before: string, after: string | null): void {
  if (after === before) return;
  throw new TmuxError(
    "no_server",
    `the tmux server on ${tmux.label} exited during the wait`,
    "Start tmux again (create_session) and repeat what was being waited for.",
  );
}

function serverPid(tmux: Tmux): Promise<string> {
  return tmux.one(SERVER_PID);
}

function cancelledWait(): TmuxError {
  return new TmuxError(
    "cancelled",
    "the request was cancelled",
    "Call the tool again if still needed.",
  );
}
