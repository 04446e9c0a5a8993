// Tests of domain/match_worker.ts: matching in a worker, its hard deadline
// and cancellation, and what a pane's search reads back. No tmux needed.

import assert from "node:assert/strict";
import {
  closeMatchWorkers,
  firstMatch,
  INLINE_UNITS,
  inlineUnits,
  inPlace,
  lineRows,
  lineRowsHere,
  MatchDeadline,
  matchPane,
  matchPaneHere,
} from "../domain/match_worker.ts";
import { compilePattern, loadPatternEngine } from "../domain/pattern.ts";

await loadPatternEngine();

const compiled = (pattern: string) =>
  compilePattern(pattern, { literal: false, ignoreCase: true }).compiled;
const LONG = { timeoutMs: 30_000 };

/** A test whose match workers are ended afterwards, whether it passes or not. */
function workerTest(name: string, fn: () => Promise<void>): void {
  Deno.test(name, async () => {
    try {
      await fn();
    } finally {
      closeMatchWorkers();
    }
  });
}
// One of the costliest patterns accepted, over 10 MB in one line: seconds of matching.
const SLOW = "(?:[ab]c|[bc]a|[ca]b){0,180}d";
const HUGE = "abc".repeat(3_400_000) + "!d";

workerTest("a pane's lines are joined, trimmed and matched in the worker", async () => {
  // Rows 0-3: "alpha" wrapped over two rows, "beta", "gamma" with spaces kept by -N.
  const pane = {
    physical: ["al", "pha", "beta", "gamma  "].join("\n"),
    joined: ["alpha", "beta", "gamma  "].join("\n"),
    firstRow: -2,
  };
  const found = await matchPane(compiled("a$"), pane, { limit: 10, locateOver: 3 }, LONG);
  assert.deepEqual(found, {
    hits: [
      { row: -2, text: "alpha", span: [4, 5], line: 0 },
      { row: 0, text: "beta", span: [3, 4], line: 1 },
      { row: 1, text: "gamma", span: [4, 5], line: 2 },
    ],
    more: false,
    numbered: true,
  });
  const limited = await matchPane(compiled("a"), pane, { limit: 1, locateOver: 99 }, LONG);
  assert.deepEqual(limited, {
    hits: [{ row: -2, text: "alpha", span: null, line: 0 }],
    more: true,
    numbered: true,
  });
});

workerTest("a small pane matched in place reads the same as in the worker", async () => {
  const pane = {
    physical: ["al", "pha", "", "beta é", "gamma  ", "x".repeat(50), "y"].join("\n"),
    joined: ["alpha", "", "beta é", "gamma  ", "x".repeat(50) + "y"].join("\n"),
    firstRow: -3,
  };
  for (const pattern of ["a$", "^$", "é", "x{3}y", "a|y", "zzz"]) {
    for (const limits of [{ limit: 10, locateOver: 3 }, { limit: 1, locateOver: 99 }]) {
      assert.deepEqual(
        matchPaneHere(compiled(pattern), pane, limits),
        await matchPane(compiled(pattern), pane, limits, LONG),
        `${pattern} ${JSON.stringify(limits)}`,
      );
    }
  }
});

workerTest(
  "without the rows apart, lines are numbered by the rows their length fills",
  async () => {
    // Width 10: "x" * 25 fills three rows, as tmux wraps it; "é" is not counted.
    const lines = ["alpha  ", "", "x".repeat(25), "beta é", "", "gamma"];
    const physical = [
      "alpha  ",
      "",
      "x".repeat(10),
      "x".repeat(10),
      "x".repeat(5),
      "beta é",
      "",
      "gamma",
    ];
    const joined = lines.join("\n");
    const apart = { physical: physical.join("\n"), joined, firstRow: -4 };
    const byLength = { physical: null, joined, firstRow: -4, width: 10, rows: physical.length };
    for (const pattern of ["a$", "^$", "é", "x{3}", "a|x", "zzz"]) {
      for (const limit of [9, 1]) {
        const limits = { limit, locateOver: 3 };
        const expected = matchPaneHere(compiled(pattern), apart, limits);
        assert.deepEqual(matchPaneHere(compiled(pattern), byLength, limits), expected, pattern);
        assert.deepEqual(await matchPane(compiled(pattern), byLength, limits, LONG), expected);
      }
    }
    // What the lengths cannot tell is reported: a wide or combined character
    // in a long line, a wrapped row whose continuation was erased.
    const unsure = [
      { joined: "é".repeat(15), rows: 2 },
      { joined: ["x".repeat(10), "y"].join("\n"), rows: 3 },
    ];
    for (const { joined, rows } of unsure) {
      const pane = { physical: null, joined, firstRow: 0, width: 10, rows };
      assert.equal(
        matchPaneHere(compiled("y|é"), pane, { limit: 9, locateOver: 99 }).numbered,
        false,
      );
    }
    const empty = { physical: null, joined: "", firstRow: 0, width: 10, rows: 1 };
    assert.deepEqual(matchPaneHere(compiled("^$"), empty, { limit: 9, locateOver: 9 }).hits, []);
  },
);

Deno.test("lines without the pattern's literals are skipped as testing each line would", () => {
  const texts = [
    ["ok: unit 1", "ERROR: step failed at line 100  ", "Warn: x", "error:", "  error: line 7"],
    ["İstanbul error: line 1", "ΟΔΟΣ error: line 2", "σ error: line 3Σ", "plain"],
    ["xx warn", "", "WARNING line 4", "wa", "rn"],
  ];
  const patterns = [
    "error: .* line \\d+",
    "error|warn",
    "(?:error|warn)ing",
    "line \\d+$",
    "σ",
    "odos",
  ];
  for (const lines of texts) {
    const joined = lines.join("\n");
    const apart = { physical: joined, joined, firstRow: 0 };
    const byLength = { physical: null, joined, firstRow: 0, width: 99, rows: lines.length };
    for (const pattern of patterns) {
      for (const ignoreCase of [true, false]) {
        const c = compilePattern(pattern, { literal: false, ignoreCase }).compiled;
        const limits = { limit: 9, locateOver: 0 };
        assert.deepEqual(
          matchPaneHere(c, byLength, limits),
          matchPaneHere(c, apart, limits),
          `${pattern} ${ignoreCase} ${lines[0]}`,
        );
      }
    }
  }
});

workerTest("lineRows numbers joined lines by the row each starts on", async () => {
  const pane = {
    physical: ["al", "pha", "", "beta", "ga", "mm", "a"].join("\n"),
    joined: ["alpha", "", "beta", "gamma"].join("\n"),
    firstRow: -3,
  };
  assert.deepEqual(lineRowsHere(pane, [0, 1, 2, 3]), [-3, -1, 0, 1]);
  assert.deepEqual(await lineRows(pane, [3, 0], LONG), [1, -3]);
});

Deno.test("a cheap pattern is matched in place over more text than a costly one", () => {
  // The bound scales with the compiled cost per character: the costliest
  // accepted pattern gets the base bound, a plain word up to eight times it.
  const costliest = inlineUnits(compiled(SLOW));
  assert.ok(costliest >= INLINE_UNITS && costliest < 1.01 * INLINE_UNITS, `${costliest}`);
  assert.equal(inlineUnits(compiled("error")), 8 * INLINE_UNITS);
  const middle = inlineUnits(compiled("a.{0,990}b"));
  assert.ok(middle > INLINE_UNITS && middle < 8 * INLINE_UNITS, `${middle}`);
});

workerTest("firstMatch: the first line, then the first pattern on it", async () => {
  const patterns = [compiled("error"), compiled("done"), compiled("o")];
  assert.deepEqual(
    await firstMatch(patterns, ["xyz", "done with error", "o"], LONG),
    { line: 1, pattern: 0 },
  );
  assert.equal(await firstMatch(patterns, ["xyz"], LONG), null);
  assert.equal(await firstMatch([], ["error"], LONG), null);
});

workerTest("firstMatch matches small text in place while the call's allowance lasts", async () => {
  const patterns = [compiled("error"), compiled("(?:[ab]c|[bc]a|[ca]b){0,180}d")];
  const here = inPlace(patterns, 50);
  assert.equal(here.units, inlineUnits(patterns[1]));
  // A deadline of 0 ends any job sent to the worker before it starts.
  const now = { timeoutMs: 0, here };
  assert.deepEqual(await firstMatch(patterns, ["ok", "abcd"], now), { line: 1, pattern: 1 });
  assert.ok(here.spentMs > 0);
  const big = ["x".repeat(here.units), "error"];
  assert.ok((await firstMatch(patterns, big, now).catch((e) => e)) instanceof MatchDeadline);
  here.spentMs = here.ms;
  const spent = await firstMatch(patterns, ["error"], now).catch((e) => e);
  assert.ok(spent instanceof MatchDeadline);
  assert.ok(
    (await firstMatch(patterns, ["error"], { timeoutMs: 0 }).catch((e) => e)) instanceof
      MatchDeadline,
  );
});

workerTest(
  "the deadline ends the worker mid-line; the thread stays free and the next job runs",
  async () => {
    // Only ending the worker stops it.
    const pane = { physical: "", joined: HUGE, firstRow: 0 };
    const slow = compiled(SLOW);
    let last = performance.now();
    let worstGap = 0;
    const ticker = setInterval(() => {
      worstGap = Math.max(worstGap, performance.now() - last);
      last = performance.now();
    }, 5);
    const start = performance.now();
    const error = await matchPane(slow, pane, { limit: 1, locateOver: 99 }, { timeoutMs: 200 })
      .catch((e) => e);
    const took = performance.now() - start;
    clearInterval(ticker);
    assert.ok(error instanceof MatchDeadline, String(error));
    assert.ok(took < 2000, `the deadline took ${took.toFixed(0)} ms`);
    assert.ok(worstGap < 1000, `the thread was held ${worstGap.toFixed(0)} ms`);
    assert.deepEqual(await firstMatch([compiled("b")], ["ab"], LONG), { line: 0, pattern: 0 });
  },
);

workerTest("cancelling ends the job with the signal's reason", async () => {
  const pane = { physical: "", joined: HUGE, firstRow: 0 };
  const controller = new AbortController();
  const job = matchPane(compiled(SLOW), pane, { limit: 1, locateOver: 9 }, {
    timeoutMs: 30_000,
    signal: controller.signal,
  });
  controller.abort(new Error("cancelled by the client"));
  await assert.rejects(job, /cancelled by the client/);
});

workerTest("jobs past four wait for a worker, their deadline counting meanwhile", async () => {
  const pane = { physical: "", joined: HUGE, firstRow: 0 };
  const slow = compiled(SLOW);
  const busy = Array.from(
    { length: 4 },
    () => matchPane(slow, pane, { limit: 1, locateOver: 9 }, { timeoutMs: 3000 }).catch((e) => e),
  );
  const quick = [compiled("b")];
  const starved = firstMatch(quick, ["ab"], { timeoutMs: 100 }).catch((e) => e);
  const patient = firstMatch(quick, ["ab"], LONG);
  assert.ok((await starved) instanceof MatchDeadline);
  for (const error of await Promise.all(busy)) assert.ok(error instanceof MatchDeadline);
  assert.deepEqual(await patient, { line: 0, pattern: 0 });
});
