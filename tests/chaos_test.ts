/**
 * The chaos walk (tests/chaos_walk.ts) with a fixed seed: every tool of all
 * four toolsets, a wait and subscriptions live, some calls in parallel; after
 * every step the untouched session exists and tmux answers.
 *
 * @module
 */

import { assert } from "./assert.ts";
import { runWalk } from "./chaos_walk.ts";

const SEED = 22;
const STEPS = 300;

Deno.test("chaos: a seeded walk over every tool leaves the untouched session and tmux up", async () => {
  const report = await runWalk({ seed: SEED, steps: STEPS });
  assert(report.steps === STEPS, `${report.steps} of ${STEPS} steps ran`);
  // The walk reaches most tools (a failure names the seed and step to replay).
  const reached = Object.keys(report.byTool).length;
  assert(reached >= 40, `${reached} tools called`);
});
