/** The benchmark's goal checks: limits as ratios to the floor measured in the same run. */

import { assertEquals } from "./assert.ts";
import { check, goalText, type Measured, outOfReach, row } from "../bench/goals.ts";

const measured = (ours: Measured["ours"], floor = 2): Measured => ({
  operation: "op",
  unit: "ms",
  ours,
  control: floor,
  floor,
});

Deno.test("a goal scales with the floor it is a ratio to", () => {
  const goal = { median: 1.5 };
  assertEquals(check(measured({ median: 3 }), goal).met, true);
  assertEquals(check(measured({ median: 3.01 }), goal).missed, ["median"]);
  assertEquals(check(measured({ median: 6 }, 4), goal).met, true);
  assertEquals(goalText(measured({ median: 3 }, 4), goal), "median ≤ 1.50× (6.00)");
});

Deno.test("p95 is held to the floor or to our own median, and a missing figure misses", () => {
  const ours = { median: 2, p95: 5, max: 9 };
  assertEquals(check(measured(ours), { p95OfMedian: 2 }).missed, ["p95"]);
  assertEquals(check(measured(ours), { p95: 2.5, max: 4.5 }).met, true);
  assertEquals(check(measured({ median: 2 }), { max: 10 }).missed, ["max"]);
});

Deno.test("a row reports the ratio to the floor and what was missed", () => {
  const line = row(measured({ median: 3, p95: 7 }), { median: 1, p95OfMedian: 2 });
  assertEquals(
    line,
    "| op | 3.00 / 7.00 | 2.00 | — | — | 1.50× | median ≤ 1.00× (2.00), p95 ≤ 2× median | **missed** (median, p95) |",
  );
});

Deno.test("a goal the least on Deno already misses is out of reach; the floors' p95s show", () => {
  const goal = { median: 1.5 };
  const at = (least: number): Measured => ({
    ...measured({ median: 3.5 }),
    controlP95: 4,
    least,
    leastP95: 5,
  });
  assertEquals(outOfReach(at(3), goal), undefined);
  assertEquals(outOfReach(at(3.01), goal), 3);
  assertEquals(
    row(at(3.01), goal),
    "| op | 3.50 | 2.00 / 4.00 | — | 3.01 / 5.00 | 1.75× | median ≤ 1.50× (3.00) | " +
      "**missed** (median; the least on Deno > 3.00) |",
  );
  const memory: Measured = {
    ...at(60),
    leastP95: undefined,
    unit: "MiB",
    ours: { median: 80 },
    leastLabel: "tool definitions and a timer",
  };
  assertEquals(row(memory, { median: 30 }).split(" | ")[4], "tool definitions and a timer 60.0");
});
