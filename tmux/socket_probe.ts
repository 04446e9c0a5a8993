/**
 * What tmux can tell about a socket path without a server running there.
 * This process may not read the filesystem; tmux, asked to connect, names
 * the path it tried and why that failed, and never starts a server for a
 * command that only reads.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { spawnTmux } from "./spawn.ts";

const decoder = new TextDecoder();

/**
 * The directory of socket `path` when it does not exist (tmux can never
 * create a server's socket there), else null. tmux is asked to connect to
 * the directory itself: that fails for any directory, but with "No such file
 * or directory" only when it is missing (an existing one refuses: "no server
 * running" on Linux, "Socket operation on non-socket" on macOS).
 */
export async function missingSocketDirectory(binary: string, path: string): Promise<string | null> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  // "/" always exists.
  if (dir.replaceAll("/", "") === "") return null;
  const { said } = await ask(binary, ["-S", dir], ".");
  return /^error connecting to .* \(No such file or directory\)$/.test(said) ? dir : null;
}

/**
 * Runs `display-message -p format` on the socket `select` names, never
 * starting a server (-N): its answer, or null and what tmux said instead
 * (which names the socket path it tried and why it failed).
 */
async function ask(
  binary: string,
  select: string[],
  format: string,
): Promise<{ answer: string | null; said: string }> {
  let result;
  try {
    result = await spawnTmux(binary, ["-N", ...select, "display-message", "-p", format]);
  } catch (error) {
    // Not found, not allowed, or no answer in time: tmux cannot tell.
    if (error instanceof TmuxError) return { answer: null, said: "" };
    throw error;
  }
  return result.code === 0
    ? { answer: decoder.decode(result.stdout).replace(/\n$/, ""), said: "" }
    : { answer: null, said: decoder.decode(result.stderr).trim() };
}
