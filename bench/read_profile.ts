/**
 * Server CPU time per call of the read tools (from /proc/PID/stat, immune to
 * other processes' load), the client's (this process) and tmux's, and
 * client-side latency, one server per operation so that a CPU profile (`--profile DIR`: the server runs with `--cpu-prof`) holds
 * that operation alone. The topology is tools_bench.ts's: 4 sessions × 4
 * windows × 2 panes, one pane with 2,000 lines of history.
 *
 * Usage: deno run -A bench/read_profile.ts [--profile DIR] [--base DIR] [--v8 FLAGS]
 *   [--calls N] [operation...]
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Session, START_FIXTURE_SERVER, startServer, TmuxFixture } from "../tests/harness.ts";
import { median, quantile } from "./stats.ts";

const HISTORY_LINES = 2000;
const WARMUP = 300;

type Args = (pane: string, panes: string[], i: number) => Record<string, unknown>;
const OPERATIONS: Record<string, [string, Args]> = {
  list_panes: ["list_panes", () => ({})],
  get_pane_info: ["get_pane_info", (_, panes, i) => ({ paneId: panes[i % panes.length] })],
  capture_screen: ["capture_pane", (pane) => ({ paneId: pane })],
  capture_history: [
    "capture_pane",
    (pane) => ({ paneId: pane, includeHistory: true, maxLines: HISTORY_LINES }),
  ],
  snapshot_pane: ["snapshot_pane", (_, panes, i) => ({ paneId: panes[i % panes.length] })],
  search_screen: ["search_panes", () => ({ pattern: "line 2\\d\\d" })],
  search_history: ["search_panes", () => ({ pattern: "line 3\\d\\d", includeHistory: true })],
};

async function cpuTicks(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

async function topology(fixture: TmuxFixture): Promise<string[]> {
  const args = [...START_FIXTURE_SERVER, ";", "set-option", "-g", "history-limit", "10000"];
  for (let s = 0; s < 4; s++) {
    args.push(";", "new-session", "-d", "-s", `bench${s}`, "-x", "160", "-y", "48");
    for (let w = 1; w < 4; w++) args.push(";", "new-window", "-d", "-t", `=bench${s}:`);
    for (let w = 0; w < 4; w++) args.push(";", "split-window", "-d", "-t", `=bench${s}:${w}`);
  }
  await fixture.tmux(...args);
  const panes = (await fixture.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  await fixture.runInPane(panes[0], `seq -f 'history line %g' 1 ${HISTORY_LINES + 48}`);
  return panes;
}

const THIS_TREE = "this tree";

/** One server under test: this tree's, or another checkout's (`--base DIR`) for an A/B run. */
interface Subject {
  label: string;
  start: typeof startServer;
}

async function subjects(base: string | undefined): Promise<Subject[]> {
  const list: Subject[] = [{ label: THIS_TREE, start: startServer }];
  if (base) {
    const harness = await import(`${base}/tests/harness.ts`);
    list.unshift({ label: base, start: harness.startServer });
  }
  return list;
}

/** Blocks of calls alternate between the subjects, so both see the same machine load. */
const ROUNDS = 10;
/** Clock ticks per second in /proc/PID/stat (USER_HZ). */
const HZ = 100;

/** One subject's server for one operation, with what its calls cost. */
interface Run {
  subject: Subject;
  session: Session;
  pid: number;
  cpu: number;
  clientCpu: number;
  tmuxCpu: number;
  times: number[];
}

/** `--name value` pairs into flags; the other arguments are operation names. */
function parseArgs(argv: string[]): { flags: Record<string, string>; named: string[] } {
  const flags: Record<string, string> = {};
  const named: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) flags[argv[i].slice(2)] = argv[++i];
    else named.push(argv[i]);
  }
  return { flags, named };
}

async function printHeader() {
  console.log(`load: ${(await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3)}`);
  console.log(
    "| operation | server | server CPU ms/call | client CPU | tmux CPU | p50 ms | p95 ms | result bytes |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
}

/** Starts each subject's server for `op`, under the CPU profiler when `--profile` asks. */
async function startRuns(
  op: string,
  who: Subject[],
  socketPath: string,
  flags: Record<string, string>,
): Promise<Run[]> {
  const denoFlags = flags.profile
    ? ["--cpu-prof", `--cpu-prof-dir=${flags.profile}`, `--cpu-prof-name=${op}.cpuprofile`]
    : [];
  // This tree's server only: appended to the start task's V8 flags (a later value wins).
  const v8 = flags.v8 ? [`--v8-flags=${flags.v8}`] : [];
  const runs: Run[] = [];
  for (const subject of who) {
    const session = await subject.start(socketPath, {
      denoFlags: subject.label === THIS_TREE ? [...denoFlags, ...v8] : denoFlags,
    });
    runs.push({
      subject,
      session,
      pid: session.transport.pid!,
      cpu: 0,
      clientCpu: 0,
      tmuxCpu: 0,
      times: [],
    });
  }
  return runs;
}

/** Calls `op`'s tool, throwing on a tool error; `bytes` is the first result's size. */
interface Caller {
  bytes: number;
  call(session: Session, i: number): Promise<void>;
}

function caller(op: string, panes: string[]): Caller {
  const [tool, args] = OPERATIONS[op];
  const self: Caller = {
    bytes: 0,
    async call(session, i) {
      const r = await session.client.callTool({
        name: tool,
        arguments: args(panes[0], panes, i),
      }) as CallToolResult;
      if (r.isError) throw new Error(`${op}: ${JSON.stringify(r.content)}`);
      // Measured once, outside the timed calls: serializing counts in the client's CPU.
      if (self.bytes === 0) self.bytes = JSON.stringify(r).length;
    },
  };
  return self;
}

/** Times `block` calls on one run, adding the CPU its server, this client and tmux spent. */
async function timeBlock(run: Run, op: Caller, block: number, tmuxPid: number) {
  const before = await cpuTicks(run.pid);
  const clientBefore = await cpuTicks(Deno.pid);
  const tmuxBefore = await cpuTicks(tmuxPid);
  for (let i = 0; i < block; i++) {
    const began = performance.now();
    await op.call(run.session, i);
    run.times.push(performance.now() - began);
  }
  run.cpu += (await cpuTicks(run.pid)) - before;
  run.clientCpu += (await cpuTicks(Deno.pid)) - clientBefore;
  run.tmuxCpu += (await cpuTicks(tmuxPid)) - tmuxBefore;
}

/** Warms every run up, then times about `calls` calls each in alternating blocks. */
async function measure(runs: Run[], op: Caller, calls: number, tmuxPid: number) {
  for (const run of runs) for (let i = 0; i < WARMUP; i++) await op.call(run.session, i);
  const block = Math.ceil(calls / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const run of runs) await timeBlock(run, op, block, tmuxPid);
  }
}

/** Closes each run's server and prints its row of the table. */
async function finish(op: string, runs: Run[], bytes: number) {
  for (const run of runs) {
    await run.session.close();
    const perCall = (ticks: number) => (ticks * 1000 / HZ / run.times.length).toFixed(3);
    console.log(
      `| ${op} | ${run.subject.label} | ${perCall(run.cpu)} | ${perCall(run.clientCpu)} | ${
        perCall(run.tmuxCpu)
      } | ${median(run.times).toFixed(2)} | ${quantile(run.times, 0.95).toFixed(2)} | ${bytes} |`,
    );
  }
}

async function main() {
  const { flags, named } = parseArgs(Deno.args);
  const calls = Number(flags.calls ?? 1000);
  const ops = named.length > 0 ? named : Object.keys(OPERATIONS);
  const unknown = ops.filter((op) => !Object.hasOwn(OPERATIONS, op));
  if (unknown.length > 0) {
    console.error(
      `read_profile: no operation ${unknown.join(", ")}; name some of: ${
        Object.keys(OPERATIONS).join(", ")
      }`,
    );
    Deno.exit(2);
  }
  const fixture = await TmuxFixture.empty();
  try {
    const panes = await topology(fixture);
    const tmuxPid = Number(await fixture.tmux("display-message", "-p", "#{pid}"));
    const who = await subjects(flags.base);
    await printHeader();
    for (const op of ops) {
      const runs = await startRuns(op, who, fixture.socketPath, flags);
      const operation = caller(op, panes);
      await measure(runs, operation, calls, tmuxPid);
      await finish(op, runs, operation.bytes);
    }
  } finally {
    await fixture.close();
  }
}

await main();
