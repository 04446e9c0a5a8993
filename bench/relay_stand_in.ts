/**
 * A stand-in MCP server for the benchmark's relay floor: it answers every
 * `tools/call` with the answer our server gave to the same call, recorded in
 * the JSON file named by its first argument, after sending that call's tmux
 * command line (if any) through a control-mode client of its own and reading
 * tmux's answer. Timed through the same SDK client, it is what any server on
 * Deno pays for the call whatever its own work: the client's, both pipes,
 * both hops and tmux's. For a search it also decodes tmux's answer and tests
 * every line with our pattern engine, as any search must.
 *
 * Usage: deno run --allow-read --allow-run=tmux bench/relay_stand_in.ts ANSWERS.json SOCKET SESSION
 *
 * @module
 */

import { compilePattern, loadPatternEngine } from "../domain/pattern.ts";
import { spawnControlClient } from "./control_floor.ts";

/** What a search matches every line of tmux's answer with. */
export interface Search {
  pattern: string;
  ignoreCase: boolean;
}

/** A recorded call: our answer, the tmux command line under it, and what it searches for. */
export interface Recorded {
  result: unknown;
  line?: string;
  search?: Search;
}

/** Recorded calls, keyed by {@link callKey}. */
export type Answers = Record<string, Recorded>;

/** The key of a call: the tool's name and its arguments as JSON. */
export function callKey(name: string, args: unknown): string {
  return `${name} ${JSON.stringify(args ?? {})}`;
}

interface Request {
  id?: string | number;
  method?: string;
  params?: { name?: string; arguments?: unknown; protocolVersion?: string };
}

/** A command line waiting for its block's end; `text` collects the block when asked. */
interface Waiting {
  resolve(text: string): void;
  text: string[] | null;
}

/** A control-mode client: sends command lines, resolving each at its block's end. */
class ControlRelay {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting: Waiting[] = [];
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  readonly #textDecoder = new TextDecoder();
  /** The start of a `%` line the last chunk did not finish. */
  #partial: string | null = null;
  #atLineStart = true;

  constructor(socketPath: string, session: string) {
    this.#child = spawnControlClient(socketPath, session);
    this.#writer = this.#child.stdin.getWriter();
    this.#waiting.push({ resolve: () => {}, text: null }); // the attach's own block
    this.#read();
  }

  /**
   * Sends `line`; resolves once its block ended, with the block's text
   * decoded (its `%begin` and `%end` lines too) when `decode`, else "".
   */
  send(line: string, decode = false): Promise<string> {
    const ended = new Promise<string>((resolve) =>
      this.#waiting.push({ resolve, text: decode ? [] : null })
    );
    this.#writer.write(this.#encoder.encode(line + "\n"));
    return ended;
  }

  async #read(): Promise<void> {
    const reader = this.#child.stdout.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      this.#scan(next.value);
    }
  }

  /** Looks only at lines starting with `%`, as any control client must, without decoding the rest. */
  #scan(bytes: Uint8Array): void {
    // Calls come one at a time: every chunk until the block's end is its.
    this.#waiting[0]?.text?.push(this.#textDecoder.decode(bytes, { stream: true }));
    let from = 0;
    if (this.#partial !== null) {
      const newline = bytes.indexOf(0x0a);
      if (newline < 0) {
        this.#partial += this.#decoder.decode(bytes);
        return;
      }
      this.#line(this.#partial + this.#decoder.decode(bytes.subarray(0, newline)));
      this.#partial = null;
      from = newline + 1;
      this.#atLineStart = true;
    }
    for (let at = bytes.indexOf(0x25, from); at >= 0; at = bytes.indexOf(0x25, at + 1)) {
      if (at === 0 ? !this.#atLineStart : bytes[at - 1] !== 0x0a) continue;
      const newline = bytes.indexOf(0x0a, at);
      if (newline < 0) {
        this.#partial = this.#decoder.decode(bytes.subarray(at));
        return;
      }
      this.#line(this.#decoder.decode(bytes.subarray(at, newline)));
      at = newline;
    }
    if (bytes.length > 0) this.#atLineStart = bytes[bytes.length - 1] === 0x0a;
  }

  #line(line: string): void {
    if (!/^%(?:end|error) \d+ \d+ \d+$/.test(line)) return;
    const ended = this.#waiting.shift();
    ended?.resolve(ended.text?.join("") ?? "");
  }
}

/** Lines of `text` that `search` matches; counted, so that no engine may skip the work. */
function matchingLines(text: string, search: Search): number {
  const matcher = compilePattern(search.pattern, { literal: false, ignoreCase: search.ignoreCase });
  let hits = 0;
  for (const line of text.split("\n")) if (matcher.test(line)) hits++;
  return hits;
}

/** The answer line to `request`, or nothing for a notification. */
async function answer(request: Request, answers: Answers, relay?: ControlRelay) {
  if (request.id === undefined) return undefined;
  const id = JSON.stringify(request.id);
  if (request.method === "initialize") {
    const result = {
      protocolVersion: request.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "relay-stand-in", version: "0" },
    };
    return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result)}}\n`;
  }
  const recorded = request.method === "tools/call"
    ? answers[callKey(request.params?.name ?? "", request.params?.arguments)]
    : undefined;
  if (recorded === undefined) {
    const error = { code: -32601, message: `no recorded answer for ${request.method}` };
    return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(error)}}\n`;
  }
  if (recorded.line !== undefined && relay) {
    const text = await relay.send(recorded.line, recorded.search !== undefined);
    if (recorded.search && matchingLines(text, recorded.search) === 0) {
      const error = { code: -32603, message: "the search matched no line" };
      return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(error)}}\n`;
    }
  }
  return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(recorded.result)}}\n`;
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length;) done += await Deno.stdout.write(bytes.subarray(done));
}

async function main([path, socketPath, session]: string[]): Promise<void> {
  const answers = JSON.parse(await Deno.readTextFile(path)) as Answers;
  if (Object.values(answers).some((recorded) => recorded.search)) await loadPatternEngine();
  const relay = socketPath ? new ControlRelay(socketPath, session) : undefined;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let pending = "";
  for (;;) {
    const read = await Deno.stdin.read(buffer);
    if (read === null) Deno.exit(0);
    const lines = (pending + decoder.decode(buffer.subarray(0, read), { stream: true })).split(
      "\n",
    );
    pending = lines.pop()!;
    for (const line of lines) {
      const out = line.trim() === "" ? undefined : await answer(JSON.parse(line), answers, relay);
      if (out !== undefined) await writeAll(encoder.encode(out));
    }
  }
}

if (import.meta.main) await main(Deno.args);
