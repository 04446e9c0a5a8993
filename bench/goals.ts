/**
 * The benchmark's goals, held as ratios to a floor measured in the same run
 * (so a figure means the same on a fast or a slow machine), and the one
 * markdown table that reports them. How each absolute goal became a ratio is
 * in docs/benchmarks.md.
 *
 * @module
 */

/** One operation's figures: ours, the floors beside it, and the floor its goal divides by. */
export interface Measured {
  operation: string;
  unit: "ms" | "MiB";
  ours: { median: number; p95?: number; max?: number };
  /** The control-mode floor's median, when there is one. */
  control?: number;
  /** The control-mode floor's p95. */
  controlP95?: number;
  /**
   * The least any server on Deno pays, where measured: for a call, the same
   * client getting our answer from a stand-in that only passes the tmux
   * command line on to a control client and waits for its end
   * (bench/relay_stand_in.ts); for start-up and memory, Deno loading our
   * tool definitions and nothing else.
   */
  least?: number;
  /** The relay floor's p95, for a call. */
  leastP95?: number;
  /** How the least column should name it, when it is not the relay. */
  leastLabel?: string;
  /** The one-process floor's median (or a bare `deno run`), when there is one. */
  process?: number;
  /** How the process column should name its floor, when it is not the same tmux command. */
  processLabel?: string;
  /** The floor the ratio and the goal divide by. */
  floor: number;
}

/**
 * Limits as multiples: `median`, `p95` and `max` of the floor; `p95OfMedian`
 * of our own median.
 */
export interface Goal {
  median?: number;
  p95?: number;
  max?: number;
  p95OfMedian?: number;
}

/** Whether `m` meets `goal`, with the limits it was held to in `m`'s unit. */
export function check(m: Measured, goal: Goal): { met: boolean; missed: string[] } {
  const missed: string[] = [];
  const over = (what: string, value: number | undefined, limit: number) => {
    if (value === undefined || !(value <= limit)) missed.push(what);
  };
  if (goal.median !== undefined) over("median", m.ours.median, goal.median * m.floor);
  if (goal.p95 !== undefined) over("p95", m.ours.p95, goal.p95 * m.floor);
  if (goal.max !== undefined) over("max", m.ours.max, goal.max * m.floor);
  if (goal.p95OfMedian !== undefined) over("p95", m.ours.p95, goal.p95OfMedian * m.ours.median);
  return { met: missed.length === 0, missed: [...new Set(missed)] };
}

const fixed = (value: number, unit: Measured["unit"]) =>
  unit === "ms" ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : value.toFixed(1);

/** The goal in words: each limit as a ratio, with what it comes to in this run. */
export function goalText(m: Measured, goal: Goal): string {
  const parts: string[] = [];
  const of = (name: string, ratio: number) =>
    parts.push(`${name} ≤ ${ratio.toFixed(2)}× (${fixed(ratio * m.floor, m.unit)})`);
  if (goal.median !== undefined) of("median", goal.median);
  if (goal.p95 !== undefined) of("p95", goal.p95);
  if (goal.max !== undefined) of("max", goal.max);
  if (goal.p95OfMedian !== undefined) parts.push(`p95 ≤ ${goal.p95OfMedian}× median`);
  return parts.join(", ");
}

/**
 * The median's limit when the least a Deno server pays already exceeds it:
 * our server cannot meet it, whatever its own work costs.
 */
export function outOfReach(m: Measured, goal: Goal): number | undefined {
  if (goal.median === undefined || m.least === undefined) return;
  const limit = goal.median * m.floor;
  return m.least > limit ? limit : undefined;
}

/** The met? cell: what was missed, and whether the floors alone already miss it. */
function verdict(m: Measured, goal: Goal): string {
  const { met, missed } = check(m, goal);
  if (met) return "met";
  const limit = outOfReach(m, goal);
  const reach = limit === undefined ? "" : `; the least on Deno > ${fixed(limit, m.unit)}`;
  return `**missed** (${missed.join(", ")}${reach})`;
}

/** One table row: the figures, the ratio of our median to the floor, the goal and whether it held. */
export function row(m: Measured, goal: Goal): string {
  const u = m.unit;
  const ours = [m.ours.median, m.ours.p95, m.ours.max]
    .filter((v) => v !== undefined).map((v) => fixed(v!, u)).join(" / ");
  const floor = (value: number | undefined, label = "") =>
    value === undefined ? "—" : `${label}${fixed(value, u)}`;
  const withP95 = (median: string, p95: number | undefined) =>
    p95 === undefined ? median : `${median} / ${floor(p95)}`;
  const least = withP95(floor(m.least, m.leastLabel ? `${m.leastLabel} ` : ""), m.leastP95);
  return `| ${m.operation} | ${ours} | ${withP95(floor(m.control), m.controlP95)} | ${
    floor(m.process, m.processLabel ? `${m.processLabel} ` : "")
  } | ${least} | ${(m.ours.median / m.floor).toFixed(2)}× | ${goalText(m, goal)} | ${
    verdict(m, goal)
  } |`;
}

/** The whole table, units in the header: ms unless a row says MiB. */
export function table(rows: { measured: Measured; goal: Goal }[]): string {
  return [
    "| operation | ours median / p95 (/ max) | floor (control) median / p95 | floor (process) | least on Deno (/ p95) | ratio to the floor | goal (× floor) | met? |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => row(r.measured, r.goal)),
  ].join("\n");
}
