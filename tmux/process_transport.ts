/**
 * The simplest way to reach tmux: one `tmux` process per round trip, with
 * the commands chained in its argument vector.
 *
 * @module
 */

import { commandBytes, PROCESS_ARGUMENT_BYTES } from "./chunks.ts";
import { classifyTmuxFailure, TmuxError, unusableSocket } from "./errors.ts";
import { spawnTmux } from "./spawn.ts";
import type { RunOptions, Transport } from "./transport.ts";

const decoder = new TextDecoder();

/**
 * Encodes one argument for tmux's argument-vector parser: an argument that
 * ends in `;` would end the command, so its last `;` is escaped as `\;`.
 */
export function encodeArgument(arg: string): string {
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** `commands` chained in one tmux argument vector (`;` between them). */
export function chainArgs(commands: readonly string[][]): string[] {
  return commands.flatMap((command, i) => {
    const args = command.map(encodeArgument);
    return i === 0 ? args : [";", ...args];
  });
}

/**
 * A process's output cut at each `marker` line, each part without its last
 * newline. A marker printed after a command says the command ran: tmux stops
 * a list at a failing command of its own, not at a failing hook of a
 * person's, which makes the process exit 1 all the same.
 */
export function markedParts(stdout: string, marker: string): string[] {
  return stdout.split(`${marker}\n`).map((part) => part.endsWith("\n") ? part.slice(0, -1) : part);
}

/** The refusal of arguments a tmux process cannot pass to the server. */
function tooLong(bytes: number): TmuxError {
  return new TmuxError(
    "failed",
    `the values given make a tmux command of ${bytes} bytes (UTF-8), more than the ` +
      `${PROCESS_ARGUMENT_BYTES} a tmux process can pass to the server; this call went through ` +
      "one (--transport process, or no control client attached yet, as before the first session)",
    "Pass less: environment values are the usual cause (set large ones in the new shell " +
      "afterwards, e.g. with run_shell_command), then long names or startDirectory.",
  );
}

/** One `tmux` process per round trip. */
export class ProcessTransport implements Transport {
  readonly name = "process";
  readonly #marker = `tmux-mcp-split-${crypto.randomUUID()}`;

  /** `binary` is the tmux executable; `globalArgs` select the socket (and config). */
  constructor(
    readonly binary: string,
    readonly globalArgs: string[],
    readonly socketLabel: string,
  ) {}

  /**
   * Runs the commands chained in one process; outputs are split on the
   * marker line printed after each ({@link markedParts}): every marker
   * printed means every command ran, whatever the exit status.
   */
  run(commands: string[][], options: RunOptions = {}): Promise<string[]> {
    return this.#chained(commands, options);
  }

  async #chained(commands: string[][], options: RunOptions): Promise<string[]> {
    const mark = ["display-message", "-p", this.#marker];
    const args = [...this.globalArgs, ...chainArgs(commands.flatMap((c) => [c, mark]))];
    // tmux refuses a longer command with "command too long", which names no
    // value and no fix; a single command cannot be split into round trips.
    const bytes = commandBytes(args.slice(this.globalArgs.length));
    if (bytes > PROCESS_ARGUMENT_BYTES) throw tooLong(bytes);
    const result = await spawnTmux(this.binary, args, options);
    const parts = markedParts(decoder.decode(result.stdout), this.#marker);
    if (parts.length === commands.length + 1) return parts.slice(0, -1);
    const stderr = result.stderr.length > 0 ? decoder.decode(result.stderr) : "";
    if (result.code !== 0) throw classifyTmuxFailure(stderr, this.socketLabel);
    // tmux 3.3a exits 0 when it cannot create the socket of a server it was
    // asked to start (its directory is missing), having run nothing.
    const unusable = stderr && unusableSocket(stderr.trim().split("\n")[0], this.socketLabel);
    if (unusable) throw unusable;
    // All but the last marker, and no error: the last command ended the
    // client (kill-server, or the last session killed with exit-empty).
    if (parts.length === commands.length) return parts;
    // A value that printed the marker itself cannot happen (it is random per
    // process), so a mismatch means tmux stopped early without an error.
    throw classifyTmuxFailure(stderr || "incomplete output", this.socketLabel);
  }

  /** Nothing persistent to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
