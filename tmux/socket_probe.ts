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
 * Whether socket `path` is an existing directory, where tmux can never create
 * its socket. tmux is asked to connect to `path/.`: a directory refuses the
 * connection ("no server running" on Linux, "Socket operation on non-socket"
 * on macOS), while a file there (a socket, live or dead) is "Not a directory"
 * and a missing path "No such file or directory".
 */
export async function isDirectoryPath(binary: string, path: string): Promise<boolean> {
  const { said } = await ask(binary, ["-S", `${path.replace(/\/+$/, "")}/.`], ".");
  return /^no server running on |\(Socket operation on non-socket\)$/.test(said);
}

/**
 * Whether socket `path` is the socket `tmux -L name` uses. Its directory
 * holds the uid (`${TMUX_TMPDIR:-/tmp}/tmux-UID`), which this process may not
 * read, so tmux says where it is: a server there reports its socket path,
 * and without one tmux names the path it failed to connect to. Another
 * spelling of the same path (`//`, `/./`) counts; one through a symbolic
 * link only while that server runs (both paths then reach the same pid).
 * False whenever tmux cannot tell, and without asking when the path's last
 * component is not `name`: tmux always names that socket `name`, and every
 * other `-S` path then costs no tmux process at start-up (a link to the
 * socket file under another name is taken for another server, the cautious
 * side). Like any `-L` use, asking creates tmux's socket directory when
 * missing, so a server can then start at `path`.
 */
export async function isNamedSocketPath(
  binary: string,
  name: string,
  path: string,
): Promise<boolean> {
  if (lexicalPath(path).split("/").at(-1) !== name) return false;
  const named = await ask(binary, ["-L", name], "#{pid} #{socket_path}");
  const running = named.answer?.match(/^(\d+) (.*)$/) ?? null;
  const tried = named.said.match(/^no server running on (.+)$/) ??
    named.said.match(/^error connecting to (.+) \([^()]*\)$/);
  const namedPath = running?.[2] ?? tried?.[1];
  if (namedPath === undefined) return false;
  if (lexicalPath(path) === lexicalPath(namedPath)) return true;
  return running !== null && (await ask(binary, ["-S", path], "#{pid}")).answer === running[1];
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

/**
 * `path` with empty and `.` parts dropped: the same file, decided without
 * reading the filesystem (`..` is kept, as a symbolic link makes it differ).
 */
function lexicalPath(path: string): string {
  return "/" + path.split("/").filter((part) => part !== "" && part !== ".").join("/");
}
