/**
 * capture_since against real tmux, driven through the MCP server: reading on
 * from a cursor (new rows only, rewrites, clears, trimmed or absent history,
 * resizes and re-wraps, a lost place) and refusing cursors that do not fit.
 * Each test owns a tmux server on a private socket; panes run
 * `bash --norc --noprofile` so prompts and echo are known.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { serverTest, type Session, startServer, TmuxFixture, withServer } from "./harness.ts";
import { historySize, setup, SHELL, startWait, structured, type } from "./watch_helpers.ts";
import type { SinceResult } from "./watch_helpers.ts";

/**
 * Clears the pane, takes a cursor, runs `seq 1 3`: reading on from the
 * cursor must return the three lines with nothing missed. Resolves with that read.
 */
async function seqAfterClear(
  fixture: TmuxFixture,
  session: Session,
  pane: string,
): Promise<SinceResult> {
  await fixture.runInPane(pane, "clear");
  const cleared = await session.ok<SinceResult>("capture_since", { paneId: pane });
  await fixture.runInPane(pane, "seq 1 3");
  const typed = await session.ok<SinceResult>("capture_since", {
    paneId: pane,
    cursor: cleared.cursor,
  });
  assertEquals([typed.anchorLost, typed.linesMissed], [false, 0]);
  assertEquals(typed.content.lines.filter((l) => /^\d+$/.test(l)), ["1", "2", "3"]);
  return typed;
}

// Each read is a consistent chained round trip, which each transport splits differently.
serverTest(
  "capture_since: first call returns the screen; then only new rows, even after 3 screens",
  async (fixture, session, pane) => {
    const first = await session.ok<SinceResult>("capture_since", { paneId: pane });
    assertEquals(first.anchorLost, false);
    assertEquals(first.linesMissed, 0);
    assert(first.content.lines.at(-1)?.startsWith("bash"), `the prompt: ${first.content.lines}`);
    await fixture.runInPane(pane, "seq 1 30 | sed 's/^/row-/'");
    const next = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: first.cursor,
    });
    const rows = next.content.lines.filter((l) => l.startsWith("row-"));
    assertEquals(
      rows,
      Array.from({ length: 30 }, (_, i) => `row-${i + 1}`),
      "every new row once",
    );
    assertEquals(next.linesMissed, 0);
    assertEquals(next.anchorLost, false);
    const none = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: next.cursor,
    });
    assertEquals(none.content.lines, [], "nothing new");
    assert(none.cursor.length > 0, "a fresh cursor");
    // The cursor keeps working from the empty call.
    await fixture.runInPane(pane, "echo 'one''more'");
    const more = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: none.cursor,
    });
    assert(more.content.lines.includes("onemore"), `new row: ${more.content.lines}`);
    assert(!more.content.lines.some((l) => l.startsWith("row-")), "old rows are not repeated");
  },
  setup({ height: 10 }),
);

Deno.test("capture_since: a carriage-return rewrite of the current row counts as new", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const printed = fixture.tmux("wait-for", "printed");
    await type(
      fixture,
      pane,
      `printf 'st''ep 1'; tmux -S ${fixture.socketPath} wait-for -S printed; ` +
        `tmux -S ${fixture.socketPath} wait-for go; printf '\\rst''ep 2\\n'; ` +
        `tmux -S ${fixture.socketPath} wait-for -S finished`,
    );
    await printed;
    const at = await session.ok<SinceResult>("capture_since", { paneId: pane });
    assert(at.content.lines.at(-1) === "step 1", `the row being rewritten: ${at.content.lines}`);
    const finished = fixture.tmux("wait-for", "finished");
    await fixture.tmux("wait-for", "-S", "go");
    await finished;
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: at.cursor });
    assertEquals(r.content.lines[0], "step 2", "the rewritten row comes first");
    assert(!r.content.lines.includes("step 1"), "the old state is gone");
    // printf 'a\rb' on one line: the row holds b, and that is what is new.
    await fixture.runInPane(pane, "printf 'a\\rb\\n'");
    const ab = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: r.cursor });
    assert(ab.content.lines.includes("b"), `the row shows b: ${ab.content.lines}`);
    assert(!ab.content.lines.includes("a"), "a was overwritten");
  });
});

Deno.test("capture_since: clear-history sets linesMissed and returns the screen", async () => {
  await withServer(setup({ height: 10 }), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "seq 1 25");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 100 160");
    await fixture.tmux("clear-history", "-t", pane);
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals(r.anchorLost, true);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    assert(r.content.lines.includes("160"), `the visible screen: ${r.content.lines}`);
    assert(!r.content.lines.includes("100"), "scrolled-off rows are not on screen");
    // The new cursor tracks from here.
    await fixture.runInPane(pane, "echo after");
    const after = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: r.cursor,
    });
    assertEquals(after.anchorLost, false);
    assert(after.content.lines.includes("after"), `${after.content.lines}`);
  });
});

Deno.test("capture_since: history trimmed at history-limit", async () => {
  await withServer(setup({ height: 10, historyLimit: 100 }), async (fixture, session, pane) => {
    // Fill the history close to the limit, then print enough to make tmux
    // drop its oldest tenth: the cursor's rows move up and are still found.
    await fixture.runInPane(pane, "seq 1 95 | sed 's/^/a-/'");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    const history = async () =>
      Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
    const sizeBefore = await history();
    await fixture.runInPane(pane, "seq 1 20 | sed 's/^/b-/'");
    assert(await history() < sizeBefore + 20, "tmux dropped history in between");
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals(r.anchorLost, false);
    assertEquals(r.linesMissed, 0);
    assertEquals(
      r.content.lines.filter((l) => l.startsWith("b-")).length,
      20,
      `${r.content.lines}`,
    );
    assert(!r.content.lines.some((l) => l.startsWith("a-")), "nothing old repeated");
    // Far more than the whole history: the cursor's rows are gone.
    await fixture.runInPane(pane, "seq 1 500 | sed 's/^/c-/'");
    const lost = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: r.cursor });
    assertEquals(lost.anchorLost, true);
    assertEquals(lost.linesMissed, null, `linesMissed: ${lost.linesMissed}`);
    assert(lost.content.lines.includes("c-500"), `${lost.content.lines}`);
  });
});

Deno.test("capture_since: a burst longer than the history returns every new line tmux still holds", async () => {
  await withServer(setup({ height: 10, historyLimit: 100 }), async (fixture, session, pane) => {
    // A log follower: the history is full, then one burst outgrows it.
    await fixture.runInPane(pane, "seq 1 95 | sed 's/^/a-/'");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 1 150 | sed 's/^/c-/'");
    const r = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: c.cursor,
      maxLines: 1000,
    });
    assertEquals(r.anchorLost, true);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    const held = (await fixture.tmux("capture-pane", "-p", "-S", "-", "-t", pane)).split("\n")
      .filter((l) => l.startsWith("c-"));
    const got = r.content.lines.filter((l) => l.startsWith("c-"));
    // Not only the screen: the history rows of the burst come back too, in order.
    assertEquals(got, held);
    assert(got.length > 50, `${got.length} lines: ${got.slice(0, 3)}`);
    assert(!r.content.lines.some((l) => l.startsWith("a-")), "nothing old repeated");
  });
});

Deno.test("capture_since: output repeating the cursor's rows in a full history is not taken for a trim", async () => {
  await withServer(setup({ height: 10, historyLimit: 100 }), async (fixture, session, pane) => {
    // Echoed commands of a fixed length (the pane's own $TMUX names the
    // socket), so the repeat lands at the same place every run.
    const run = async (command: string, channel: string) => {
      const done = fixture.tmux("wait-for", channel);
      await type(fixture, pane, `${command}; tmux wait-for -S ${channel}`);
      await done;
    };
    await run("seq 1 300", "fill");
    await run("seq 1 50", "first");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    // The same command, longer: 1..50 again, and more than the history holds.
    await run("seq 1 150", "again");
    const r = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: c.cursor,
      maxLines: 1000,
    });
    // tmux kept only the end of it: the rows the cursor saw are gone, and
    // lines before what tmux still holds are missing.
    assertEquals(r.anchorLost, true, `${r.content.lines.slice(0, 3)}`);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    assert(r.content.lines.includes("150"), `the visible screen: ${r.content.lines}`);
  });
});

Deno.test("capture_since: a cursor from before the pane ever scrolled reports a trim as lost", async () => {
  await withServer(setup({ height: 10, historyLimit: 100 }), async (fixture, session, pane) => {
    const history = async () =>
      Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
    for (const start of ["a few rows", "a cleared screen"]) {
      if (start === "a cleared screen") {
        await fixture.runInPane(pane, "clear");
        await fixture.tmux("clear-history", "-t", pane);
      }
      assertEquals(await history(), 0, `${start}: nothing has scrolled yet`);
      const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
      // 500 lines through a 100-line history: tmux trims it again and again.
      await fixture.runInPane(pane, "seq 1 500");
      const r = await session.ok<SinceResult>("capture_since", {
        paneId: pane,
        cursor: c.cursor,
        maxLines: 1000,
      });
      assertEquals(r.anchorLost, true, `${start}: ${r.content.lines.slice(0, 3)}`);
      assertEquals(r.linesMissed, null, `${start}: linesMissed ${r.linesMissed}`);
      assert(r.content.lines.includes("500"), `${start}: the visible screen`);
      await fixture.tmux("clear-history", "-t", pane);
    }
    // Fewer lines than a trim needs: every one comes back, nothing is missed.
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 1 60");
    const r = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: c.cursor,
      maxLines: 1000,
    });
    assertEquals([r.anchorLost, r.linesMissed], [false, 0]);
    for (const n of ["1", "30", "60"]) {
      assert(r.content.lines.includes(n), `${n} in ${r.content.lines}`);
    }
  });
});

Deno.test("capture_since: a clear after rows scrolled is missed lines, even from a fresh screen", async () => {
  await withServer(setup({ height: 10 }), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "clear");
    await fixture.tmux("clear-history", "-t", pane);
    // Only the prompt, on the top row: the cursor remembers no rows above it.
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 1 25");
    await fixture.tmux("clear-history", "-t", pane);
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals(r.anchorLost, true, `${r.content.lines}`);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    assert(r.content.lines.includes("25"), `the visible screen: ${r.content.lines}`);
    // Nothing scrolled: the command typed onto the prompt and its output, all of it.
    await seqAfterClear(fixture, session, pane);
  });
});

Deno.test("capture_since and wait_for_text: a pane without history (history-limit 0) says what scrolled off", async () => {
  await withServer(setup({ height: 10, historyLimit: 0 }), async (fixture, session, pane) => {
    // tmux keeps no history here: every row that scrolls off the screen is
    // gone, and history_size stays 0, so it cannot tell that rows went.
    await fixture.runInPane(pane, "clear; echo first");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 1 40");
    assertEquals(await historySize(fixture, pane), 0);
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals(r.anchorLost, true, `${r.content.lines}`);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    assert(r.content.lines.includes("40"), `the visible screen: ${r.content.lines}`);
    // A wait given a cursor from before such a burst says output was dropped.
    const before = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.runInPane(pane, "seq 101 140");
    const w = structured(
      await startWait(session, {
        cursor: before.cursor,
        patterns: ["^105$"],
        timeoutSeconds: 1,
      }).result,
    );
    assertEquals(w.outcome, "timeout");
    assertEquals(w.tail.truncated, true, `${w.tail.lines}`);
    assert(w.tail.droppedLines >= 1, `droppedLines: ${w.tail.droppedLines}`);
    // No false alarm: output that scrolled nothing new away, from a cleared
    // screen (no row but the prompt) and from a screen of rows.
    const typed = await seqAfterClear(fixture, session, pane);
    await fixture.runInPane(pane, "seq 4 9");
    const screen = await fixture.tmux("capture-pane", "-p", "-t", pane);
    const rows = screen.split("\n");
    assert(!rows.includes("1") && rows.includes("3"), `rows scrolled off: ${screen}`);
    const scrolled = await session.ok<SinceResult>("capture_since", {
      paneId: pane,
      cursor: typed.cursor,
    });
    assertEquals([scrolled.anchorLost, scrolled.linesMissed], [false, 0]);
    assertEquals(scrolled.content.lines.filter((l) => /^\d+$/.test(l)), [
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
    ]);
  });
});

/**
 * Runs `seq 1 count` with `prefix` on every line, reads on from `cursor`, and
 * checks that exactly that command and its lines came back, nothing lost.
 */
async function readsOnlyNew(
  fixture: TmuxFixture,
  session: Session,
  pane: string,
  cursor: string,
  prefix: string,
  count: number,
): Promise<SinceResult> {
  await fixture.runInPane(pane, `seq 1 ${count} | sed 's/^/${prefix}/'`);
  const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor });
  const what = `${prefix}: ${JSON.stringify(r.content.lines)}`;
  assertEquals([r.anchorLost, r.linesMissed], [false, 0], what);
  // The first row back is the prompt the command was typed onto: no row
  // the previous read returned comes again.
  assertStringIncludes(r.content.lines[0] ?? "", `seq 1 ${count}`, what);
  assertEquals(
    r.content.lines.filter((l) => /^[a-z]+-\d+$/.test(l)),
    Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`),
    what,
  );
  return r;
}

Deno.test("capture_since: a pane shrunk, then grown taller (resize-window -y) keeps its place", async () => {
  await withServer(setup({ height: 10 }), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "seq 1 30 | sed 's/^/old-/'");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    // Shorter: tmux pushes the top rows into the history, line numbers stay.
    let size = await historySize(fixture, pane);
    await fixture.tmux("resize-window", "-t", pane, "-y", "5");
    assert(await historySize(fixture, pane) > size, "rows went into the history");
    const shrunk = await readsOnlyNew(fixture, session, pane, c.cursor, "low-", 3);
    // Taller: tmux pulls rows back out of the history onto the screen, so the
    // history is smaller than when the cursor was made, and nothing was lost.
    size = await historySize(fixture, pane);
    await fixture.tmux("resize-window", "-t", pane, "-y", "20");
    assert(await historySize(fixture, pane) < size, "rows came back out of the history");
    await readsOnlyNew(fixture, session, pane, shrunk.cursor, "tall-", 4);
  });
});

Deno.test("capture_since: a pane split, then grown back when its sibling is killed, keeps its place", async () => {
  await withServer(setup({ height: 20 }), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "seq 1 40 | sed 's/^/old-/'");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    const sibling = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    const split = await readsOnlyNew(fixture, session, pane, c.cursor, "split-", 3);
    const size = await historySize(fixture, pane);
    await fixture.tmux("kill-pane", "-t", sibling);
    assert(await historySize(fixture, pane) < size, "rows came back out of the history");
    await readsOnlyNew(fixture, session, pane, split.cursor, "whole-", 3);
  });
});

Deno.test("capture_since: a width change re-wraps the rows: anchorLost, the screen, no history lost", async () => {
  await withServer(setup({ height: 10 }), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "seq 1 30 | sed 's/^/old-/'");
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.tmux("resize-window", "-t", pane, "-x", "60");
    await fixture.runInPane(pane, "echo 'wid''er'");
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals([r.anchorLost, r.linesMissed], [true, 0], `${r.content.lines}`);
    assert(r.content.lines.includes("wider"), `the visible screen: ${r.content.lines}`);
    // The new cursor is made at the new width and keeps its place.
    await readsOnlyNew(fixture, session, pane, r.cursor, "after-", 3);
  });
});

Deno.test("capture_since: a lost place with no row to find again reads what tmux still holds once more (process mode, counted)", async () => {
  const blankRows = async (fixture: TmuxFixture) => {
    const pane = await fixture.windowPane(SHELL);
    // Blank rows above the prompt: the cursor holds nothing to search for.
    await fixture.runInPane(pane, "yes '' | head -30");
    return pane;
  };
  const options = {
    args: ["--transport", "process"],
    counted: true,
    fixture: { width: 80, height: 10 },
    pane: blankRows,
  };
  await withServer(options, async (fixture, session, pane) => {
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    await fixture.tmux("clear-history", "-t", pane);
    await fixture.runInPane(pane, "seq 1 60");
    await session.counter!.reset();
    const r = await session.ok<SinceResult>("capture_since", { paneId: pane, cursor: c.cursor });
    assertEquals(r.anchorLost, true);
    assertEquals(r.linesMissed, null, `linesMissed: ${r.linesMissed}`);
    // Every row tmux holds was written after the cleared ones: all of them come back.
    for (const n of ["1", "30", "60"]) {
      assert(r.content.lines.includes(n), `${n} in ${r.content.lines}`);
    }
    // The pane's state, the rows from the cursor's place, then (the place
    // lost) every row from the top of the history, and nothing more.
    const started = await session.counter!.started();
    assertEquals(started.length, 3, started.join(" | "));
  });
});

Deno.test("capture_since: refuses a cursor from before a respawn, a forged one, another pane's", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    // Another pane's cursor.
    const other = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    const foreign = await session.fails("capture_since", { paneId: other, cursor: c.cursor });
    assertStringIncludes(foreign, "another pane");
    // Forged: one character changed.
    const i = Math.floor(c.cursor.length / 2);
    const forged = c.cursor.slice(0, i) + (c.cursor[i] === "A" ? "B" : "A") + c.cursor.slice(i + 1);
    const altered = await session.fails("capture_since", { paneId: pane, cursor: forged });
    assertStringIncludes(altered, "capture_since failed: the cursor");
    assert(!altered.includes(forged), "the rejected cursor is not echoed");
    const garbage = await session.fails("capture_since", { paneId: pane, cursor: "not a cursor!" });
    assertStringIncludes(garbage, "malformed");
    // From before a respawn.
    await fixture.tmux("respawn-pane", "-k", "-t", pane, SHELL);
    const stale = await session.fails("capture_since", { paneId: pane, cursor: c.cursor });
    assertStringIncludes(stale, "restarted");
  });
});

Deno.test("capture_since: a cursor from another server process is refused", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    await using second = await startServer(fixture.socketPath);
    const c = await session.ok<SinceResult>("capture_since", { paneId: pane });
    const text = await second.fails("capture_since", { paneId: pane, cursor: c.cursor });
    assertStringIncludes(text, "another server process");
  });
});
