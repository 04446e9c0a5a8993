/**
 * capture_pane reads only the rows of a long history that its budget can
 * return: the window logic alone, then end to end on real tmux through a
 * wrapper that logs every tmux process the server starts (process
 * transport), so each test sees which rows were asked for, and compares the
 * result with what a whole read gives.
 *
 * @module
 */

import type { z } from "zod";
import type { capturePane } from "../tools/capture_pane.ts";
import { assert, assertEquals } from "./assert.ts";
import { type ServerTestOptions, type Session, type TmuxFixture, withServer } from "./harness.ts";
import { budgetLines } from "../core/budget.ts";
import { firstWindow, widerWindow, windowDecides } from "../domain/history_window.ts";
import { WHOLE_HISTORY_READS, wholeHistoryRead } from "../domain/history_reads.ts";
import { captureLines, splitCapture, trimRow, trimTrailingBlank } from "../core/panes.ts";

Deno.test("history window: decides once whole lines or bytes cover the budget", () => {
  const need = { maxLines: 3, maxBytes: 1000, joined: false };
  assertEquals(firstWindow(need, 30), 33);
  assertEquals(widerWindow(33, 50), 50);
  assertEquals(widerWindow(10, 1000), 20);
  assert(!windowDecides(["a", "b"], need), "two lines of three");
  assert(windowDecides(["a", "b", "c"], need), "three lines");
  // With -J the first line may be the tail of a wrapped line: it does not count.
  assert(!windowDecides(["a", "b", "c"], { ...need, joined: true }), "first line may be partial");
  assert(windowDecides(["a", "b", "c", "d"], { ...need, joined: true }));
  // Bytes: two lines of 9 bytes plus newlines fill a budget of 20.
  assert(windowDecides(["x".repeat(9), "y".repeat(9)], { ...need, maxBytes: 20 }));
  assert(!windowDecides(["x".repeat(9), "y".repeat(8)], { ...need, maxBytes: 20 }));
});

Deno.test("whole-history reads: at most two run at once, the others wait in order", async () => {
  let running = 0;
  let most = 0;
  const finished: number[] = [];
  const releases: (() => void)[] = [];
  const reads = [0, 1, 2, 3, 4].map((i) =>
    wholeHistoryRead(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      finished.push(i);
    })
  );
  // Release whoever holds a slot, one at a time, until all five ran.
  while (finished.length < 5) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    releases.shift()?.();
  }
  await Promise.all(reads);
  assertEquals(most, WHOLE_HISTORY_READS);
  assertEquals(finished, [0, 1, 2, 3, 4]);
  // A read that throws gives its slot back.
  await wholeHistoryRead(() => Promise.reject(new Error("x"))).catch(() => {});
  assertEquals(await wholeHistoryRead(() => Promise.resolve(7)), 7);
});

/** {@link withServer} options: a shell pane keeping 100,000 history rows, tmux processes counted. */
const LONG_HISTORY: ServerTestOptions = {
  args: ["--transport", "process"],
  counted: true,
  async pane(fx) {
    await fx.tmux("set-option", "-g", "history-limit", "100000");
    return await fx.shellPane();
  },
};

/** The capture-pane processes the server started since the last call. */
async function captures(s: Session): Promise<string[]> {
  const lines = (await s.counter!.started()).filter((l) => l.includes("capture-pane"));
  await s.counter!.reset();
  return lines;
}

/** The -S row of each logged capture-pane. */
function startRows(logged: string[]): string[] {
  return logged.map((line) => /capture-pane .* -S (\S+)/.exec(line)?.[1] ?? "(none)");
}

/** What a whole read gives, budgeted as the tool budgets it. */
async function wholeRead(fx: TmuxFixture, pane: string, joined: boolean, maxLines: number) {
  const flags = joined ? ["-J"] : [];
  const output = await fx.tmux("capture-pane", "-p", ...flags, "-S", "-", "-t", pane);
  // fx.tmux trims the output's final newline; the tool splits what tmux sent.
  const lines = joined
    ? trimTrailingBlank(splitCapture(output).map(trimRow))
    : captureLines(`${output}\n`);
  return budgetLines(lines, maxLines, 128_000);
}

type Captured = z.infer<typeof capturePane.output>;

Deno.test("capture_pane reads 10 lines of a 60,000-line history from the rows above the screen only", async () => {
  await withServer(LONG_HISTORY, async (fx, s, pane) => {
    const log = () => captures(s);
    await fx.runInPane(pane, "seq 1 60000");
    await log();
    const got = await s.ok<Captured>("capture_pane", {
      paneId: pane,
      includeHistory: true,
      maxLines: 10,
    });
    // The pane's extent and its first window are asked in one round trip.
    const started = await s.counter!.started();
    assertEquals(started.length, 1, `one tmux process: ${started}`);
    assert(started[0].includes("display-message"), started[0]);
    const expected = await wholeRead(fx, pane, false, 10);
    assertEquals(got.content.lines, expected.lines);
    assertEquals(got.content.droppedLines, expected.droppedLines);
    assert(got.content.truncated);
    const rows = startRows(await log());
    assertEquals(rows.length, 1, `one read: ${rows}`);
    assert(Number(rows[0]) >= -10, `read from row ${rows[0]}, not the whole history`);
  });
});

Deno.test("capture_pane joins wrapped lines across the window's top and widens past a blank tail", async () => {
  await withServer(LONG_HISTORY, async (fx, s, pane) => {
    const log = () => captures(s);
    // Lines of 250 characters wrap over three rows of the 100-column pane.
    await fx.runInPane(pane, "seq -f '%0250g' 1 3000");
    await log();
    const joined = await s.ok<Captured>("capture_pane", {
      paneId: pane,
      includeHistory: true,
      maxLines: 3,
      joinWrappedLines: true,
    });
    assertEquals(joined.content.lines, (await wholeRead(fx, pane, true, 3)).lines);
    assert(joined.content.lines.slice(0, 2).every((l) => l.length === 250), "whole lines");
    assert(Number(startRows(await log())[0]) > -100, "read near the bottom");

    // 45 blank rows below the output fill the 30-row screen and more: the
    // first window holds none of the lines kept, so it widens.
    const channel = "blank-tail";
    const printed = fx.tmux("wait-for", channel);
    await fx.typeLine(
      pane,
      `seq 1 5000; printf '\\n%.0s' $(seq 1 45); tmux -S '${fx.socketPath}' wait-for -S ${channel}; sleep 60`,
    );
    await printed;
    await log();
    const tail = await s.ok<Captured>("capture_pane", {
      paneId: pane,
      includeHistory: true,
      maxLines: 5,
    });
    assertEquals(tail.content.lines, ["4996", "4997", "4998", "4999", "5000"]);
    const rows = startRows(await log());
    assert(rows.length >= 2, `the window widened: ${rows}`);
    assert(rows.every((row) => Number(row) > -200), `windows stay near the bottom: ${rows}`);
  });
});

Deno.test("capture_pane counts dropped bytes exactly, for ASCII and multibyte histories", async () => {
  await withServer(
    { ...LONG_HISTORY, args: ["--transport", "process", "--max-bytes", "4000"] },
    async (fx, s, pane) => {
      for (const format of ["row %g ascii", "row %g ééé日本😀"]) {
        await fx.runInPane(
          pane,
          `clear; tmux -S '${fx.socketPath}' clear-history; seq -f '${format}' 1 300`,
        );
        const got = await s.ok<Captured>("capture_pane", {
          paneId: pane,
          includeHistory: true,
          maxLines: 500,
        });
        // The window covers the whole history: every row dropped was read and is counted in bytes.
        const whole = (await wholeRead(fx, pane, false, 100_000)).lines;
        const kept = got.content.lines.length;
        assert(kept > 0 && kept < whole.length, `${kept} of ${whole.length} lines kept`);
        assertEquals(got.content.lines, whole.slice(whole.length - kept));
        assertEquals(got.content.droppedLines, whole.length - kept);
        const encoder = new TextEncoder();
        const dropped = whole.slice(0, whole.length - kept)
          .reduce((sum, line) => sum + encoder.encode(line).length + 1, 0);
        assertEquals(got.content.droppedBytes, dropped, format);
      }
    },
  );
});
