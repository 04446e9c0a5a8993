/**
 * What tmux can tell about a socket path without a server running there.
 * This process may not read the filesystem; tmux, asked to connect, names
 * the path it tried and why that failed, and never starts a server for a
 * command that only reads.
 *
 * @module
 */

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
  // -N: even a command that could start a server must not start one on the directory's path.
  const result = await spawnTmux(binary, ["-N", "-S", dir, "display-message", "-p", "."]);
  const said = decoder.decode(result.stderr).trim();
  return /^error connecting to .* \(No such file or directory\)$/.test(said) ? dir : null;
}
