/**
 * Starting a tmux control-mode client: the transport, the output watcher and
 * the topology listener each keep one, always attached the same careful way.
 *
 * @module
 */

import { adopt } from "./children.ts";
import { childEnvironment } from "./environment.ts";
import { missingTmux, spawnStats } from "./spawn.ts";

/**
 * tmux 3.3a crashes (NULL `control_state` in control_write) when it sends a
 * notification such as `%sessions-changed` to a control client whose
 * identify handshake it has only half read: the client is flagged a control
 * client before its state exists. So while any control client of this
 * process is between spawn and `%session-changed`, this process sends no
 * command that could cause a notification (see {@link handshakesSettled}).
 */
const attaching = new Map<Deno.ChildProcess, () => void>();
const attachedSignals = new Map<Deno.ChildProcess, Promise<void>>();

/** Longest wait for other clients' handshakes before a command goes anyway. */
export const HANDSHAKE_WAIT_MS = 3_000;

/** Records that `child` has attached (its `%session-changed` arrived). */
export function markAttached(child: Deno.ChildProcess): void {
  attaching.get(child)?.();
}

/** True while a control client of this process is still attaching. */
export function handshaking(): boolean {
  return attaching.size > 0;
}

/**
 * Resolves once no control client of this process (other than `except`) is
 * attaching, or after {@link HANDSHAKE_WAIT_MS}, so a wedged attach cannot
 * stop every command.
 */
export async function handshakesSettled(except?: Deno.ChildProcess): Promise<void> {
  const deadline = Date.now() + HANDSHAKE_WAIT_MS;
  const others = () => [...attachedSignals].filter(([child]) => child !== except);
  for (let waiting = others(); waiting.length > 0 && Date.now() < deadline; waiting = others()) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      ...waiting.map(([, signal]) => signal),
      new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
    ]);
    clearTimeout(timer);
  }
}

function trackHandshake(child: Deno.ChildProcess): void {
  let finish!: () => void;
  attachedSignals.set(child, new Promise<void>((resolve) => (finish = resolve)));
  attaching.set(child, () => {
    attaching.delete(child);
    attachedSignals.delete(child);
    finish();
  });
  // A client that ends before attaching is no longer at risk.
  void child.status.finally(() => markAttached(child));
}

/** How a control client attaches. */
export interface ControlClientOptions {
  /** `refresh-client -f` flags, e.g. `ignore-size`, `no-output`, `read-only`. */
  flags: string[];
  /** Attach read-only (`-r`): the client may not change anything. */
  readOnly?: boolean;
}

/**
 * Spawns `tmux -N <global> -C attach-session -E -f <flags> -t <session>`.
 * `-N` never starts a server as a side effect; `-E` keeps this process's
 * environment out of the session (update-environment); `ignore-size` keeps
 * the client's 80x24 from sizing anyone's windows. Throws a TmuxError of kind
 * missing when tmux cannot be started. The reader of its output must call
 * {@link markAttached} on `%session-changed`.
 */
export function spawnControlClient(
  binary: string,
  globalArgs: string[],
  session: string,
  options: ControlClientOptions,
): Deno.ChildProcess {
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
    if (error instanceof Deno.errors.NotFound) throw missingTmux(binary, false);
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw missingTmux(binary, true);
    }
    throw error;
  }
  spawnStats.started++;
  trackHandshake(child);
  return adopt(child, "control");
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
