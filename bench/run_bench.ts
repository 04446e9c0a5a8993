/**
 * Benchmark of run_shell_command (run: `deno run -A bench/run_bench.ts`).
 *
 * Per run, over 200 runs on a warm pane and 20 on fresh windows (each run
 * in a new window right after it opens), on the control transport:
 * - overhead: the client-side round trip minus the command's own time
 *   (`printf` of bash's EPOCHREALTIME, microseconds);
 * - the time from the shell finishing the command (the time it printed) to
 *   the answer reaching the client;
 * - the bytes typed into the pane beyond the command (read from the echo).
 * Goals: overhead median at most 30 ms and max at most 500 ms; typed bytes
 * at most the command plus 60 (the option name and the pane id, decision 009).
 *
 * @module
 */

import { type Session, startServer, TmuxFixture } from "../tests/harness.ts";
import { median } from "./stats.ts";

const WARM_RUNS = 200;
const FRESH_RUNS = 20;
const WARMUP = 3;
const COMMAND = 'printf "%s\\n" "$EPOCHREALTIME"';

interface Sample {
  overheadMs: number;
  finishToAnswerMs: number;
  typedExtra: number;
}

async function once(fixture: TmuxFixture, session: Session, pane: string): Promise<Sample> {
  const began = Date.now();
  const result = await session.ok<{ exitStatus: number; output: { lines: string[] } }>(
    "run_shell_command",
    { paneId: pane, command: COMMAND },
  );
  const answered = Date.now();
  if (result.exitStatus !== 0) throw new Error("the command did not exit 0");
  const finished = Number(result.output.lines[0]) * 1000;
  const shown = (await fixture.tmux("capture-pane", "-p", "-J", "-t", pane)).split("\n");
  const echo = shown.findLast((line) => line.includes("EPOCHREALTIME")) ?? "";
  // The fixture's prompt is "$ ": what follows it was typed.
  const typed = echo.slice(echo.indexOf("$ ") + 2);
  return {
    // The command's own time is microseconds: the whole round trip is overhead.
    overheadMs: answered - began,
    finishToAnswerMs: answered - finished,
    typedExtra: typed.length - COMMAND.length,
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function row(label: string, samples: Sample[]): string {
  const over = samples.map((s) => s.overheadMs);
  const toAnswer = samples.map((s) => s.finishToAnswerMs);
  const typed = samples.map((s) => s.typedExtra);
  const f = (n: number) => n.toFixed(1).padStart(7);
  return `| ${label} | ${samples.length} | ${f(median(over))} | ${f(quantile(over, 0.95))} | ${
    f(Math.max(...over))
  } | ${f(median(toAnswer))} | ${f(Math.max(...toAnswer))} | ${Math.max(...typed)} |`;
}

const fixture = await TmuxFixture.start();
const session = await startServer(fixture.socketPath);
const warm: Sample[] = [];
const fresh: Sample[] = [];
try {
  const pane = await fixture.shellPane();
  for (let i = 0; i < WARMUP + WARM_RUNS; i++) {
    const sample = await once(fixture, session, pane);
    if (i >= WARMUP) warm.push(sample);
  }
  for (let i = 0; i < FRESH_RUNS; i++) {
    const window = await fixture.windowPane();
    fresh.push(await once(fixture, session, window));
    await fixture.tmux("kill-pane", "-t", window);
  }
} finally {
  await session.close();
  await fixture.close();
}
const load = await Deno.readTextFile("/proc/loadavg").catch(() => "unknown");
console.log(
  `run_shell_command '${COMMAND}' (ms); load average ${load.split(" ").slice(0, 3).join(" ")}\n`,
);
console.log(
  "| pane | runs | overhead median | p95 | max | shell finished to answer, median | max | typed bytes beyond the command, max |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
console.log(row("warm", warm));
console.log(row("fresh window", fresh));
const all = [...warm, ...fresh];
const over = all.map((s) => s.overheadMs);
console.log(
  `\ngoals: overhead median <= 30 ms: ${
    median(warm.map((s) => s.overheadMs)) <= 30 ? "met" : "missed"
  }; ` +
    `max <= 500 ms: ${Math.max(...over) <= 500 ? "met" : "missed"}; typed <= command + 60: ${
      Math.max(...all.map((s) => s.typedExtra)) <= 60 ? "met" : "missed"
    }`,
);
