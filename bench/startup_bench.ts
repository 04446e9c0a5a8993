/**
 * Start-up time: from spawning the server to the answer of `initialize`, as
 * an MCP client sees it, over 10 runs after one warm-up (median, min, max).
 * Measured two ways: `deno task start` literally, and the `deno run` command
 * line a client configuration runs (what `--doctor` prints).
 *
 * Usage: deno run --allow-run --allow-read --allow-write --allow-env bench/startup_bench.ts [runs]
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serverArgv, TmuxFixture } from "../tests/harness.ts";
import { median } from "./stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const RUNS = Number(Deno.args[0] ?? 10);

async function timeToInitialize(command: string, args: string[]): Promise<number> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
    stderr: "pipe",
  });
  const client = new Client({ name: "startup-bench", version: "0" });
  const started = performance.now();
  await client.connect(transport);
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${median(samples).toFixed(0)} ms (min ${sorted[0].toFixed(0)}, max ${
    sorted.at(-1)!.toFixed(0)
  }, n=${sorted.length})`;
}

const fixture = await TmuxFixture.start();
try {
  const socket = ["-S", fixture.socketPath];
  const direct = serverArgv();
  const ways: [string, string, string[]][] = [
    ["deno task start", Deno.execPath(), ["task", "start", ...socket]],
    [direct.join(" "), Deno.execPath(), [...direct.slice(1), ...socket]],
  ];
  for (const [label, command, args] of ways) {
    await timeToInitialize(command, args); // warm-up: module cache, first tmux contact
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await timeToInitialize(command, args));
    console.log(`${label}: spawn to initialize answer: ${summary(samples)}`);
  }
} finally {
  await fixture.close();
}
