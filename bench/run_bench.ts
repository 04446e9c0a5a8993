/**
 * Benchmark of run_shell_command (run: `deno run -A bench/run_bench.ts`).
 *
 * The server's overhead for `run_shell_command "true"`: the median of 30
 * calls over stdio (after warm-up) of the client-side round trip, minus the
 * command's own time (measured in the same bash with EPOCHREALTIME around
 * the command). The tool's own `elapsedSeconds` (from typing the line to the
 * shell's signal) splits the overhead into the part spent in the pane's
 * shell (the frame: a subshell, two tmux client processes) and the part spent
 * in the server (checks, the `tmux wait-for` process, reading the output).
 * Both transports are measured. Goal: overhead median under 50 ms.
 *
 * @module
 */

import { startServer, TmuxFixture } from "../tests/harness.ts";
import { median } from "./stats.ts";

const RUNS = 30;
const WARMUP = 3;
const GOAL_MS = 50;

/** The command's own time in ms: `true` timed by the pane's bash itself. */
async function ownTimeMs(fixture: TmuxFixture, pane: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    await fixture.runInPane(
      pane,
      `__a=$EPOCHREALTIME; true; __b=$EPOCHREALTIME; tmux -S '${fixture.socketPath}' set-option -p @own "$__a $__b"`,
    );
    const [a, b] = (await fixture.tmux("show-options", "-pqv", "-t", pane, "@own")).split(" ");
    samples.push((Number(b) - Number(a)) * 1000);
  }
  return median(samples);
}

interface Row {
  transport: string;
  totalMs: number;
  fastestMs: number;
  shellMs: number;
  ownMs: number;
}

async function measure(transport: "control" | "process"): Promise<Row> {
  const fixture = await TmuxFixture.start();
  const pane = await fixture.shellPane();
  const session = await startServer(fixture.socketPath, { args: ["--transport", transport] });
  try {
    const totals: number[] = [];
    const shells: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const began = performance.now();
      const result = await session.ok<{ exitStatus: number; elapsedSeconds: number }>(
        "run_shell_command",
        { paneId: pane, command: "true" },
      );
      const total = performance.now() - began;
      if (result.exitStatus !== 0) throw new Error("true did not exit 0");
      if (i >= WARMUP) {
        totals.push(total);
        shells.push(result.elapsedSeconds * 1000);
      }
    }
    return {
      transport,
      totalMs: median(totals),
      fastestMs: Math.min(...totals),
      shellMs: median(shells),
      ownMs: await ownTimeMs(fixture, pane),
    };
  } finally {
    await session.close();
    await fixture.close();
  }
}

/**
 * The machine's current cost of one `tmux` client process (fork, exec,
 * connect, answer): the frame needs one in the pane, and the wait another.
 * On a shared machine this moves with the load; it puts the figures above in
 * proportion.
 */
async function tmuxProcessMs(): Promise<number> {
  const fixture = await TmuxFixture.start();
  try {
    const samples: number[] = [];
    for (let i = 0; i < 15; i++) {
      const began = performance.now();
      await fixture.tmux("display-message", "-p", "#{pid}");
      samples.push(performance.now() - began);
    }
    return median(samples);
  } finally {
    await fixture.close();
  }
}

const rows = [await measure("control"), await measure("process")];
const processMs = await tmuxProcessMs();
const load = await Deno.readTextFile("/proc/loadavg").catch(() => "unknown");
const fmt = (n: number) => n.toFixed(1).padStart(8);
console.log(
  `run_shell_command "true", ${RUNS} calls (ms); load average ${
    load.split(" ").slice(0, 3).join(" ")
  }\n`,
);
console.log(
  "| transport | total median | total fastest | command's own | overhead median | of which in the pane's shell | in the server |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const overhead = r.totalMs - r.ownMs;
  console.log(
    `| ${r.transport} | ${fmt(r.totalMs)} | ${fmt(r.fastestMs)} | ${
      r.ownMs.toFixed(3).padStart(8)
    } | ${fmt(overhead)} | ${fmt(r.shellMs)} | ${fmt(r.totalMs - r.shellMs)} |`,
  );
}
console.log(
  `\none tmux client process right now (display-message, median of 15): ${processMs.toFixed(1)} ms`,
);
const control = rows[0].totalMs - rows[0].ownMs;
console.log(
  `goal: overhead median < ${GOAL_MS} ms (control transport, the default): ${
    control < GOAL_MS ? "met" : "missed"
  } (${control.toFixed(1)} ms)`,
);
