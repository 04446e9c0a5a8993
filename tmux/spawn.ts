/**
 * Starts the tmux executable: the one place in the project that creates a
 * process. Always an argument vector, never a shell.
 *
 * @module
 */

import { adopt } from "./children.ts";
import { childEnvironment } from "./environment.ts";
import { TmuxError } from "./errors.ts";

/** What a finished tmux process left behind. */
export interface SpawnResult {
  /** Exit status. */
  code: number;
  /** Standard output, raw bytes. */
  stdout: Uint8Array;
  /** Standard error, raw bytes. */
  stderr: Uint8Array;
}

/** Options of {@link spawnTmux}. */
export interface SpawnOptions {
  /** Kill the process after this many milliseconds (default 10 s). */
  timeoutMs?: number;
  /** Kill the process when this fires. */
  signal?: AbortSignal;
}

/** Counts processes started, for benchmarks and leak tests. */
export const spawnStats = { started: 0 };

/** Tells whether an error from Deno.Command means the executable is absent. */
function isNotFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

/** Tells whether an error from Deno.Command means permission was refused. */
function isNotPermitted(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}

/**
 * The error for a tmux that cannot be started at `binary`. `setting` is the
 * setting that named it (`--tmux` or `LIBTMUX_TMUX_BIN`), which the hint then
 * tells the user to correct; without it the hint says how to name one.
 */
export function missingTmux(binary: string, notPermitted: boolean, setting?: string): TmuxError {
  const named = setting ?? "--tmux";
  // A variable is unset, a flag dropped: say the one the user can act on.
  const drop = named.startsWith("-") ? `drop ${named}` : `unset ${named}`;
  if (notPermitted) {
    return new TmuxError(
      "missing",
      `${binary} is not allowed by this server's --allow-run permission`,
      `A ${named} path must also be allowed by --allow-run: add it to the run list of the server permission set in deno.json, then restart (deno task start) or rebuild (deno task compile); or install tmux in /usr/bin, /usr/local/bin or /opt/homebrew/bin and ${drop}.`,
    );
  }
  return new TmuxError(
    "missing",
    `tmux was not found (${binary})`,
    setting === undefined
      ? "Install tmux 3.2 or newer (apt-get install tmux, brew install tmux) or name the executable with --tmux /path/to/tmux."
      : `Set ${setting} to the path of an installed tmux 3.2 or newer, or ${drop} to search PATH and the usual places (install tmux: apt-get install tmux, brew install tmux).`,
  );
}

/** Starts `binary args...` with piped output; a missing or unpermitted binary is "missing". */
function startChild(binary: string, args: string[]): Deno.ChildProcess {
  try {
    return new Deno.Command(binary, {
      args,
      env: childEnvironment(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (isNotFound(error) || isNotPermitted(error)) {
      throw missingTmux(binary, isNotPermitted(error));
    }
    throw error;
  }
}

/** The error of a tmux process that did not finish within `timeoutMs`. */
function noAnswer(timeoutMs: number): TmuxError {
  return new TmuxError(
    "timeout",
    `tmux did not answer within ${Math.round(timeoutMs / 100) / 10} s`,
    "Check that the tmux server is responsive (a hung tmux or a stuck hook can block it) and try again.",
  );
}

/**
 * Runs `binary args...` to completion, killing and reaping it on timeout or
 * abort. Throws a {@link TmuxError} of kind missing, timeout or cancelled.
 */
export async function spawnTmux(
  binary: string,
  args: string[],
  options: SpawnOptions = {},
): Promise<SpawnResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (options.signal?.aborted) throw cancelled();
  const child = startChild(binary, args);
  spawnStats.started++;
  adopt(child, "command");
  const stdout = drain(child.stdout);
  const stderr = drain(child.stderr);
  let reason: "timeout" | "cancelled" | undefined;
  let stopped: () => void = () => {};
  const killed = new Promise<void>((resolve) => (stopped = resolve));
  const kill = (why: "timeout" | "cancelled") => {
    if (reason) return;
    reason = why;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited: nothing to kill.
    }
    stopped();
  };
  const timer = setTimeout(() => kill("timeout"), timeoutMs);
  const onAbort = () => kill("cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const finished = Promise.all([child.status, stdout.bytes, stderr.bytes]);
    const outcome = await Promise.race([finished, killed.then(() => null)]);
    if (reason) {
      // A tmux client hands its stdout to the server, so a hung server keeps
      // the pipe open after the client is killed: reap the client, stop
      // reading, and answer now instead of waiting for the pipe to close.
      await child.status;
      stdout.cancel();
      stderr.cancel();
      if (reason === "cancelled") throw cancelled();
      throw noAnswer(timeoutMs);
    }
    const [status, out, err] = outcome!;
    return { code: status.code, stdout: out, stderr: err };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Reads a stream to the end in the background; `cancel` stops reading early. */
function drain(stream: ReadableStream<Uint8Array>): { bytes: Promise<Uint8Array>; cancel(): void } {
  const reader = stream.getReader();
  const bytes = (async () => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        chunks.push(next.value);
        size += next.value.length;
      }
    } catch {
      // Cancelled or broken: what was read so far is all there is.
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  })();
  return {
    bytes,
    cancel: () => {
      reader.cancel().catch(() => {});
    },
  };
}

function cancelled(): TmuxError {
  return new TmuxError(
    "cancelled",
    "the request was cancelled",
    "Call the tool again if still needed.",
  );
}
