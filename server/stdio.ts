/**
 * The MCP stdio transport on Deno's own streams: newline-delimited JSON-RPC
 * on stdin and stdout.
 *
 * The SDK's `StdioServerTransport` runs on Node's `process` streams, whose
 * compatibility layer costs start-up time and per-message work; this one
 * reads `Deno.stdin` and writes `Deno.stdout` directly, with the same framing
 * and the same 10 MiB line limit. Each line is checked as a JSON-RPC message
 * by server/jsonrpc.ts; a line that is none gets its error answer here.
 *
 * @module
 */

import { errorAnswer, ErrorCode, type JSONRPCMessage, readLine } from "./jsonrpc.ts";
import type { MessageTransport } from "./rpc_endpoint.ts";
import { messageJson } from "../core/results.ts";

/** The longest line accepted, as the SDK's own transport (10 MiB). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Splits a byte stream into lines; holds the unfinished tail. */
export class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;
  /** Inside a line already reported as too long: drop bytes up to its newline. */
  #skipping = false;
  readonly #maxBytes: number;

  /** A splitter refusing lines longer than `maxBytes`. */
  constructor(maxBytes = MAX_LINE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Feeds `chunk`; returns the lines it completes (without `\n` or a final
   * `\r`), decoded as UTF-8 only once whole, so a character split across
   * chunks survives. A line over the limit is dropped and reported as an
   * `Error` in its place.
   */
  push(chunk: Uint8Array): (string | Error)[] {
    const lines: (string | Error)[] = [];
    let from = 0;
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from);
      const piece = chunk.subarray(from, at < 0 ? chunk.length : at);
      if (!this.#skipping) {
        if (this.#size + piece.length > this.#maxBytes) {
          this.#reset();
          this.#skipping = true;
          lines.push(
            new Error(`a message line is longer than ${this.#maxBytes} bytes; it was dropped`),
          );
        } else if (at >= 0) {
          lines.push(decodeLine(this.#join(piece)));
        } else if (piece.length > 0) {
          // Copy: the reader may reuse the chunk's memory.
          this.#parts.push(piece.slice());
          this.#size += piece.length;
        }
      }
      if (at < 0) return lines;
      this.#skipping = false;
      from = at + 1;
    }
  }

  /** The held bytes followed by `last`, as one array; empties the holder. */
  #join(last: Uint8Array): Uint8Array {
    if (this.#parts.length === 0) return last;
    const whole = new Uint8Array(this.#size + last.length);
    let offset = 0;
    for (const part of this.#parts) {
      whole.set(part, offset);
      offset += part.length;
    }
    whole.set(last, offset);
    this.#reset();
    return whole;
  }

  #reset(): void {
    this.#parts = [];
    this.#size = 0;
  }
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function decodeLine(bytes: Uint8Array): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d
    ? bytes.length - 1
    : bytes.length;
  return decoder.decode(bytes.subarray(0, end));
}

/** Where the transport reads and writes; stdin and stdout unless a test says otherwise. */
export interface StdioStreams {
  /** Reads some bytes into `buffer`, resolving with how many, or null at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Writes some of `bytes`, resolving with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}

/** The size of the buffer stdin is read into. */
const READ_BUFFER_BYTES = 64 * 1024;

/** An MCP transport over newline-delimited JSON on stdin and stdout. */
export class DenoStdioTransport implements MessageTransport {
  /** Called once when stdin ends or the transport is closed. */
  onclose?: () => void;
  /** Called with each unreadable message or I/O failure. */
  onerror?: (error: Error) => void;
  /** Called with each message read. */
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #streams: StdioStreams;
  #started = false;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  /** A transport on `streams` (default: this process's stdin and stdout). */
  constructor(streams?: StdioStreams) {
    // Reading stdin into one buffer, not through `Deno.stdin.readable`: the
    // stream's promise chain per chunk cost each message about 40 µs of the
    // server's CPU (measured on an echo server: 0.15 against 0.09 ms).
    this.#streams = streams ?? {
      read: (buffer) => Deno.stdin.read(buffer),
      write: (bytes) => Deno.stdout.write(bytes),
    };
  }

  /** Starts reading; resolves at once, messages arrive through `onmessage`. */
  start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport is already started");
    this.#started = true;
    void this.#read();
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    const splitter = new LineSplitter();
    // The splitter copies what it holds, so the buffer is reused for every read.
    const buffer = new Uint8Array(READ_BUFFER_BYTES);
    try {
      while (!this.#closed) {
        const n = await this.#streams.read(buffer);
        if (n === null || this.#closed) break;
        for (const line of splitter.push(buffer.subarray(0, n))) this.#deliver(line);
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    }
    await this.close();
  }

  #deliver(line: string | Error): void {
    if (line instanceof Error) {
      this.onerror?.(line);
      this.#answer(errorAnswer(null, ErrorCode.InvalidRequest, `Invalid request: ${line.message}`));
      return;
    }
    if (line.trim() === "") return;
    const reading = readLine(line);
    if ("message" in reading) {
      this.onmessage?.(reading.message);
      return;
    }
    this.onerror?.(reading.problem);
    // Answered, so a client waiting on the id is not left hanging.
    if (reading.answer) this.#answer(reading.answer);
  }

  #answer(answer: JSONRPCMessage): void {
    this.#write(answer).catch((error: unknown) => this.onerror?.(asError(error)));
  }

  /** Writes one message as a line; messages go out whole and in order. */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  #write(message: JSONRPCMessage): Promise<void> {
    // A tool result measured against the byte budget was serialized then: not again.
    const bytes = encoder.encode(messageJson(message) + "\n");
    const written = this.#writing.then(() => this.#writeAll(bytes));
    // A failed write must not stop the ones queued after it.
    this.#writing = written.catch(() => {});
    return written;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    if (this.#closed) throw new Error("the stdio transport is closed");
    let offset = 0;
    while (offset < bytes.length) offset += await this.#streams.write(bytes.subarray(offset));
  }

  /** Stops reading and reports the close once. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // A read still waiting on stdin ends the loop when it returns; the
    // process exits after the close, so nothing else waits on it.
    this.#closed = true;
    this.onclose?.();
    return Promise.resolve();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
