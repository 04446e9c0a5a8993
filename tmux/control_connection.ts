/**
 * One `tmux -C attach-session` child: writing round trips to it and reading
 * its `%begin`/`%end` blocks back into answers, in order.
 *
 * @module
 */

import { killChild } from "./children.ts";
import { leaveControlClient, markAttached, quietCommands, readChunks } from "./control_client.ts";
import { commandLine, quoteArgument } from "./control_quote.ts";
import { classifyTmuxFailure, TmuxError } from "./errors.ts";
import type { RunOptions } from "./transport.ts";

const encoder = new TextEncoder();
const PERCENT = 0x25;
const NEWLINE = 0x0a;

/** The first line of `text`, which may hold several. */
function firstLine(text: string): string {
  const nl = text.indexOf("\n");
  return nl === -1 ? text : text.slice(0, nl);
}

/** Default bound of one round trip, as for one-shot processes. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** How long close() waits for the client to leave after its stdin ends. */
const EXIT_GRACE_MS = 2_000;
/** An abandoned request unanswered this long means the client's queue is stuck. */
const WEDGED_MS = 30_000;

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

export function closedError(): TmuxError {
  return new TmuxError(
    "failed",
    "the tmux transport is closed",
    "The server is shutting down; start it again to talk to tmux.",
  );
}

/** Errors of requests the control connection dropped (see {@link ControlTransport.run}). */
export const lostErrors = new WeakSet<TmuxError>();

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
export class ControlClient {
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
  #partial = "";
  /** Keeps a U+FEFF that starts the output or a line: it is text tmux printed. */
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
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

  /**
   * Splits the output into lines; a line, or a character, may span chunks.
   * Decoded a chunk at a time, not a line at a time: a newline byte is never
   * part of a UTF-8 sequence, so the lines are the same, and a long capture
   * costs one decode instead of one per row. Inside a block, the run of lines
   * up to the next one starting with `%` (which may close the block) is
   * taken as one piece: a long capture is not cut into rows here only to be
   * joined again.
   */
  #feed(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    let nl = text.indexOf("\n");
    if (nl !== -1 && this.#partial !== "") {
      this.#line(this.#partial + text.slice(0, nl));
      this.#partial = "";
      start = nl + 1;
    }
    while (start < text.length) {
      if (this.#blockKey !== undefined) start = this.#content(text, start);
      nl = text.indexOf("\n", start);
      if (nl === -1) break;
      this.#line(text.slice(start, nl));
      start = nl + 1;
    }
    if (start < text.length) this.#partial += text.slice(start);
  }

  /**
   * Takes the whole lines of a block from `start` up to the first line that
   * starts with `%` (only such a line can close the block) as one piece of
   * the block, its lines joined by newlines; returns where it stopped.
   */
  #content(text: string, start: number): number {
    if (text.charCodeAt(start) === PERCENT) return start;
    // A search for "%" alone, rare in output, is much faster than one for "\n%".
    let mark = text.indexOf("%", start);
    while (mark !== -1 && text.charCodeAt(mark - 1) !== NEWLINE) mark = text.indexOf("%", mark + 1);
    const end = mark !== -1 ? mark - 1 : text.lastIndexOf("\n");
    if (end < start) return start;
    this.#blockLines.push(text.slice(start, end));
    return end + 1;
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

  /**
   * Routes one completed block (of a command we sent) to the oldest request.
   * `lines` are pieces of the block's text, each one or more whole lines.
   */
  #block(lines: string[], failed: boolean): void {
    const request = this.#pending[0];
    const first = failed || lines.length === 0 ? undefined : firstLine(lines[0]);
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
    if (lines.length === 1 && lines[0] === this.marker) {
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
