/**
 * Starting a tmux control-mode client: the transport, the output watcher and
 * the topology listener each keep one, always attached the same careful way.
 *
 * @module
 */

import { adopt } from "./children.ts";
import { childEnvironment } from "./environment.ts";
import { missingTmux, spawnStats } from "./spawn.ts";

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
 * missing when tmux cannot be started.
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
