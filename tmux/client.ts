/**
 * The one entry point through which every tool talks to tmux: which server,
 * which executable, and which transport carries the commands.
 *
 * @module
 */

import { commandBytes, ROUND_TRIP_BYTES } from "./chunks.ts";
import { beginLoudCommands, quietCommands, rereadable } from "./control_client.ts";
import { ControlTransport } from "./control_transport.ts";
import { TmuxError } from "./errors.ts";
import { ProcessTransport } from "./process_transport.ts";
import type { RunOptions, Transport } from "./transport.ts";

/** Which tmux server is driven, and how it was chosen. */
export type SocketChoice =
  | { kind: "name"; name: string; source: "default" | "flag" | "env" }
  | {
    kind: "path";
    path: string;
    source: "flag" | "env";
    /** The path is the own socket's (tmux said so: see tmux/socket_probe.ts). */
    own?: boolean;
  };

/** The socket name of the server this process owns unless told otherwise. */
export const OWN_SOCKET_NAME = "libtmux-mcp";

/** True when `socket` is this server's own dedicated tmux server. */
export function isOwnSocket(socket: SocketChoice): boolean {
  // However it was chosen: `-L libtmux-mcp`, or `-S` with that socket's full
  // path, reaches the same server as the default, and that server must never
  // run with a user's configuration nor lose its teardown toolset or keep-alive.
  return socket.kind === "name" ? socket.name === OWN_SOCKET_NAME : socket.own === true;
}

/** The tmux global arguments: UTF-8 output and the socket. */
export function socketArgs(socket: SocketChoice): string[] {
  // -u: without a UTF-8 locale (GUI clients often start us with none) tmux
  // replaces control characters and non-ASCII text in its output with '_'.
  const select = ["-u", ...(socket.kind === "name" ? ["-L", socket.name] : ["-S", socket.path])];
  // The own server never reads a user's configuration: its behaviour must not
  // depend on whatever ~/.tmux.conf does.
  return isOwnSocket(socket) ? [...select, "-f", "/dev/null"] : select;
}

/** A short human label for `socket`, used in error messages. */
export function socketLabel(socket: SocketChoice): string {
  return socket.kind === "name" ? `socket "${socket.name}"` : `socket ${socket.path}`;
}

/** How tool commands travel: a persistent control client or a process per call. */
export type TransportMode = "control" | "process";

/** Builds the transport for `mode`. */
export function createTransport(
  binary: string,
  socket: SocketChoice,
  mode: TransportMode,
): Transport {
  if (mode === "control") {
    return new ControlTransport(binary, socketArgs(socket), socketLabel(socket));
  }
  return new ProcessTransport(binary, socketArgs(socket), socketLabel(socket));
}

/**
 * A timed-out change, told as one that may still happen: tmux keeps a
 * command it has not answered queued (a hung or stopped server, a stuck
 * hook) and runs it once it can, so a blind retry could type or create twice.
 */
function mayStillRun(error: unknown): unknown {
  if (!(error instanceof TmuxError) || error.kind !== "timeout") return error;
  return new TmuxError(
    "timeout",
    `${error.message}; tmux may still make the change once it runs again`,
    "Check the current state (list_panes, capture_pane, list_sessions) before retrying, " +
      "or the change may happen twice.",
  );
}

/** The driven tmux server. */
export class Tmux {
  #socketPath: string | undefined;

  /**
   * Wraps `transport`, which talks to `socket` through `binary`, whose
   * `tmux -V` line (such as "tmux 3.3a") is `version` when known.
   */
  constructor(
    readonly binary: string,
    readonly socket: SocketChoice,
    readonly transport: Transport,
    readonly version?: string,
  ) {}

  /** A short label of the driven socket for messages. */
  get label(): string {
    return socketLabel(this.socket);
  }

  /** Runs commands in one round trip; resolves with each command's output. */
  async run(commands: string[][], options?: RunOptions): Promise<string[]> {
    try {
      return await this.#run(commands, options);
    } catch (error) {
      throw rereadable(commands) ? error : mayStillRun(error);
    }
  }

  async #run(commands: string[][], options?: RunOptions): Promise<string[]> {
    if (quietCommands(commands)) return await this.transport.run(commands, options);
    // Kept apart from our control clients' attaches: see control_client.ts.
    const done = await beginLoudCommands();
    try {
      return await this.transport.run(commands, options);
    } finally {
      done();
    }
  }

  /** Runs one command; resolves with its output. */
  async one(command: string[], options?: RunOptions): Promise<string> {
    const [out] = await this.run([command], options);
    return out;
  }

  /** The absolute socket path of the running server (cached once known). */
  async socketPath(): Promise<string> {
    if (this.#socketPath) return this.#socketPath;
    if (this.socket.kind === "path") return (this.#socketPath = this.socket.path);
    this.#socketPath = await this.one(["display-message", "-p", "#{socket_path}"]);
    return this.#socketPath;
  }

  /**
   * Makes sure the own server runs, kept alive without sessions. Resolves
   * with true when this call started it. Only for the own socket.
   */
  async ensureOwnServer(): Promise<boolean> {
    try {
      await this.one(["set-option", "-s", "exit-empty", "off"]);
      return false;
    } catch (error) {
      if (!(error instanceof TmuxError) || error.kind !== "no_server") throw error;
    }
    // A tmux process of its own: a control client of the server that just
    // went away may not have noticed yet, and would take the command with it.
    const starter = new ProcessTransport(this.binary, socketArgs(this.socket), this.label);
    await starter.run([["start-server"], ["set-option", "-s", "exit-empty", "off"]]);
    return true;
  }

  /** Releases the transport. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

/**
 * Runs `commands` in order, grouped into as few round trips as the size limit
 * allows. Atomic only within a group; a failure stops the commands after it.
 */
export async function runBounded(
  tmux: Tmux,
  commands: string[][],
  options?: RunOptions,
): Promise<void> {
  let group: string[][] = [];
  let size = 0;
  for (const command of commands) {
    const n = commandBytes(command);
    if (group.length > 0 && size + n > ROUND_TRIP_BYTES) {
      await tmux.run(group, options);
      group = [];
      size = 0;
    }
    group.push(command);
    size += n;
  }
  if (group.length > 0) await tmux.run(group, options);
}
