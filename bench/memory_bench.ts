/**
 * Memory benchmark: the server's resident memory (VmRSS, via ps) after 100
 * tool calls and after 5,000, on a private tmux topology. The goal is growth
 * within 10% (no per-call leak); this reports the figures, it does not time
 * anything. Run:
 *
 *   deno run --allow-run --allow-read --allow-write --allow-env bench/memory_bench.ts [calls] [control|process] [tool,...]
 *
 * With MEMORY_V8_FLAGS=--max-old-space-size=24 the server runs with a capped heap.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readTopology, rssKiB, startTopology } from "../tests/hardening.ts";
import { startServer } from "../tests/harness.ts";

const TOTAL = Number(Deno.args[0] ?? 5000);
const TRANSPORT = Deno.args[1] ?? "control";
/** Optional comma list: only these tools of the mix (to find which one grows). */
const ONLY = Deno.args[2]?.split(",");
/**
 * MEMORY_V8_FLAGS (e.g. --max-old-space-size=24) runs the server with a
 * capped heap: flat memory then shows that growth under the default flags is
 * V8 letting the heap grow, not objects kept alive.
 */
const V8_FLAGS = Deno.env.get("MEMORY_V8_FLAGS");
const EARLY = 100;
/** Calls in flight at once, so 5,000 calls finish in reasonable time. */
const PARALLEL = 4;

/** Anonymous and file-backed resident KiB of `pid` (from /proc/<pid>/status, read by grep). */
async function rssParts(pid: number): Promise<{ RssAnon: number; RssFile: number }> {
  const out = await new Deno.Command("grep", {
    args: ["-E", "^(RssAnon|RssFile):", `/proc/${pid}/status`],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN);
  return { RssAnon: kib("RssAnon"), RssFile: kib("RssFile") };
}

const fx = await startTopology();
const server = await startServer(null, {
  denoFlags: V8_FLAGS ? [`--v8-flags=${V8_FLAGS}`] : [],
  args: ["-S", fx.socketPath, "--transport", TRANSPORT],
});
const call = async (name: string, args: Record<string, unknown>) =>
  await server.client.callTool({ name, arguments: args }) as CallToolResult;
try {
  const pid = server.transport.pid!;
  const { panes, windows } = await readTopology(fx);
  await fx.runInPane(panes[0], "seq 1 400");
  // A mix of the common reads; each call builds and drops a result.
  const fullMix: [string, Record<string, unknown>][] = [
    ["list_panes", {}],
    ["capture_pane", { paneId: panes[0], includeHistory: true }],
    ["snapshot_pane", { paneId: panes[1] }],
    ["get_pane_info", { paneId: panes[2] }],
    ["get_window_info", { windowId: windows[0] }],
    ["search_panes", { pattern: "3\\d\\d", includeHistory: true }],
    ["capture_since", { paneId: panes[0] }],
    ["list_sessions", {}],
    ["get_pane_info", { paneId: "%99999" }],
  ];
  const mix = ONLY ? fullMix.filter(([tool]) => ONLY.includes(tool)) : fullMix;
  let done = 0;
  let failed = 0;
  const run = async (until: number) => {
    const worker = async () => {
      while (done < until) {
        const [tool, args] = mix[done++ % mix.length];
        const result = await call(tool, args);
        if (result.isError && tool !== "get_pane_info") failed++;
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  };
  await run(EARLY);
  const early = await rssKiB(pid);
  const earlyParts = await rssParts(pid);
  const started = performance.now();
  // Samples along the way tell steady growth (a leak) from a heap that warms up and levels off.
  const samples: string[] = [];
  for (let at = 1000; at < TOTAL; at += 1000) {
    await run(at);
    samples.push(`${at}: ${((await rssKiB(pid)) / 1024).toFixed(1)}`);
  }
  await run(TOTAL);
  const seconds = (performance.now() - started) / 1000;
  const late = await rssKiB(pid);
  const lateParts = await rssParts(pid);
  const growth = (late - early) / early * 100;
  console.log(
    `memory [${TRANSPORT}${V8_FLAGS ? ` ${V8_FLAGS}` : ""}]: VmRSS after ${EARLY} calls ${
      (early / 1024).toFixed(1)
    } MiB, after ${done} calls ` +
      `${(late / 1024).toFixed(1)} MiB (${growth >= 0 ? "+" : ""}${
        growth.toFixed(1)
      }%, goal within 10%); ` +
      `${failed} unexpected errors; ${(done - EARLY) / seconds | 0} calls/s`,
  );
  console.log(`  MiB along the way: ${samples.join(", ")}`);
  // File-backed pages are the runtime's executable as more of its code runs
  // (the optimizing compiler, more ops): resident, but not this process's data.
  const part = (key: "RssAnon" | "RssFile") =>
    `${key} ${(earlyParts[key] / 1024).toFixed(1)} → ${(lateParts[key] / 1024).toFixed(1)} MiB (${
      ((lateParts[key] - earlyParts[key]) / earlyParts[key] * 100).toFixed(1)
    }%)`;
  console.log(`  of which ${part("RssAnon")}, ${part("RssFile")}`);
} finally {
  await server.client.close();
  await fx.close();
}
