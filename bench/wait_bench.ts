/**
 * How fast wait_for_text notices output: the time from a line being printed
 * in a pane to wait_for_text returning `matched`, over 50 trials, through
 * the real server over stdio (`deno task start`'s command line), for each
 * command transport. Goal: median under 20 ms.
 *
 * The pane prints `MARK <n> <time>` where the time is bash's
 * `$EPOCHREALTIME` taken as the line is printed, so the figure includes
 * tmux reading the pane, the watcher waking, the read of the new rows, the
 * match and the response, and nothing of the trigger. Each trial starts a
 * wait, waits for its first progress notification (sent once the watch is
 * armed), then lets the pane print by signalling a wait-for channel.
 *
 * Run: deno run -A bench/wait_bench.ts
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Session, startServer, TmuxFixture } from "../tests/harness.ts";
import { quantile } from "./stats.ts";

const TRIALS = 50;

/** One trial's figures: printed -> returned, call -> armed (ms) and the wake-up mechanism. */
interface Trial {
  latency: number;
  arming: number;
  wakeup: string;
}

/** Starts a wait for `MARK <trial>`, lets the pane print it once armed, and times the match. */
async function timeTrial(
  fixture: TmuxFixture,
  session: Session,
  pane: string,
  trial: number,
): Promise<Trial> {
  let armed: () => void = () => {};
  const isArmed = new Promise<void>((resolve) => (armed = resolve));
  const began = performance.now();
  const call = session.client.callTool(
    {
      name: "wait_for_text",
      arguments: {
        paneId: pane,
        patterns: [`^MARK ${trial} \\d+\\.\\d+$`],
        timeoutSeconds: 20,
      },
    },
    undefined,
    { onprogress: () => armed() },
  ) as Promise<CallToolResult>;
  await isArmed;
  const arming = performance.now() - began;
  await fixture.tmux("wait-for", "-S", "go");
  const result = await call;
  const returned = performance.timeOrigin + performance.now();
  const r = result.structuredContent as {
    outcome: string;
    wakeup: string;
    tail: { lines: string[] };
  };
  if (result.isError || r.outcome !== "matched") {
    throw new Error(`trial ${trial}: ${JSON.stringify(result.content)}`);
  }
  const line = r.tail.lines.find((l) => l.startsWith(`MARK ${trial} `));
  if (!line) throw new Error(`trial ${trial}: the line is not in the tail`);
  const printedAt = Number(line.split(" ")[2]) * 1000;
  return { latency: returned - printedAt, arming, wakeup: r.wakeup };
}

/** One transport's table row: latency median, p95 and max, arming median, wake-ups seen. */
function summarize(transport: string, trials: Trial[]) {
  const latencies = trials.map((t) => t.latency).sort((a, b) => a - b);
  const armings = trials.map((t) => t.arming).sort((a, b) => a - b);
  return {
    transport,
    mechanism: [...new Set(trials.map((t) => t.wakeup))].join(","),
    median: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    max: latencies[latencies.length - 1],
    armMedian: quantile(armings, 0.5),
  };
}

async function run(transport: "control" | "process") {
  const fixture = await TmuxFixture.start({ width: 100, height: 30 });
  const session = await startServer(fixture.socketPath, { args: ["--transport", transport] });
  const trials: Trial[] = [];
  try {
    const pane = await fixture.shellPane();
    await fixture.typeLine(
      pane,
      `i=0; while tmux -S '${fixture.socketPath}' wait-for go; do i=$((i+1)); ` +
        `printf 'MARK %s %s\\n' "$i" "$EPOCHREALTIME"; done`,
    );
    for (let n = 1; n <= TRIALS; n++) trials.push(await timeTrial(fixture, session, pane, n));
  } finally {
    await session.close();
    await fixture.close();
  }
  return summarize(transport, trials);
}

/**
 * The floors under the figure above, measured the same way: how late a bare
 * control-mode client sees the pane's `%output` (tmux's own notification
 * latency), and a tools/call round trip that does one tmux read.
 */
async function floors() {
  const fixture = await TmuxFixture.start({ width: 100, height: 30 });
  const session = await startServer(fixture.socketPath);
  const notify: number[] = [];
  const call: number[] = [];
  const client = new Deno.Command("tmux", {
    args: ["-S", fixture.socketPath, "-C", "attach-session", "-r", "-f", "ignore-size,read-only"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const pane = await fixture.shellPane();
    await fixture.typeLine(
      pane,
      `while tmux -S '${fixture.socketPath}' wait-for go; do printf 'MARK %s\\n' "$EPOCHREALTIME"; done`,
    );
    const reader = client.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (let trial = 0; trial < TRIALS; trial++) {
      await fixture.tmux("wait-for", "-S", "go");
      while (true) {
        const marks = /%output %\d+ MARK (\d+\.\d+)/.exec(buffer);
        if (marks) {
          notify.push(performance.timeOrigin + performance.now() - Number(marks[1]) * 1000);
          buffer = buffer.slice(marks.index + marks[0].length);
          break;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the control client ended");
        buffer += value;
      }
      const began = performance.now();
      await session.ok("capture_pane", { paneId: pane });
      call.push(performance.now() - began);
    }
    reader.releaseLock();
  } finally {
    await client.stdin.close();
    await client.status;
    await session.close();
    await fixture.close();
  }
  notify.sort((a, b) => a - b);
  call.sort((a, b) => a - b);
  return { notify, call };
}

const rows = [];
for (const transport of ["control", "process"] as const) rows.push(await run(transport));
const floor = await floors();
const f = (ms: number) => ms.toFixed(1).padStart(7);
console.log(
  `wait_for_text: printed -> matched returned, ${TRIALS} trials each (ms; goal: median < 20); ` +
    `load average ${
      Deno.loadavg().map((n) => n.toFixed(1)).join(" ")
    } on ${navigator.hardwareConcurrency} cores\n`,
);
console.log("transport | wake-up      |  median |     p95 |     max | call -> armed (median)");
console.log("----------|--------------|---------|---------|---------|-----------------------");
for (const r of rows) {
  console.log(
    `${r.transport.padEnd(9)} | ${r.mechanism.padEnd(12)} | ${f(r.median)} | ${f(r.p95)} | ${
      f(r.max)
    } | ${f(r.armMedian)}`,
  );
}
console.log(
  `\nfloors (median / p95 ms): %output seen by a bare control client ${
    floor.notify.length
      ? `${f(quantile(floor.notify, 0.5))} / ${f(quantile(floor.notify, 0.95))}`
      : "n/a"
  }; capture_pane call ${f(quantile(floor.call, 0.5))} / ${f(quantile(floor.call, 0.95))}`,
);
