/**
 * A persistent control-mode client (`tmux -C attach-session`) that carries
 * each round trip as one command line, so steady-state calls start no
 * process. While no client is attached (no session yet, reconnecting, or
 * control mode failing) every round trip runs through a one-process-per-call
 * {@link ProcessTransport} instead, so callers never notice the difference.
 *
 * Framing (measured on tmux 3.3a): every command a control client sends gets
 * its own `%begin <time> <number> <flags>` … `%end|%error <same triple>`
 * block, flags 1 for commands read from the client and 0 for the attach
 * itself and for hooks. A failing command skips the rest of its line; a
 * command inserted by `if-shell -F` gets blocks of its own. So a round trip is
 * written as `c1 ; M ; c2 ; M ; … ; cN` followed by a second line `T`, where
 * `M` prints a separator marker and `T` a per-request terminator: output
 * between markers belongs to one command, and the terminator (on its own line,
 * so it runs even after a failure) ends the request whatever happened. The
 * terminator also prints the client's session, which is empty when the round
 * trip destroyed it: the client is then retired before anyone sends to it.
 * Only a `%end`/`%error` with the `%begin`'s exact time, number and flags
 * closes a block, so command output that prints such lines stays content.
 *
 * A round trip of one read (a quiet command: one block, no session changed)
 * is sent alone, without terminator: its one block, `%end` or `%error` (a
 * parse error gets a block too), is the whole answer, and tmux runs one
 * command instead of two. A marker or terminator arriving where such a
 * read's answer is due means replies and requests are out of step, and the
 * client is replaced, as for any other misalignment.
 *
 * @module
 */

import { killChild } from "./children.ts";
import {
  leaveControlClient,
  markAttached,
  quietCommands,
  readChunks,
  rereadable,
  spawnControlClient,
} from "./control_client.ts";
import { classifyTmuxFailure, isNoServer, TmuxError } from "./errors.ts";
import { ProcessTransport } from "./process_transport.ts";
import type { RunOptions, Transport } from "./transport.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Default bound of one round trip, as for one-shot processes. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Bound of one attach attempt (list-sessions, start, `%session-changed`). */
const ATTACH_TIMEOUT_MS = 5_000;
/** How long close() waits for the client to leave after its stdin ends. */
const EXIT_GRACE_MS = 2_000;
/** Backoff between failed attach attempts; attempts are only made by run(). */
const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;
/** An abandoned request unanswered this long means the client's queue is stuck. */
const WEDGED_MS = 30_000;
/** A client that dies sooner than this after attaching counts as a failure. */
const SHORT_LIFE_MS = 1_000;
/**
 * How often, while the control client serves, the socket is asked (one
 * process) which server it leads to: a socket file removed (a /tmp cleaner,
 * a person) leaves the client talking to a server nobody else can reach, and
 * a server started on the path since is the one every process reaches.
 */
const VERIFY_MS = 10_000;
/**
 * The check runs only at a call that follows this long without one: a burst
 * of calls starts no process (zero per call in steady state, and none
 * competing with the calls for the machine's cores), and an agent's calls,
 * spaced by its thinking, still check about every {@link VERIFY_MS}.
 */
const VERIFY_IDLE_MS = 2_000;

/**
 * Commands that must not run on the hidden control client: they wait in the
 * client's queue (`wait-for` would return at once, `run-shell`/`if-shell`
 * block every later command), show their output on an attached client
 * (`run-shell` opens a view mode in a pane a person sees), or act on "the
 * current client", which would be ours. A one-shot process gives them the
 * behaviour of tmux scripted from a shell, which is what callers expect.
 * Interactive commands (prompts, menus, choosers) would wait forever for
 * input on our client; from a process they fail at once ("no current client").
 */
const PROCESS_ONLY = new Set([
  "run-shell",
  "run",
  "wait-for",
  "wait",
  "if-shell",
  "if",
  "attach-session",
  "attach",
  "detach-client",
  "detach",
  "switch-client",
  "switchc",
  "refresh-client",
  "refresh",
  "suspend-client",
  "suspendc",
  "confirm-before",
  "confirm",
  "command-prompt",
  "display-menu",
  "menu",
  "display-popup",
  "popup",
  "display-panes",
  "displayp",
  "choose-buffer",
  "choose-client",
  "choose-tree",
]);

/** True when a round trip has to run as its own tmux process. */
function needsOwnProcess(commands: string[][]): boolean {
  return commands.some(([name, ...args]) => {
    if (!PROCESS_ONLY.has(name)) return false;
    // `if-shell -F` only evaluates a format: no shell, no waiting.
    if (name === "if-shell" || name === "if") return !args.some((a) => /^-[A-Za-z]*F/.test(a));
    return true;
  });
}

/**
 * Quotes one argument for tmux's command parser (control mode reads command
 * lines, not argument vectors) so it arrives byte-exact. Single quotes stop
 * every expansion (`$`, `~`, `;`, `#`, `\`, `{`); a value with a single quote
 * or a control character (a newline would end the line) uses double quotes,
 * where only `\`, `"` and `$` are special, and control characters become
 * three-digit octal escapes.
 */
export function quoteArgument(arg: string): string {
  if (arg.includes("\0")) {
    throw new TmuxError(
      "failed",
      "an argument contains a NUL character, which tmux cannot receive",
      "Remove NUL characters from the value and try again.",
    );
  }
  // deno-lint-ignore no-control-regex
  if (!/['\x01-\x1f\x7f]/.test(arg)) return `'${arg}'`;
  let out = '"';
  for (const ch of arg) {
    const code = ch.charCodeAt(0);
    if (ch === "\\" || ch === '"' || ch === "$") out += `\\${ch}`;
    // A leading ~ is expanded to a home directory even inside double quotes.
    else if (ch === "~") out += "\\176";
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** One command as tmux's parser reads it: every argument quoted by {@link quoteArgument}. */
export function commandLine(command: readonly string[]): string {
  return command.map(quoteArgument).join(" ");
}

function timeoutError(ms: number): TmuxError {
  return new TmuxError(
    "timeout",
    `tmux did not answer within ${Math.round(ms / 100) / 10} s`,
    "Check that the tmux server is responsive (a hung tmux or a stuck hook can block it) and try again.",
  );
}

function cancelledError(): TmuxError {
  return new TmuxError(
    "cancelled",
    "the request was cancelled",
    "Call the tool again if still needed.",
  );
}

function closedError(): TmuxError {
  return new TmuxError(
    "failed",
    "the tmux transport is closed",
    "The server is shutting down; start it again to talk to tmux.",
  );
}

/** Errors of requests the control connection dropped (see {@link ControlTransport.run}). */
const lostErrors = new WeakSet<TmuxError>();

function lostError(): TmuxError {
  const error = new TmuxError(
    "failed",
    "the tmux control connection ended before tmux answered; the command may or may not have run",
    "Check the current state (list_sessions, list_panes) before retrying.",
  );
  lostErrors.add(error);
  return error;
}

/** One round trip waiting for its blocks, in FIFO order. */
interface Request {
  readonly id: number;
  readonly outputs: string[][];
  /** The command whose output blocks are arriving now. */
  index: number;
  /** A block of the current command has completed. */
  ran: boolean;
  /** The first `%error` of the round trip. */
  error?: TmuxError;
  /** Settled early (timeout, abort): its blocks are still consumed, then dropped. */
  abandoned: boolean;
  /** When it was abandoned (ms since the epoch). */
  abandonedAt?: number;
  /** Retire the client once this request is answered. */
  retire?: boolean;
  /** One quiet command sent without terminator: its one block answers it. */
  single: boolean;
  settle(result: string[] | TmuxError): void;
}

/** One `tmux -C attach-session` child and the requests it carries. */
class ControlClient {
  /** The session the client is attached to, once attached. */
  sessionId: string | undefined;
  /** The pid of the server the socket led to when the client attached. */
  serverPid: string | undefined;
  readonly startedAt = Date.now();
  /** Resolves with true once attached, false if the client ended first. */
  readonly ready: Promise<boolean>;
  /** Resolves when the client has ended and been reaped. */
  readonly done: Promise<void>;
  #alive = true;
  #closing = false;
  #dying = false;
  #nextId = 0;
  readonly #pending: Request[] = [];
  #blockKey: string | undefined;
  #blockFlags = "";
  #blockLines: string[] = [];
  #partial: Uint8Array[] = [];
  #markReady: (attached: boolean) => void = () => {};
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #separatorLine: string;

  constructor(
    readonly child: Deno.ChildProcess,
    readonly marker: string,
    readonly socketLabel: string,
    readonly notify: (line: string) => void,
    readonly onEnd: (client: ControlClient) => void,
  ) {
    this.ready = new Promise((resolve) => (this.#markReady = resolve));
    this.#writer = child.stdin.getWriter();
    this.#separatorLine = `display-message -p ${quoteArgument(marker)}`;
    this.done = this.#read();
  }

  /** The child's process id (for diagnostics and leak tests). */
  get pid(): number {
    return this.child.pid;
  }

  /** True while attached and not ending (its session, the server or close()). */
  get live(): boolean {
    return this.#alive && !this.#closing && !this.#dying && this.sessionId !== undefined;
  }

  /** True while requests can be sent: live and not blocked by an abandoned one. */
  get usable(): boolean {
    return this.live && !this.#pending.some((r) => r.abandoned);
  }

  /**
   * True when an abandoned request has had no answer for {@link WEDGED_MS}:
   * something blocks the client's queue (a prompt nobody answers, a hung
   * command), and only a fresh client will serve again.
   */
  get wedged(): boolean {
    const since = this.#pending.find((r) => r.abandoned)?.abandonedAt;
    return since !== undefined && Date.now() - since > WEDGED_MS;
  }

  /** Sends one round trip; resolves with each command's output. */
  send(commands: string[][], options: RunOptions): Promise<string[]> {
    if (options.signal?.aborted) return Promise.reject(cancelledError());
    let text: string;
    const id = this.#nextId++;
    const single = commands.length === 1 && quietCommands(commands);
    try {
      text = `${commands.map(commandLine).join(` ; ${this.#separatorLine} ; `)}\n`;
      if (!single) {
        text += `display-message -p ${quoteArgument(`${this.marker}:${id}:#{client_session}`)}\n`;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise<string[]>((resolve, reject) => {
      let settled = false;
      const onAbort = () => abandon(cancelledError());
      const timer = setTimeout(() => abandon(timeoutError(timeoutMs)), timeoutMs);
      const request: Request = {
        id,
        outputs: commands.map(() => []),
        index: 0,
        ran: false,
        abandoned: false,
        single,
        settle: (result) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
          if (result instanceof TmuxError) reject(result);
          else resolve(result);
        },
      };
      // The slot stays in the FIFO: tmux may still answer it, and its blocks
      // must be consumed to keep the replies of later requests aligned.
      const abandon = (error: TmuxError) => {
        if (settled) return;
        request.abandoned = true;
        request.abandonedAt = Date.now();
        request.settle(error);
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      // Queue and write in the same tick: FIFO order equals write order.
      this.#pending.push(request);
      this.#writer.write(encoder.encode(text)).catch(() => this.kill());
      // After kill-server tmux still answers this round trip, then the client
      // ends: nothing may be sent after it (and if kill-server did not run,
      // the client is retired once answered and a fresh one attaches).
      if (commands.some(([name]) => name === "kill-server")) {
        this.#dying = true;
        request.retire = true;
      }
    });
  }

  /** Ends the client: stdin EOF makes tmux detach it; kill if it lingers. */
  async close(): Promise<void> {
    this.#closing = true;
    await leaveControlClient(this.child, () => this.#writer.close(), this.done, EXIT_GRACE_MS);
  }

  /** Kills the child; the reader then sees EOF and cleans up. */
  kill(): void {
    killChild(this.child);
  }

  async #read(): Promise<void> {
    await readChunks(this.child, (bytes) => this.#feed(bytes));
    this.#end();
    try {
      await this.#writer.close();
    } catch {
      // Closed already or broken: nothing to flush.
    }
    await this.child.status;
  }

  /** Splits bytes into lines; a line may span chunks. */
  #feed(chunk: Uint8Array): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      let bytes = chunk.subarray(start, nl);
      if (this.#partial.length > 0) {
        this.#partial.push(bytes);
        bytes = concat(this.#partial);
        this.#partial = [];
      }
      this.#line(decoder.decode(bytes));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
  }

  #line(line: string): void {
    if (this.#blockKey !== undefined) {
      // Only the %end/%error carrying the same time, number and flags as the
      // %begin closes a block, so a value that prints "%end …" stays content.
      const rest = line.startsWith("%end ")
        ? line.slice(5)
        : line.startsWith("%error ")
        ? line.slice(7)
        : undefined;
      if (rest === this.#blockKey) {
        const lines = this.#blockLines;
        this.#blockKey = undefined;
        this.#blockLines = [];
        if (this.#blockFlags === "1") this.#block(lines, line.startsWith("%error "));
      } else {
        this.#blockLines.push(line);
      }
      return;
    }
    const begin = /^%begin (\d+ \d+ (\d+))$/.exec(line);
    if (begin) {
      this.#blockKey = begin[1];
      this.#blockFlags = begin[2];
      return;
    }
    if (line.startsWith("%session-changed ")) {
      this.sessionId = line.split(" ")[1];
      markAttached(this.child);
      this.#markReady(true);
    } else if (line === "%exit" || line.startsWith("%exit ")) {
      this.#alive = false;
    }
    if (line.startsWith("%")) this.notify(line);
  }

  /** Routes one completed block (of a command we sent) to the oldest request. */
  #block(lines: string[], failed: boolean): void {
    const request = this.#pending[0];
    const first = failed ? undefined : lines[0];
    const framing = first === this.marker || first?.startsWith(`${this.marker}:`);
    if (!request || (request.single && framing)) {
      // tmux answered something nobody asked, or a marker or terminator came
      // where a lone read's answer was due: the framing cannot be trusted.
      this.kill();
      return;
    }
    if (request.single) {
      this.#pending.shift();
      request.settle(
        failed ? classifyTmuxFailure(lines.join("\n"), this.socketLabel) : [lines.join("\n")],
      );
      return;
    }
    if (lines.length === 1 && first === this.marker) {
      request.index++;
      request.ran = false;
      if (request.index >= request.outputs.length) this.kill();
      return;
    }
    if (first?.startsWith(`${this.marker}:`)) {
      if (!first.startsWith(`${this.marker}:${request.id}:`)) {
        // Another request's terminator: replies and requests are out of step.
        this.kill();
        return;
      }
      // The terminator prints the client's session: empty once a command of
      // this round trip (or anyone else) destroyed it. The client is about to
      // exit, so nothing more is sent to it; tmux still answered this request.
      if (first === `${this.marker}:${request.id}:` || request.retire) this.#retire();
      this.#pending.shift();
      if (request.error) request.settle(request.error);
      else if (request.index !== request.outputs.length - 1) request.settle(lostError());
      else request.settle(request.outputs.map((out) => out.join("\n")));
      return;
    }
    request.ran = true;
    if (failed) request.error ??= classifyTmuxFailure(lines.join("\n"), this.socketLabel);
    else request.outputs[request.index].push(...lines);
  }

  /** Stops sending to a client whose session is gone and lets it leave. */
  #retire(): void {
    this.#dying = true;
    this.#writer.close().catch(() => {
      // Already closed or broken: the client is leaving either way.
    });
  }

  /** The client ended (%exit, EOF, killed): settle everything still waiting. */
  #end(): void {
    this.#alive = false;
    this.#markReady(false);
    const pending = this.#pending.splice(0);
    const head = pending[0];
    // Ending the attached session (or the server) from this very client ends
    // the client before the terminator line runs; when every command of the
    // head request completed without error, its answer is whole.
    if (
      head && this.#blockKey === undefined && !head.error && head.ran &&
      head.index === head.outputs.length - 1
    ) {
      pending.shift();
      head.settle(head.outputs.map((out) => out.join("\n")));
    }
    const error = this.#closing ? closedError() : lostError();
    for (const request of pending) request.settle(error);
    this.onEnd(this);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Round trips served by each path, for benchmarks and tests. */
export interface ControlStats {
  /** Round trips carried by the control client. */
  readonly control: number;
  /** Round trips carried by one-shot processes. */
  readonly fallback: number;
  /** Successful attaches of a control client. */
  readonly attaches: number;
}

/** Options of a {@link ControlTransport}. */
export interface ControlOptions {
  /** Interval of the check that the socket still leads to the client's server (ms). */
  verifyMs?: number;
  /** Quiet time before a call after which that call may start the check (ms). */
  verifyIdleMs?: number;
}

/**
 * A transport that keeps one control-mode client attached to an existing
 * session and falls back to one process per round trip while it cannot.
 */
export class ControlTransport implements Transport {
  readonly name = "control";
  readonly #fallback: ProcessTransport;
  readonly #marker = `tmux-mcp-${crypto.randomUUID()}`;
  readonly #listeners = new Set<(line: string) => void>();
  readonly #stats = { control: 0, fallback: 0, attaches: 0 };
  #client: ControlClient | undefined;
  /** Every client not yet reaped, including ended ones, so close() can await them. */
  readonly #clients = new Set<ControlClient>();
  #connecting: Promise<boolean> | undefined;
  #closing: Promise<void> | undefined;
  #nextAttemptAt = 0;
  #backoffMs = MIN_BACKOFF_MS;
  readonly #verifyMs: number;
  readonly #verifyIdleMs: number;
  #verifyAt = 0;
  #verifying = false;
  /** When the control client was last given a round trip. */
  #lastSentAt = 0;

  /** `binary` is the tmux executable; `globalArgs` select the socket (and config). */
  constructor(
    readonly binary: string,
    readonly globalArgs: string[],
    readonly socketLabel: string,
    options: ControlOptions = {},
  ) {
    this.#fallback = new ProcessTransport(binary, globalArgs, socketLabel);
    this.#verifyMs = options.verifyMs ?? VERIFY_MS;
    this.#verifyIdleMs = options.verifyIdleMs ?? VERIFY_IDLE_MS;
  }

  /** A snapshot of how many round trips each path served. */
  get stats(): ControlStats {
    return { ...this.#stats };
  }

  /** The session the control client is attached to, if one is attached. */
  get attachedSession(): string | undefined {
    return this.#client?.live ? this.#client.sessionId : undefined;
  }

  /** The process id of the control client, if one is attached. */
  get clientPid(): number | undefined {
    return this.#client?.live ? this.#client.pid : undefined;
  }

  /**
   * Subscribes to the control client's notification lines (`%window-add @3`,
   * `%sessions-changed`, `%exit`, …); they only flow while attached.
   * Returns the function that unsubscribes.
   */
  onNotification(listener: (line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Runs the commands over the control client, or one process while there is none. */
  run(commands: string[][], options: RunOptions = {}): Promise<string[]> {
    if (this.#closing) return Promise.reject(closedError());
    if (commands.length === 0) return Promise.resolve([]);
    const client = this.#client;
    if (client?.usable && !needsOwnProcess(commands)) {
      this.#stats.control++;
      this.#verifySoon(client);
      const sent = client.send(commands, options);
      // Reads change nothing, so one the connection dropped (its session
      // was killed, the server exited) is asked again of a process, which
      // also gives the answers of a server without sessions or without tmux.
      if (!rereadable(commands)) return sent;
      return sent.catch((error: unknown) => {
        if (!(error instanceof TmuxError && lostErrors.has(error))) throw error;
        this.#stats.fallback++;
        return this.#fallback.run(commands, options);
      });
    }
    // A stuck client is killed; its end clears the way for a fresh attach.
    if (client?.wedged) client.kill();
    if (!client && !this.#connecting && Date.now() >= this.#nextAttemptAt) void this.connect();
    this.#stats.fallback++;
    return this.#fallback.run(commands, options);
  }

  /**
   * Attaches now unless attached (joining an attempt already in flight);
   * resolves with whether a control client is attached afterwards.
   */
  connect(): Promise<boolean> {
    if (this.#closing) return Promise.resolve(false);
    if (this.#client?.live) return Promise.resolve(true);
    this.#connecting ??= this.#attach().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /** Ends the control client and waits for it to exit; idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#connecting;
      this.#client = undefined;
      await Promise.all([...this.#clients].map((client) => client.close()));
    })();
    return this.#closing;
  }

  /**
   * Asks the socket, at most every {@link VERIFY_MS} and only after
   * {@link VERIFY_IDLE_MS} without calls, whether it still leads to
   * `client`'s server; if not (no server, or another one), ends the client:
   * reads in flight are asked again of a process, and the next run attaches
   * to whatever server the socket leads to now.
   */
  #verifySoon(client: ControlClient): void {
    const now = Date.now();
    const quietFor = now - this.#lastSentAt;
    this.#lastSentAt = now;
    if (this.#verifying || now < this.#verifyAt || quietFor < this.#verifyIdleMs) return;
    this.#verifying = true;
    void this.#fallback.run([["display-message", "-p", "#{pid}"]], {
      timeoutMs: ATTACH_TIMEOUT_MS,
    }).then(
      ([pid]) => pid !== client.serverPid,
      // A slow or failing tmux proves nothing about the socket; only its absence does.
      isNoServer,
    ).then((stale) => {
      this.#verifying = false;
      this.#verifyAt = Date.now() + this.#verifyMs;
      if (stale && this.#client === client) client.kill();
    });
  }

  async #attach(): Promise<boolean> {
    let client: ControlClient | undefined;
    try {
      // A client that is ending (its session or server went away) is waited
      // for: its end clears the slot for the new one.
      await this.#client?.done;
      const [rows] = await this.#fallback.run([["list-sessions", "-F", "#{pid} #{session_id}"]], {
        timeoutMs: ATTACH_TIMEOUT_MS,
      });
      const [serverPid, session] = rows.split("\n").find((row) => row !== "")?.split(" ") ?? [];
      if (session === undefined || this.#closing) return this.#failed();
      client = await this.#start(session);
      if (!client) return this.#failed();
      client.serverPid = serverPid;
      const timer = setTimeout(() => client?.kill(), ATTACH_TIMEOUT_MS);
      const attached = await client.ready;
      clearTimeout(timer);
      if (!attached || this.#closing) {
        await client.close();
        return this.#failed();
      }
      this.#client = client;
      this.#verifyAt = Date.now() + this.#verifyMs;
      this.#stats.attaches++;
      this.#backoffMs = MIN_BACKOFF_MS;
      this.#nextAttemptAt = 0;
      return true;
    } catch {
      // No server, tmux missing or refused: the fallback reports those to callers.
      await client?.close();
      return this.#failed();
    }
  }

  #failed(): false {
    this.#nextAttemptAt = Date.now() + this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    return false;
  }

  /** Spawns a client for `session`; undefined when the transport closed meanwhile. */
  async #start(session: string): Promise<ControlClient | undefined> {
    // no-output: no %output flood from panes; commands go through this client.
    const child = await spawnControlClient(this.binary, this.globalArgs, session, {
      flags: ["ignore-size", "no-output"],
      stillWanted: () => !this.#closing,
    });
    if (!child) return undefined;
    const client = new ControlClient(child, this.#marker, this.socketLabel, (line) => {
      for (const listener of this.#listeners) {
        try {
          listener(line);
        } catch {
          // A faulty listener must not break the framing of replies.
        }
      }
    }, (ended) => {
      if (this.#client !== ended) return;
      this.#client = undefined;
      // Reattach lazily on the next run(); a client that died at once backs off.
      if (Date.now() - ended.startedAt < SHORT_LIFE_MS) this.#failed();
      else this.#nextAttemptAt = 0;
    });
    this.#clients.add(client);
    void client.done.then(() => this.#clients.delete(client));
    return client;
  }
}
