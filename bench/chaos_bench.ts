/**
 * The chaos walk of tests/chaos_test.ts, longer and with a random seed:
 * `deno run --allow-run --allow-read --allow-write --allow-env
 * bench/chaos_bench.ts [steps] [seed]`. Prints the seed first, so a failure
 * can be replayed with it, then calls per tool and refusals.
 *
 * @module
 */

import { runWalk } from "../tests/chaos_walk.ts";

const steps = Number(Deno.args[0] ?? 1000);
const seed = Number(Deno.args[1] ?? Math.floor(Math.random() * 2 ** 31));
const version = new TextDecoder().decode(
  (await new Deno.Command("tmux", { args: ["-V"], stdout: "piped" }).output()).stdout,
).trim();
console.log(`chaos walk: seed ${seed}, ${steps} steps, ${version}`);
const started = performance.now();
const report = await runWalk({
  seed,
  steps,
  onStep: (step) => {
    if (step % 100 === 0) console.log(`  step ${step}`);
  },
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${report.steps} steps, ${report.calls} calls in ${seconds} s; no crash, no hang`);
for (const [tool, calls] of Object.entries(report.byTool).sort()) {
  const last = report.lastRefusal[tool];
  console.log(`  ${tool}: ${calls} calls, ${report.refusals[tool] ?? 0} refused`);
  if (last) console.log(`    last refusal: ${last.slice(0, 160)}`);
}
