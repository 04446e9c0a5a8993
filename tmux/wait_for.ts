/**
 * Waiting on a tmux `wait-for` channel. A control-mode client ends the
 * block of a `wait-for` at once and holds its later commands until the
 * signal, so each wait runs as its own `tmux wait-for` process: a plain wait
 * (wait_for_channel) is killed on timeout and on abort; a watch (a run's
 * end, on a channel of its own) is released by signalling its channel, and
 * runs commands after its wait. A killed waiter lingers in tmux:
 * docs/tmux-quirks.md#wait-for.
 *
 * @module
 */

import { socketArgs, type Tmux } from "./client.ts";
import { classifyTmuxFailure, TmuxError } from "./errors.ts";
import { chainArgs, markedParts } from "./process_transport.ts";
import { spawnTmux } from "./spawn.ts";

/** Options of {@link waitForChannel}. */
export interface WaitOptions {
  /** Give up after this many milliseconds and resolve with "timeout". */
  timeoutMs: number;
  /** Abort the wait (rejects with a TmuxError of kind cancelled). */
  signal?: AbortSignal;
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

/** Watches running now, with the tmux they run on. */
const watches = new Map<ChannelWatch, Tmux>();

/**
 * Releases every watch on `tmux` and waits for them to end: before this
 * process exits, as a killed waiter stays registered in tmux
 * (docs/tmux-quirks.md#wait-for).
 */
export async function endWatches(tmux: Tmux): Promise<void> {
  const ending = [...watches].filter(([, on]) => on === tmux).map(([watch]) => {
    watch.release();
    return watch.ended;
  });
  await Promise.allSettled(ending);
}

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
  reserveWait(channel);
  try {
    return await waitOnce(tmux, channel, options);
  } finally {
    waits--;
  }
}

/** Counts a wait on `channel` among {@link MAX_WAITS}; throws for a bad name or too many. */
function reserveWait(channel: string): void {
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
}

/** Options of {@link reserveWatch}. */
export interface WatchOptions {
  /** Commands run right before the wait, in the same client (e.g. marking it registered). */
  before: string[][];
  /** Commands run once the wait ends, in the same pass of tmux's queue as the signal. */
  then: string[][];
  /** Release the watch after this many milliseconds. */
  timeoutMs: number;
}

/** A running {@link reserveWatch} watch. */
export interface ChannelWatch {
  /**
   * The outputs of the `then` commands, once the channel was signalled or
   * the watch released; rejects when tmux failed them or the server exited.
   */
  readonly ended: Promise<string[]>;
  /** True once {@link ChannelWatch.ended} has settled. */
  readonly settled: boolean;
  /** Ends the wait by signalling the channel (the `then` commands still run). */
  release(): void;
  /**
   * Kills the waiter, for a tmux that does not answer: a killed waiter
   * stays registered in tmux (docs/tmux-quirks.md#wait-for).
   */
  abandon(): void;
}

/** A watch counted among {@link MAX_WAITS}, not started yet. */
export interface PendingWatch {
  /** Starts the watch (once). */
  start(): ChannelWatch;
  /** Gives the slot back when the watch will not be started. */
  cancel(): void;
}

/**
 * A watch on `channel`, counted among {@link MAX_WAITS} now (throws at once
 * for a bad name or too many waits) and started later: a `tmux` process that
 * runs `before`, the wait, then `then`. tmux runs `then` as soon as the
 * channel is signalled, before it reads any terminal output again, so it
 * sees what the signaller left. Only for channels no one else waits on.
 */
export function reserveWatch(
  tmux: Tmux,
  channel: string,
  options: WatchOptions,
): PendingWatch {
  reserveWait(channel);
  let taken = false;
  return {
    start() {
      if (taken) throw new Error("a watch is started once");
      taken = true;
      return startWatch(tmux, channel, options);
    },
    cancel() {
      if (taken) return;
      taken = true;
      waits--;
    },
  };
}

/** Starts a watch already counted among {@link MAX_WAITS}. */
function startWatch(tmux: Tmux, channel: string, options: WatchOptions): ChannelWatch {
  const marker = `tmux-mcp-watch-${crypto.randomUUID()}`;
  // A marker before each `then` command: what a person's hooks print after
  // `before` is left out, and each output starts with its command's. One
  // more at the end says every command ran (see watchProcess).
  const markLine = ["display-message", "-p", marker];
  const commands = [
    ...options.before,
    ["wait-for", "--", channel],
    ...options.then.flatMap((c) => [markLine, c]),
    markLine,
  ];
  const args = [...socketArgs(tmux.socket), ...chainArgs(commands)];
  const kill = new AbortController();
  let grace: ReturnType<typeof setTimeout> | undefined;
  let released = false;
  let settled = false;
  const release = () => {
    if (released || settled) return;
    released = true;
    grace = setTimeout(() => kill.abort(), RELEASE_GRACE_MS);
    // Without tmux to signal through, killing is all that is left.
    tmux.one(["wait-for", "-S", "--", channel]).catch(() => kill.abort());
  };
  const timer = setTimeout(release, Math.max(0, options.timeoutMs));
  const ended = watchProcess(tmux, args, marker, options, kill.signal).finally(() => {
    settled = true;
    clearTimeout(timer);
    clearTimeout(grace);
    waits--;
    watches.delete(watch);
  });
  // Nobody may be listening when a kept watch fails: that is no crash.
  ended.catch(() => {});
  const watch: ChannelWatch = {
    ended,
    get settled() {
      return settled;
    },
    release,
    abandon: () => kill.abort(),
  };
  watches.set(watch, tmux);
  return watch;
}

/**
 * Runs a watch's process; resolves with the outputs of its `then` commands
 * (split on `marker`, {@link markedParts}): the last marker printed means
 * every command ran, whatever the exit status.
 */
async function watchProcess(
  tmux: Tmux,
  args: string[],
  marker: string,
  options: WatchOptions,
  signal: AbortSignal,
): Promise<string[]> {
  const { code, stdout, stderr } = await spawnTmux(tmux.binary, args, {
    timeoutMs: Math.max(0, options.timeoutMs) + 2 * RELEASE_GRACE_MS,
    signal,
  });
  const parts = markedParts(new TextDecoder().decode(stdout), marker).slice(1);
  const outputs = parts.slice(0, options.then.length);
  if (parts.length === options.then.length + 1) return outputs;
  if (code !== 0) throw classifyTmuxFailure(new TextDecoder().decode(stderr), tmux.label);
  // A waiter whose server exits ends with status 0 and no output.
  if (outputs.length !== options.then.length) checkServer(tmux, "", null);
  return outputs;
}

/**
 * {@link waitForChannel} for a valid channel, one process, killed on timeout
 * or abort: the channel may be someone else's too, whom a signal would wake.
 */
async function waitOnce(
  tmux: Tmux,
  channel: string,
  options: WaitOptions,
): Promise<"signalled" | "timeout"> {
  // The server's pid before and after tells a signal from a server that
  // exited (or was replaced) during the wait.
  const before = await serverPid(tmux);
  if (options.signal?.aborted) throw cancelledWait();
  const kill = new AbortController();
  let ended: "timeout" | "cancelled" | undefined;
  const end = (why: "timeout" | "cancelled") => {
    ended ??= why;
    kill.abort();
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
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (ended === "cancelled") throw cancelledWait();
  if (ended === "timeout") return "timeout";
  if (code !== 0) throw classifyTmuxFailure(new TextDecoder().decode(stderr), tmux.label);
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
