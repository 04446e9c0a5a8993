/**
 * Read-tool latency, processes per call, start-up and memory, for both
 * transports in the same run (issue 3's goals), printed as markdown.
 *
 * A private tmux server (socket in a temp dir, `-f /dev/null`) holds
 * 4 sessions × 4 windows × 2 panes running the fixture shell; one pane has
 * 2,000 lines of history. The MCP server is driven over stdio by the SDK
 * client, as a client would, with the start task's command line from deno.json.
 *
 * - Latency: 200 timed calls per tool per transport, measured at the client
 *   (request written to answer parsed, output-schema check included), in
 *   steady state. First every tool is called 100 times on each server, round
 *   robin: a fresh server and its client get faster over their first ~500
 *   calls as V8 compiles and optimizes the code they run (list_panes p50
 *   falls from about 3.2 to 2.3 ms over that stretch). Then each tool's calls
 *   run in blocks of 50 that alternate between the two servers, so both see
 *   the same drift in the machine's load (on this shared machine, the same
 *   code measures 2.0 ms in one run and 2.9 ms in the next). The first 10
 *   calls of each block are not timed: right after the other server's burst
 *   (process mode starts and reaps a tmux process per call) the next ~10
 *   calls run 20–50% slower while caches and the scheduler settle, a cost
 *   that no client of one server pays and that would tax control mode alone.
 * - Processes per call: a second pair of servers runs with `--tmux` set to a
 *   wrapper script that appends a line to a counter file and `exec`s the real
 *   tmux (granted with one extra `--allow-run=<wrapper>`). Latency is never
 *   measured through the wrapper: its own `sh` start would slow process mode.
 * - Start-up: spawn to the `initialize` answer, median of 10 after a warm-up.
 * - Memory: VmRSS of the server process after its 10th, 1,000th and 2,000th
 *   tool call (the last shows whether growth levels off). The round-robin
 *   warm-up means every benchmarked tool has run by the 10th call, so the
 *   comparison is between the same mix of work, not between list_panes alone
 *   and everything.
 *
 * Usage: deno task bench:transports [calls-per-tool]
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type CountingTmux,
  countingTmux,
  FIXTURE_SHELL,
  startServer,
  TmuxFixture,
} from "../tests/harness.ts";
import { rssKiB } from "../tests/hardening.ts";
import {
  buildTopology,
  fillHistory,
  HISTORY_LINES,
  loadAverage,
  SESSIONS,
  WINDOWS,
} from "./fixture.ts";
import { median, quantile } from "./stats.ts";

const CALLS = Number(Deno.args[0] ?? 200);
/** Timed calls in a row on one server before switching to the other. */
const BLOCK = 50;
/** Untimed calls at the start of each block, while the machine settles after the other server. */
const SETTLE = 10;
/** Warm-up calls of every tool on each latency server, round robin. */
const WARMUP = 100;
/** Warm-up calls of every tool on each process-counting server (counts settle at once). */
const COUNT_WARMUP = 25;
const COUNTED_CALLS = 20;
const STARTUP_RUNS = 10;
const TRANSPORTS = ["control", "process"] as const;
type Mode = typeof TRANSPORTS[number];

/** One MCP server process and its client. */
interface Server {
  client: Client;
  pid: number;
  calls: number;
  /** VmRSS in KiB, sampled after the call with that number. */
  rss: Map<number, number>;
  close(): Promise<void>;
}

const RSS_SAMPLES = [10, 1000, 2000];

/**
 * Spawns the server with the start task's flags (plus `extraFlags` before
 * main.ts) against `socketPath`; resolves once it answered initialize.
 */
async function spawnServer(
  socketPath: string,
  args: string[],
  extraFlags: string[] = [],
): Promise<Server> {
  // No socket for startServer: it would wait for the control client, and
  // start-up is timed to the initialize answer.
  const session = await startServer(null, {
    args: ["-S", socketPath, ...args],
    denoFlags: extraFlags,
  });
  return {
    client: session.client,
    pid: session.transport.pid!,
    calls: 0,
    rss: new Map(),
    close: () => session.close(),
  };
}

/** Calls a tool; throws on an error result. Resolves with the client-side latency in ms. */
async function timedCall(server: Server, name: string, args: Record<string, unknown>) {
  const began = performance.now();
  const result = await server.client.callTool({ name, arguments: args }) as CallToolResult;
  const elapsed = performance.now() - began;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  server.calls++;
  if (RSS_SAMPLES.includes(server.calls)) server.rss.set(server.calls, await rssKiB(server.pid));
  return elapsed;
}

async function startupMs(socketPath: string, mode: Mode): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i <= STARTUP_RUNS; i++) {
    const began = performance.now();
    const server = await spawnServer(socketPath, ["--transport", mode]);
    const elapsed = performance.now() - began;
    await server.close();
    if (i > 0) samples.push(elapsed); // the first run warms the module cache
  }
  return samples;
}

/** One benchmarked workload: a tool and the arguments of its i-th call. */
interface Workload {
  label: string;
  tool: string;
  args: (i: number) => Record<string, unknown>;
  /** Counted against the read-tool goals (≤ 3 ms p50, ≤ 10 ms p95). */
  readGoal: boolean;
  batchGoal?: boolean;
}

function workloads(panes: string[], windows: string[], historyPane: string): Workload[] {
  const pane = (i: number) => panes[i % panes.length];
  const reads = ["get_pane_info", "capture_pane", "snapshot_pane", "list_panes"];
  return [
    { label: "list_panes (all 32)", tool: "list_panes", args: () => ({}), readGoal: true },
    {
      label: "get_pane_info",
      tool: "get_pane_info",
      args: (i) => ({ paneId: pane(i) }),
      readGoal: true,
    },
    {
      label: "capture_pane (screen)",
      tool: "capture_pane",
      args: () => ({ paneId: historyPane }),
      readGoal: true,
    },
    {
      label: "snapshot_pane",
      tool: "snapshot_pane",
      args: (i) => ({ paneId: pane(i) }),
      readGoal: true,
    },
    {
      label: "call_read_tools_batch (16 reads)",
      tool: "call_read_tools_batch",
      args: (i) => ({
        operations: Array.from({ length: 16 }, (_, j) => {
          const tool = reads[j % reads.length];
          const target = pane(i + j);
          return {
            tool,
            arguments: tool === "list_panes"
              ? { windowId: windows[(i + j) % windows.length] }
              : { paneId: target },
          };
        }),
      }),
      readGoal: false,
      batchGoal: true,
    },
    {
      label: `capture_pane (${HISTORY_LINES}-line history)`,
      tool: "capture_pane",
      args: () => ({ paneId: historyPane, includeHistory: true, maxLines: HISTORY_LINES }),
      readGoal: false,
    },
  ];
}

interface Figures {
  p50: number;
  p95: number;
  perCall: number;
}

const fmt = (ms: number) => ms.toFixed(2);

/** The fixture's panes, its history size, the counting wrapper and the workloads. */
interface Setup {
  panes: string[];
  historySize: number;
  counter: CountingTmux;
  jobs: Workload[];
}

/** Builds the topology, fills the history pane and writes the counting wrapper. */
async function setUp(fixture: TmuxFixture): Promise<Setup> {
  const panes = await buildTopology(fixture);
  const windows = (await fixture.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
  const historyPane = panes[0];
  const historySize = await fillHistory(fixture, historyPane);
  const counter = await countingTmux(fixture.dir);
  return { panes, historySize, counter, jobs: workloads(panes, windows, historyPane) };
}

/** Calls every tool WARMUP times on each server, round robin, until V8 has optimized both. */
async function warmUp(timed: Record<Mode, Server>, jobs: Workload[]) {
  for (let i = 0; i < WARMUP; i++) {
    for (const job of jobs) {
      for (const mode of TRANSPORTS) await timedCall(timed[mode], job.tool, job.args(i));
    }
  }
}

/** Times one job in blocks that alternate between the servers, each led by untimed calls. */
async function timeJob(timed: Record<Mode, Server>, job: Workload): Promise<Record<Mode, Figures>> {
  const samples: Record<Mode, number[]> = { control: [], process: [] };
  for (let block = 0; block < CALLS; block += BLOCK) {
    for (const mode of TRANSPORTS) {
      for (let i = block - SETTLE; i < Math.min(block + BLOCK, CALLS); i++) {
        const ms = await timedCall(timed[mode], job.tool, job.args(WARMUP + SETTLE + i));
        if (i >= block) samples[mode].push(ms);
      }
    }
  }
  const figures = (s: number[]) => ({ p50: median(s), p95: quantile(s, 0.95), perCall: 0 });
  return { control: figures(samples.control), process: figures(samples.process) };
}

/** Calls get_pane_info on each server until it has made 2,000 calls in all. */
async function callUpTo2000(timed: Record<Mode, Server>, panes: string[]) {
  // More calls after the 1,000th tell growth that levels off from a leak.
  for (const mode of TRANSPORTS) {
    while (timed[mode].calls < 2000) {
      await timedCall(timed[mode], "get_pane_info", {
        paneId: panes[timed[mode].calls % panes.length],
      });
    }
  }
}

/**
 * Latency and memory: the shipped command line, both transports alive, blocks
 * alternating. Servers go into `servers` so the caller can close them on failure.
 */
async function measureLatency(socketPath: string, setup: Setup, servers: Server[]) {
  const timed: Record<Mode, Server> = {
    control: await spawnServer(socketPath, ["--transport", "control"]),
    process: await spawnServer(socketPath, ["--transport", "process"]),
  };
  servers.push(timed.control, timed.process);
  const results = new Map<string, Record<Mode, Figures>>();
  await warmUp(timed, setup.jobs);
  for (const job of setup.jobs) results.set(job.label, await timeJob(timed, job));
  await callUpTo2000(timed, setup.panes);
  const rss = Object.fromEntries(
    TRANSPORTS.map((mode) => [mode, { ...Object.fromEntries(timed[mode].rss) }]),
  ) as Record<Mode, Record<number, number>>;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  return { results, rss };
}

/** Tmux processes started per call of `job`, counted after its warm-up calls. */
async function processesPerCall(server: Server, job: Workload, counter: CountingTmux) {
  for (let i = 0; i < COUNT_WARMUP; i++) await timedCall(server, job.tool, job.args(i));
  await counter.reset();
  for (let i = 0; i < COUNTED_CALLS; i++) await timedCall(server, job.tool, job.args(i));
  return (await counter.started()).length / COUNTED_CALLS;
}

/** Processes per call: the same calls through the counting wrapper, into `results`. */
async function countProcesses(
  socketPath: string,
  setup: Setup,
  results: Map<string, Record<Mode, Figures>>,
  servers: Server[],
) {
  const wrapper = setup.counter.binary;
  for (const mode of TRANSPORTS) {
    const server = await spawnServer(
      socketPath,
      ["--transport", mode, "--tmux", wrapper],
      [`--allow-run=${wrapper}`],
    );
    servers.push(server);
    for (const job of setup.jobs) {
      results.get(job.label)![mode].perCall = await processesPerCall(server, job, setup.counter);
    }
  }
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

async function main() {
  const loadBefore = await loadAverage();
  const fixture = await TmuxFixture.empty();
  const servers: Server[] = [];
  try {
    const setup = await setUp(fixture);
    const { results, rss } = await measureLatency(fixture.socketPath, setup, servers);
    await countProcesses(fixture.socketPath, setup, results, servers);
    const startup = {
      control: await startupMs(fixture.socketPath, "control"),
      process: await startupMs(fixture.socketPath, "process"),
    };
    const loadAfter = await loadAverage();
    report({
      results,
      rss,
      startup,
      loadBefore,
      loadAfter,
      historySize: setup.historySize,
      panes: setup.panes.length,
      jobs: setup.jobs,
      wrapper: setup.counter.binary,
    });
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
    await fixture.close();
  }
}

/** Everything the report prints. */
interface Measurements {
  results: Map<string, Record<Mode, Figures>>;
  rss: Record<Mode, Record<number, number>>;
  startup: Record<Mode, number[]>;
  loadBefore: string;
  loadAfter: string;
  historySize: number;
  panes: number;
  jobs: Workload[];
  wrapper: string;
}

/** The run's machine, the topology and method, and the latency table's head. */
function header(r: Measurements): string[] {
  return [
    `tmux-mcp tools bench: ${new Date().toISOString()}, ${navigator.hardwareConcurrency} CPUs, ` +
    `load average ${r.loadBefore} (start) / ${r.loadAfter} (end), Deno ${Deno.version.deno}`,
    "",
    `Topology: ${SESSIONS} sessions × ${WINDOWS} windows × 2 panes (${r.panes} panes, ` +
    `${FIXTURE_SHELL}); one pane with ${r.historySize} lines of history. ` +
    `${CALLS} timed calls per tool per transport after ${WARMUP} warm-up calls of every tool, ` +
    `round robin; timed calls in blocks of ${BLOCK} alternating between the two servers, ` +
    `each block after ${SETTLE} untimed calls; latency at the client over stdio.`,
    "",
    "| call | control p50 | control p95 | process p50 | process p95 | p50 ratio | tmux processes/call control | tmux processes/call process |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
}

/** One latency-table row per workload. */
function latencyRows(r: Measurements): string[] {
  return r.jobs.map((job) => {
    const f = r.results.get(job.label)!;
    return `| ${job.label} | ${fmt(f.control.p50)} ms | ${fmt(f.control.p95)} ms | ${
      fmt(f.process.p50)
    } ms | ${fmt(f.process.p95)} ms | ${(f.process.p50 / f.control.p50).toFixed(1)}× | ${
      f.control.perCall.toFixed(2)
    } | ${f.process.perCall.toFixed(2)} |`;
  });
}

function startupLines(startup: Record<Mode, number[]>): string[] {
  return TRANSPORTS.map((mode) => {
    const s = startup[mode];
    return `Start-up (${mode}): spawn to initialize answer, median ${fmt(median(s))} ms ` +
      `(min ${fmt(Math.min(...s))}, max ${fmt(Math.max(...s))}, n=${s.length}).`;
  });
}

function memoryLines(rss: Record<Mode, Record<number, number>>): string[] {
  const mib = (kib: number | undefined) =>
    kib === undefined ? "not reached" : `${(kib / 1024).toFixed(1)} MiB`;
  const pct = (a: number, b: number) => `${b >= a ? "+" : ""}${((b / a - 1) * 100).toFixed(1)}%`;
  return TRANSPORTS.map((mode) => {
    const m = rss[mode];
    return `Memory (${mode}): VmRSS ${mib(m[10])} after 10 calls, ${mib(m[1000])} after 1,000 (${
      pct(m[10], m[1000])
    }), ${mib(m[2000])} after 2,000 (${pct(m[1000], m[2000])} from 1,000).`;
  });
}

/** How processes were counted, so a reader knows the latency servers ran unwrapped. */
function countingNote(wrapper: string): string {
  return `Processes were counted by a second pair of servers started with --tmux ${wrapper} ` +
    `(a sh script that logs a line and execs tmux) and one extra permission, ` +
    `--allow-run=<that wrapper>, on top of the shipped -P=server set; ` +
    `${COUNTED_CALLS} calls per tool after ${COUNT_WARMUP} warm-up calls. ` +
    "Latency servers ran the shipped command line unchanged.";
}

/** Each goal with whether it was met and the figure that decided it. */
function goals(r: Measurements): [string, boolean, string][] {
  const reads = r.jobs.filter((j) => j.readGoal).map((j) => r.results.get(j.label)!.control);
  const batch = r.jobs.filter((j) => j.batchGoal).map((j) => r.results.get(j.label)!.control);
  const counted = r.jobs.filter((j) => j.readGoal || j.batchGoal).map((j) =>
    r.results.get(j.label)!
  );
  const worstRatio = Math.min(...counted.map((f) => f.process.p50 / f.control.p50));
  const startup = median(r.startup.control);
  const growth = r.rss.control[1000] / r.rss.control[10] - 1;
  return [
    [
      "read tools ≤ 3 ms p50 (control)",
      reads.every((f) => f.p50 <= 3),
      `worst ${fmt(Math.max(...reads.map((f) => f.p50)))} ms`,
    ],
    [
      "read tools ≤ 10 ms p95 (control)",
      reads.every((f) => f.p95 <= 10),
      `worst ${fmt(Math.max(...reads.map((f) => f.p95)))} ms`,
    ],
    ["16-read batch ≤ 15 ms p50 (control)", batch[0].p50 <= 15, `${fmt(batch[0].p50)} ms`],
    [
      "zero tmux processes per call in steady state (control)",
      counted.every((f) => f.control.perCall === 0),
      `max ${Math.max(...counted.map((f) => f.control.perCall)).toFixed(2)}`,
    ],
    ["control ≥ 5× faster than process (p50)", worstRatio >= 5, `worst ${worstRatio.toFixed(1)}×`],
    ["start-up ≤ 300 ms (control, median)", startup <= 300, `${fmt(startup)} ms`],
    [
      "memory after 1,000 calls within 10% of after 10 (control)",
      Math.abs(growth) <= 0.10,
      Number.isNaN(growth) ? "fewer than 1,000 calls made" : `${(growth * 100).toFixed(1)}%`,
    ],
  ];
}

function goalsTable(rows: [string, boolean, string][]): string[] {
  return [
    "| goal | result | measured |",
    "|---|---|---|",
    ...rows.map(([goal, pass, measured]) =>
      `| ${goal} | ${pass ? "pass" : "MISS"} | ${measured} |`
    ),
  ];
}

function report(r: Measurements) {
  const out = [
    ...header(r),
    ...latencyRows(r),
    "",
    ...startupLines(r.startup),
    ...memoryLines(r.rss),
    "",
    countingNote(r.wrapper),
    "",
    ...goalsTable(goals(r)),
  ];
  console.log(out.join("\n"));
}

if (import.meta.main) await main();
