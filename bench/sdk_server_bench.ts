/**
 * What the SDK's public `Server` would cost against server/protocol_server.ts
 * (our subclass of the SDK's `Protocol`):
 *
 * - start-up: fresh processes run with the start task's V8 flags load the
 *   SDK's types, then either `shared/protocol.js` (ours) or
 *   `server/index.js` (`Server`); main-thread CPU and wall time of that
 *   second import and the resident memory after it, medians of `runs`.
 * - per call: the work `Server` adds to every `tools/call` beyond ours,
 *   which parses the request the same way: checking the result against
 *   `CallToolResultSchema`. Timed in this process on two typical read
 *   results (list_panes of 32 panes, capture_pane of 2,000 lines), first
 *   check and median of 2,000 after 200 of warm-up.
 *
 * Usage: deno run --allow-run --allow-read bench/sdk_server_bench.ts [runs]
 * (each child runs with --allow-all: reading a thread's CPU time needs it)
 *
 * @module
 */

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import config from "../deno.json" with { type: "json" };
import { median } from "./stats.ts";

const RUNS = Number(Deno.args[0] ?? 10);
const MODULES = {
  ours: "@modelcontextprotocol/sdk/shared/protocol.js",
  server: "@modelcontextprotocol/sdk/server/index.js",
};

/** This thread's CPU time in ms (the main thread's schedstat). */
function cpuMs(): number {
  return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
}

/** Child mode: import the SDK's types, then `module`; print what the second import cost. */
async function child(module: string): Promise<void> {
  await import("@modelcontextprotocol/sdk/types.js");
  const [cpu, wall] = [cpuMs(), performance.now()];
  await import(module);
  const rss = /VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))![1];
  console.log(JSON.stringify({
    cpu: cpuMs() - cpu,
    wall: performance.now() - wall,
    rssMiB: Number(rss) / 1024,
  }));
}

async function startUp(which: keyof typeof MODULES) {
  const v8 = config.tasks.start.split(" ").filter((part) => part.startsWith("--v8-flags="));
  const samples: Record<string, number>[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-all", ...v8, import.meta.filename!, "--child", which],
      stdout: "piped",
    }).output();
    if (i > 0) samples.push(JSON.parse(new TextDecoder().decode(out.stdout)));
  }
  const pick = (key: string) => median(samples.map((s) => s[key])).toFixed(1);
  return { cpu: pick("cpu"), wall: pick("wall"), rss: pick("rssMiB") };
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

function perCall(result: Record<string, unknown>) {
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
  await child(MODULES[Deno.args[1] as keyof typeof MODULES]);
} else {
  for (const which of ["ours", "server"] as const) {
    const { cpu, wall, rss } = await startUp(which);
    console.log(
      `start-up, ${MODULES[which]} after types.js: ${cpu} ms main-thread CPU, ${wall} ms wall, ` +
        `RSS ${rss} MiB after (medians of ${RUNS})`,
    );
  }
  for (const [label, result] of results()) {
    const { first, p50 } = perCall(result);
    console.log(`per call, Server's result check, ${label}: first ${first} ms, p50 ${p50} ms`);
  }
}
