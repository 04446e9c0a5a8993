/**
 * What the MCP SDK's run-time pieces would cost against our own JSON-RPC
 * layer (server/jsonrpc.ts, server/rpc_endpoint.ts, server/protocol_server.ts):
 *
 * - start-up: fresh processes run with the start task's V8 flags load zod
 *   (the tools load it anyway), then one of: our layer and stdio transport;
 *   the SDK's `types.js`, `shared/protocol.js` and `shared/stdio.js` (what
 *   the server built on before); the SDK's `types.js` and `server/index.js`
 *   (its public `Server`). Main-thread CPU and wall time of that import and
 *   the resident memory after it, medians of `runs`.
 * - per message: reading one `tools/call` line into a checked request, ours
 *   (the envelope and the params checked by hand) against the SDK's way
 *   (`deserializeMessage`, `Protocol`'s classification of the message, the
 *   request schema), median of 20,000 after 2,000 of warm-up, in this process.
 * - per call: the check of each result against `CallToolResultSchema` that
 *   `Server` adds, on two typical read results.
 *
 * Usage: deno run --allow-run --allow-read bench/sdk_server_bench.ts [runs]
 * (each child runs with --allow-all: reading a thread's CPU time needs it)
 *
 * @module
 */

import {
  CallToolRequestSchema,
  CallToolResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from "@modelcontextprotocol/sdk/types.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import config from "../deno.json" with { type: "json" };
import { readLine } from "../server/jsonrpc.ts";
import { paramsProblem } from "../server/request_params.ts";
import { median } from "./stats.ts";

const RUNS = Number(Deno.args[0] ?? 10);
const MODULES: Record<string, string[]> = {
  "our layer": ["../server/protocol_server.ts", "../server/stdio.ts"],
  "SDK Protocol": [
    "@modelcontextprotocol/sdk/types.js",
    "@modelcontextprotocol/sdk/shared/protocol.js",
    "@modelcontextprotocol/sdk/shared/stdio.js",
  ],
  "SDK Server": [
    "@modelcontextprotocol/sdk/types.js",
    "@modelcontextprotocol/sdk/server/index.js",
    "@modelcontextprotocol/sdk/shared/stdio.js",
  ],
};

/** This thread's CPU time in ms (the main thread's schedstat). */
function cpuMs(): number {
  return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
}

/** Child mode: import zod, then `modules`; print what the second step cost. */
async function child(modules: string[]): Promise<void> {
  await import("zod");
  const [cpu, wall] = [cpuMs(), performance.now()];
  for (const module of modules) await import(module);
  const rss = /VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))![1];
  console.log(JSON.stringify({
    cpu: cpuMs() - cpu,
    wall: performance.now() - wall,
    rssMiB: Number(rss) / 1024,
  }));
}

/** Medians over fresh processes, one warm-up first; runs alternate between the subjects. */
async function startUp(): Promise<Map<string, Record<string, string>>> {
  const v8 = config.tasks.start.split(" ").filter((part) => part.startsWith("--v8-flags="));
  const samples = new Map(
    Object.keys(MODULES).map((name) => [name, [] as Record<string, number>[]]),
  );
  for (let i = 0; i <= RUNS; i++) {
    for (const name of samples.keys()) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--quiet", "--allow-all", ...v8, import.meta.filename!, "--child", name],
        stdout: "piped",
      }).output();
      if (i > 0) samples.get(name)!.push(JSON.parse(new TextDecoder().decode(out.stdout)));
    }
  }
  const pick = (list: Record<string, number>[], key: string) =>
    median(list.map((s) => s[key])).toFixed(1);
  return new Map(
    [...samples].map((
      [name, list],
    ) => [name, { cpu: pick(list, "cpu"), wall: pick(list, "wall"), rss: pick(list, "rssMiB") }]),
  );
}

/** Median µs of `read` on `line`, after warm-up. */
function perMessage(read: (line: string) => unknown, line: string): number {
  for (let i = 0; i < 2000; i++) read(line);
  const samples = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    for (let j = 0; j < 1000; j++) read(line);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Our way: the envelope, then the params of the method. */
function ours(line: string): unknown {
  const reading = readLine(line);
  if (!("message" in reading) || !("id" in reading.message)) throw new Error("not a request");
  const request = reading.message as { method: "tools/call"; params?: unknown };
  if (paramsProblem(request.method, request.params)) throw new Error("bad params");
  return request;
}

/** The SDK's way, as `Protocol` took a request to a handler with its schema. */
function sdks(line: string): unknown {
  const message = deserializeMessage(line);
  if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) throw new Error("?");
  if (!isJSONRPCRequest(message)) throw new Error("not a request");
  const parsed = CallToolRequestSchema.safeParse(message);
  if (!parsed.success) throw new Error("bad params");
  return parsed.data;
}

function paneView(n: number) {
  return {
    paneId: `%${n}`,
    windowId: `@${n >> 1}`,
    sessionId: `$${n >> 3}`,
    index: n & 1,
    width: 80,
    height: 24,
    title: "host",
    active: true,
    dead: false,
    zoomed: false,
    inMode: false,
    currentCommand: "bash",
    currentPath: "/home/user/project",
    pid: 1000 + n,
    historySize: 2000,
    historyLimit: 2000,
    isCaller: false,
  };
}

function results(): [string, Record<string, unknown>][] {
  const panes = Array.from({ length: 32 }, (_, n) => paneView(n));
  const lines = Array.from({ length: 2000 }, (_, n) => `line ${n} of the history, some output`);
  const result = (structured: Record<string, unknown>) => ({
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  });
  return [
    ["list_panes, 32 panes", result({ panes })],
    [
      "capture_pane, 2,000 lines",
      result({ lines, truncated: false, droppedLines: 0, droppedBytes: 0 }),
    ],
  ];
}

function resultCheck(result: Record<string, unknown>) {
  let start = performance.now();
  if (!CallToolResultSchema.safeParse(result).success) throw new Error("not a tool result");
  const first = performance.now() - start;
  for (let i = 0; i < 200; i++) CallToolResultSchema.safeParse(result);
  const samples = [];
  for (let i = 0; i < 2000; i++) {
    start = performance.now();
    CallToolResultSchema.safeParse(result);
    samples.push(performance.now() - start);
  }
  return { first: first.toFixed(2), p50: median(samples).toFixed(3) };
}

if (Deno.args[0] === "--child") {
  await child(MODULES[Deno.args[1]]);
} else {
  for (const [name, { cpu, wall, rss }] of await startUp()) {
    console.log(
      `start-up, ${name} after zod: ${cpu} ms main-thread CPU, ${wall} ms wall, ` +
        `RSS ${rss} MiB after (medians of ${RUNS})`,
    );
  }
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 12,
    method: "tools/call",
    params: { name: "capture_pane", arguments: { paneId: "%1", includeHistory: true } },
  });
  for (const [name, read] of [["our", ours], ["the SDK's", sdks]] as const) {
    console.log(
      `per message, a tools/call line read ${name} way: ${perMessage(read, call).toFixed(2)} µs`,
    );
  }
  for (const [label, result] of results()) {
    const { first, p50 } = resultCheck(result);
    console.log(`per call, Server's result check, ${label}: first ${first} ms, p50 ${p50} ms`);
  }
}
