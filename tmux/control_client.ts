/**
 * Starting a tmux control-mode client: the transport, the output watcher and
 * the topology listener each keep one, always attached the same careful way.
 *
 * @module
 */

import { adopt, killChild } from "./children.ts";
import { childEnvironment } from "./environment.ts";
import { missingTmux, spawnStats, spawnTmux } from "./spawn.ts";

/*
 * tmux (3.3a to 3.6) crashes when it notifies a control client that is still
 * attaching, and when a session whose current window changed is destroyed
 * before its queued notifications ran. So attaches and commands that make
 * tmux notify ("loud" ones, and one of our clients ending) never overlap,
 * and loud round trips go one at a time: docs/tmux-quirks.md, the two crash
 * sections.
 */
/** Control clients (or reserved slots for them) that have not attached yet. */
const attaching = new Set<object>();
/** Commands in flight that could make tmux notify control clients. */
let loudInFlight = 0;
/** Waiters to re-check their condition after either of the two changed. */
const wakers = new Set<() => void>();
/** Loud round trips waiting for their turn, in arrival order; `claim` counts one in flight. */
const loudWaiters: { claim: () => void }[] = [];
/** Changes so far (a loud round trip ended, an attach settled): a queue that moves is no wedge. */
let progress = 0;

/** Control clients of this process that ended since the last {@link afterEnds} round trip. */
let endedSinceBarrier = 0;
/** Control clients of this process told to leave that have not ended yet. */
const leaving = new Set<Deno.ChildProcess>();

/** Longest wait for the other side (attaches, or commands in flight) before going anyway. */
const HANDSHAKE_WAIT_MS = 3_000;

/**
 * Commands after which tmux notifies no control client: reads and waits.
 * Anything else may create, kill, rename or select something (or detach a
 * client), which is what tmux tells control clients about.
 */
const QUIET_COMMANDS = new Set([
  "capture-pane",
  "display-message",
  "has-session",
  "list-buffers",
  "list-clients",
  "list-panes",
  "list-sessions",
  "list-windows",
  "show-buffer",
  "show-environment",
  "show-hooks",
  "show-options",
  "show-window-options",
  "wait-for",
]);

function changed(): void {
  progress++;
  for (const wake of wakers) wake();
  // Claimed here, synchronously: a waiter woken to re-check could be overtaken.
  while (loudWaiters.length > 0 && loudInFlight === 0 && attaching.size === 0) {
    loudWaiters.shift()!.claim();
  }
}

/** Resolves once `done()` holds, re-checked on every change, or after {@link HANDSHAKE_WAIT_MS}. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + HANDSHAKE_WAIT_MS;
  while (!done() && Date.now() < deadline) {
    let wake!: () => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      wakers.add(wake);
      timer = setTimeout(resolve, deadline - Date.now());
    });
    wakers.delete(wake);
    clearTimeout(timer);
  }
}

function settle(key: object): void {
  if (attaching.delete(key)) changed();
}

/** True when `commands` only read (quiet, and no `wait-for`): asking again changes nothing. */
export function rereadable(commands: readonly string[][]): boolean {
  return quietCommands(commands) && commands.every(([name]) => name !== "wait-for");
}

/**
 * True when tmux notifies no control client of any of `commands`. A
 * capture into a buffer (`capture-pane -b`) sets that buffer, which tmux
 * 3.4+ announces to every control client.
 */
export function quietCommands(commands: readonly string[][]): boolean {
  return commands.every(([name, ...args]) =>
    QUIET_COMMANDS.has(name) && !(name === "capture-pane" && args.includes("-b"))
  );
}

/**
 * Call before `commands` that are not quiet reach tmux: waits while one of
 * our control clients attaches or another loud round trip is in flight
 * (first come, first served; after {@link HANDSHAKE_WAIT_MS} in which none
 * ended and no attach settled it goes anyway, so a wedged one cannot stop
 * every command, while a long queue keeps its order), then counts them in
 * flight until the returned function is called.
 */
export async function beginLoudCommands(): Promise<() => void> {
  if (loudInFlight === 0 && attaching.size === 0 && loudWaiters.length === 0) {
    // Counted in the same tick, so an attach reserved right after this call
    // already sees the commands.
    loudInFlight++;
  } else {
    await new Promise<void>((resolve) => {
      let seen = progress;
      const waiter = {
        claim: () => {
          clearTimeout(timer);
          loudInFlight++;
          resolve();
        },
      };
      const expire = () => {
        // Something ended meanwhile: a long queue, not a wedge; keep the turn.
        if (progress !== seen) {
          seen = progress;
          timer = setTimeout(expire, HANDSHAKE_WAIT_MS);
          return;
        }
        loudWaiters.splice(loudWaiters.indexOf(waiter), 1);
        waiter.claim();
      };
      let timer = setTimeout(expire, HANDSHAKE_WAIT_MS);
      loudWaiters.push(waiter);
    });
  }
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    loudInFlight--;
    changed();
  };
}

/** The right to spawn one control client, held from {@link reserveAttach} to the spawn. */
export interface AttachSlot {
  /** Gives the slot back (the spawn took its place, or the attach was given up). */
  release(): void;
}

/**
 * Counts as an attach from now (new loud commands wait), then waits for the
 * loud commands already in flight to finish. {@link spawnControlClient} takes
 * one itself.
 */
export async function reserveAttach(): Promise<AttachSlot> {
  const key = {};
  attaching.add(key);
  await until(() => loudInFlight === 0 && leaving.size === 0);
  return { release: () => settle(key) };
}

/** Records that `child` has attached (its `%session-changed` arrived). */
export function markAttached(child: Deno.ChildProcess): void {
  settle(child);
}

/**
 * Resolves once no control client of this process is leaving (or after
 * {@link HANDSHAKE_WAIT_MS}): one that is still receives output until tmux
 * has detached it.
 */
export function leavesSettled(): Promise<void> {
  return until(() => leaving.size === 0);
}

/** True while a control client of this process is attaching (or about to). */
export function handshaking(): boolean {
  return attaching.size > 0;
}

/**
 * Resolves once no control client of this process other than `except` is
 * attaching, or after {@link HANDSHAKE_WAIT_MS}, so a wedged attach cannot
 * keep a client from leaving.
 */
function handshakesSettled(except: Deno.ChildProcess): Promise<void> {
  return until(() => attaching.size === (attaching.has(except) ? 1 : 0));
}

/** How a control client attaches. */
export interface ControlClientOptions {
  /** `refresh-client -f` flags, e.g. `ignore-size`, `no-output`, `read-only`. */
  flags: string[];
  /** Attach read-only (`-r`): the client may not change anything. */
  readOnly?: boolean;
  /**
   * Asked after the wait for loud commands in flight: false gives the attach
   * up (the spawn resolves with undefined).
   */
  stillWanted?: () => boolean;
}

/**
 * Spawns `tmux -N <global> -C attach-session -E -f <flags> -t <session>`.
 * `-N` never starts a server as a side effect; `-E` keeps this process's
 * environment out of the session (update-environment); `ignore-size` keeps
 * the client's 80x24 from sizing anyone's windows. Spawns only once no loud
 * command is in flight ({@link reserveAttach}); resolves with undefined when
 * `options.stillWanted` says no after that wait. Throws a TmuxError of kind
 * missing when tmux cannot be started. The reader of its output must call
 * {@link markAttached} on `%session-changed`.
 */
export async function spawnControlClient(
  binary: string,
  globalArgs: string[],
  session: string,
  options: ControlClientOptions,
): Promise<Deno.ChildProcess | undefined> {
  const slot = await reserveAttach();
  await afterEnds(binary, globalArgs);
  if (options.stillWanted && !options.stillWanted()) {
    slot.release();
    return undefined;
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(binary, {
      args: [
        "-N",
        ...globalArgs,
        "-C",
        "attach-session",
        "-E",
        ...(options.readOnly ? ["-r"] : []),
        "-f",
        options.flags.join(","),
        "-t",
        session,
      ],
      env: childEnvironment(),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch (error) {
    slot.release();
    if (error instanceof Deno.errors.NotFound) throw missingTmux(binary, false);
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw missingTmux(binary, true);
    }
    throw error;
  }
  spawnStats.started++;
  // The child's own entry first, so the count never drops to zero between.
  attaching.add(child);
  slot.release();
  // A client that ends before attaching is no longer at risk; its end notifies.
  void child.status.finally(() => {
    endedSinceBarrier++;
    markAttached(child);
  });
  return adopt(child, "control");
}

/**
 * When control clients of this process ended since the last call, makes one
 * round trip as a plain (not control) client: tmux answers it only after it
 * has noticed those ends and sent their `%client-detached`, which must not
 * reach a control client still attaching. Errors (no server) end it too.
 */
async function afterEnds(binary: string, globalArgs: string[]): Promise<void> {
  const ended = endedSinceBarrier;
  if (ended === 0) return;
  await spawnTmux(binary, ["-N", ...globalArgs, "display-message", "-p", ""], {
    timeoutMs: HANDSHAKE_WAIT_MS,
  }).catch(() => {});
  endedSinceBarrier -= ended;
}

/**
 * Lets a control client leave: once no other control client of this process
 * is attaching (its leaving notifies them, `%client-detached`), closes its
 * input, which makes tmux detach it, and kills it if it has not ended
 * `graceMs` later. Resolves when `ended` does.
 */
export async function leaveControlClient(
  child: Deno.ChildProcess,
  closeInput: () => Promise<void>,
  ended: Promise<unknown>,
  graceMs: number,
): Promise<void> {
  await handshakesSettled(child);
  leaving.add(child);
  try {
    // A broken pipe means the client already left, which is the goal.
    await closeInput().catch(() => {});
    const timer = setTimeout(() => killChild(child), graceMs);
    await ended;
    clearTimeout(timer);
  } finally {
    leaving.delete(child);
    changed();
  }
}

/**
 * Feeds every chunk of `child`'s stdout to `onChunk` until it ends; a broken
 * pipe reads as the end of the client.
 */
export async function readChunks(
  child: Deno.ChildProcess,
  onChunk: (bytes: Uint8Array) => void,
): Promise<void> {
  const reader = child.stdout.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      onChunk(next.value);
    }
  } catch {
    // Broken pipe: the client is gone, which the caller handles as the end.
  } finally {
    reader.releaseLock();
  }
}
