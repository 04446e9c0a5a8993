/** search_panes over stdio against a real tmux, and the wrapped-line row mapping. */

import type { z } from "zod";
import type { searchPanes } from "../tools/search_panes.ts";
import { assert, assertEquals, assertStringIncludes, assertWithinBytes } from "./assert.ts";
import { serverTest, type TmuxFixture } from "./harness.ts";
import { joinWrappedRows } from "../domain/wrapped.ts";

/** A small first window, so history and wrapping come quickly. */
const SMALL = { width: 60, height: 10 };

type Found = z.infer<typeof searchPanes.output>;

/**
 * Runs `command` in tmux once, right after the next `list-panes` (search's
 * listing), then sets @fired. tmux runs an after- hook before anything else
 * the listing's client sends, so the captures that follow see its effect.
 */
async function afterTheListing(fx: TmuxFixture, command: string): Promise<void> {
  await fx.tmux(
    "set-hook",
    "-g",
    "after-list-panes",
    `${command} ; set-hook -gu after-list-panes ; set -g @fired 1`,
  );
}

Deno.test("wrapped rows: joined lines map to the row they start on", () => {
  const physical = ["short", "x".repeat(10), "yy", "last"].join("\n");
  const joined = ["short", "x".repeat(10) + "yy", "last"].join("\n");
  assertEquals(joinWrappedRows(physical, joined, -2), [
    { row: -2, text: "short" },
    { row: -1, text: "x".repeat(10) + "yy" },
    { row: 1, text: "last" },
  ]);
});

Deno.test("wrapped rows: a wrap at spaces and an erased continuation keep later rows exact", () => {
  // -N rows keep the spaces before the wrap that a plain capture trims.
  const physical = ["a".repeat(15) + " ".repeat(5), "bbbbb", "LINE2", "z".repeat(20), "", "LINE3"]
    .join("\n");
  const joined = ["a".repeat(15) + " ".repeat(5) + "bbbbb", "LINE2", "z".repeat(20), "LINE3"]
    .join("\n");
  assertEquals(joinWrappedRows(physical, joined, 0).map((l) => l.row), [0, 2, 3, 5]);
});

serverTest(
  "search_panes: rows stay exact below a line wrapped at a space",
  async (fx, s, pane) => {
    // 25 characters in 20 columns wrap after five spaces, which tmux trims from the row.
    await fx.runInPane(
      pane,
      "clear; printf 'aaaaaaaaaaaaaaa     bbbbb\\nLINE2\\nLINE3 target\\n'",
    );
    const found = await s.ok<Found>("search_panes", { pattern: "^LINE" });
    const matches = found.panes[0].matches;
    assertEquals(matches.map((m) => m.text), ["LINE2", "LINE3 target"]);
    for (const m of matches) {
      const { content } = await s.ok("capture_pane", {
        paneId: pane,
        start: m.row,
        end: m.row,
      });
      assertEquals(content.lines, [m.text]);
    }
  },
  { fixture: { width: 20, height: 10 } },
);

serverTest(
  "search_panes: finds the pane and row, case-insensitively by default",
  async (fx, s, pane) => {
    const other = await fx.tmux("split-window", "-t", pane, "-P", "-F", "#{pane_id}");
    await fx.runInPane(other, "clear; echo 'build ERROR: missing file'");
    const found = await s.ok<Found>("search_panes", { pattern: "error: \\w+" });
    assertEquals(found.panes.map((p) => p.paneId), [other]);
    const row = found.panes[0].matches.find((m) => m.text.startsWith("build ERROR"))!;
    const screen = (await fx.tmux("capture-pane", "-p", "-t", other)).split("\n");
    assertEquals(screen[row.row], "build ERROR: missing file");
    const exact = await s.ok<Found>("search_panes", { pattern: "error:", ignoreCase: false });
    assert(exact.panes.every((p) => p.matches.every((m) => m.text.includes("error:"))));
    assertEquals(found.panesSearched, 2);
  },
  { fixture: SMALL },
);

serverTest("search_panes: Unicode text and literal mode", async (fx, s, pane) => {
  await fx.runInPane(pane, "clear; echo 'Grüße aus 日本 (a+b)*c'");
  const unicode = await s.ok<Found>("search_panes", { pattern: "GRÜSSE|grüße aus 日本" });
  assert(unicode.panes[0].matches.some((m) => m.text.includes("日本 (a+b)*c")));
  const literal = await s.ok<Found>("search_panes", { pattern: "(a+b)*c", literal: true });
  assert(literal.panes[0].matches.some((m) => m.text.includes("(a+b)*c")));
  const regex = await s.ok<Found>("search_panes", { pattern: "\\(a\\+b\\)\\*c" });
  assertEquals(regex.panes.length, 1);
}, { fixture: SMALL });

serverTest(
  "search_panes: history rows are negative; wrapped lines are joined",
  async (fx, s, pane) => {
    await fx.runInPane(
      pane,
      "clear; echo needle-in-history; for i in $(seq 1 30); do echo filler $i; done",
    );
    const visible = await s.ok<Found>("search_panes", { pattern: "needle-in-history" });
    assertEquals(visible.panes.length, 0);
    const history = await s.ok<Found>("search_panes", {
      pattern: "needle-in-history",
      includeHistory: true,
    });
    const row = history.panes[0].matches.find((m) => m.text === "needle-in-history")!.row;
    assert(row < 0, `history row ${row}`);
    const all = (await fx.tmux("capture-pane", "-p", "-t", pane, "-S", "-")).split("\n");
    const size = Number(await fx.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
    assertEquals(all[size + row], "needle-in-history");
    const long = "A".repeat(50) + "SPLIT" + "B".repeat(50);
    await fx.runInPane(pane, `clear; echo ${long}`);
    const wrapped = await s.ok<Found>("search_panes", { pattern: "A{50}SPLIT(B){50}" });
    assertEquals(wrapped.panes[0].matches[0].text, long);
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: refused patterns never reach tmux and name the construct",
  async (_fx, s) => {
    assertStringIncludes(
      await s.fails("search_panes", { pattern: "foo(?<=bar)" }),
      "lookbehind at offset 3",
    );
    assertStringIncludes(await s.fails("search_panes", { pattern: "(a)\\1" }), "backreference");
    assertStringIncludes(await s.fails("search_panes", { pattern: "é".repeat(500) }), "999");
    const adversarial = await s.ok<Found>("search_panes", { pattern: "(a+)+$" });
    assertEquals(adversarial.truncated, false);
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: maxMatchesPerPane and the byte budget set truncated",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "clear; for i in $(seq 1 8); do echo hit $i; done");
    const few = await s.ok<Found>("search_panes", { pattern: "^hit", maxMatchesPerPane: 3 });
    assertEquals(few.panes[0].matches.length, 3);
    assert(few.truncated);
    const big = "Z".repeat(3000);
    await fx.runInPane(pane, `clear; echo ${big}; echo small-marker`);
    const both = await s.ok<Found>("search_panes", {
      pattern: "Z{100}|small-marker",
      includeHistory: true,
    });
    const texts = both.panes[0].matches.map((m) => m.text);
    assert(texts.includes("small-marker"), "the small match after the big one is kept");
    assert(both.truncated);
  },
  { args: ["--max-bytes", "4000"], fixture: SMALL },
);

serverTest(
  "search_panes: escape-heavy matches are cut to the byte budget, not refused",
  async (fx, s, pane) => {
    // JSON log lines: quotes and backslashes cost two to six bytes each on the wire.
    await fx.runInPane(
      pane,
      `clear; yes '{"level":"info","path":"C:\\\\Users\\\\me\\\\file.ts","msg":"\\"GET /\\" done"}' | head -n 1000`,
    );
    const result = await s.call("search_panes", {
      pattern: "level",
      includeHistory: true,
      maxMatchesPerPane: 1000,
    });
    assert(!result.isError, JSON.stringify(result.content).slice(0, 300));
    assertWithinBytes(result, 128_000);
    const found = result.structuredContent as Found;
    assert(found.truncated);
    const matches = found.panes[0].matches;
    assert(matches.length > 100, `${matches.length} matches kept`);
    assert(matches.every((m) => m.text.includes('"C:\\\\Users\\\\me')), matches[0].text);
  },
  { fixture: { width: 200, height: 50 } },
);

serverTest(
  "search_panes: a match in a line over 1,024 bytes is kept in the cut text, marked where cut",
  async (fx, s, pane) => {
    const lines = [
      `ERROR: disk full ${"x".repeat(1500)}`,
      `${"é".repeat(800)}NEEDLE${"é".repeat(800)}`,
      `${"y".repeat(1500)}TAILHIT`,
    ];
    const file = `${fx.dir}/long.txt`;
    await Deno.writeTextFile(file, lines.join("\n") + "\n");
    await fx.runInPane(pane, `clear; cat ${file}`);
    const text = async (pattern: string) => {
      const found = await s.ok<Found>("search_panes", { pattern, includeHistory: true });
      assert(found.truncated);
      const match = found.panes[0].matches[0].text;
      const bytes = new TextEncoder().encode(match).length;
      assert(bytes <= 1024 && bytes > 1000, `${bytes} bytes`);
      return match;
    };
    const start = await text("ERROR: disk");
    assert(start.startsWith("ERROR: disk full x") && start.endsWith("x\u2026"), start.slice(0, 40));
    const middle = await text("NEEDLE");
    assert(middle.startsWith("\u2026é") && middle.endsWith("é\u2026"), middle.slice(0, 40));
    // The room is shared: the match sits near the middle of the cut text.
    const at = middle.indexOf("NEEDLE");
    assert(Math.abs(at - (middle.length - at - 6)) < 4, `NEEDLE at ${at} of ${middle.length}`);
    const end = await text("tailhit");
    assert(end.startsWith("\u2026y") && end.endsWith("yTAILHIT"), end.slice(-40));
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: a pane shown in several sessions (linked window, grouped session) is searched once",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "echo needle-shared");
    const linked = await fx.shellPane();
    await fx.runInPane(linked, "echo needle-linked");
    const linkedWindow = await fx.tmux("display-message", "-p", "-t", linked, "#{window_id}");
    await fx.tmux("new-session", "-d", "-s", "other");
    // The window is in main and other; every window of main is also in group.
    await fx.tmux("link-window", "-s", linkedWindow, "-t", "=other:");
    await fx.tmux("new-session", "-d", "-s", "group", "-t", "=main");
    const distinct = new Set((await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n"));
    const found = await s.ok<Found>("search_panes", { pattern: "^needle-" });
    assertEquals(found.panes.map((p) => p.paneId).sort(), [pane, linked].sort());
    assertEquals(found.panesSearched, distinct.size);
    // Within one session too: the window linked twice into other.
    await fx.tmux("link-window", "-s", linkedWindow, "-t", "=other:7");
    const inOther = await s.ok<Found>("search_panes", { pattern: "needle-", session: "other" });
    assertEquals(inOther.panes.map((p) => p.paneId), [linked]);
  },
);

serverTest(
  "search_panes: a pane killed between the listing and its capture is left out, the rest is searched",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "echo needle-kept");
    const doomed = await fx.shellPane();
    await fx.runInPane(doomed, "echo needle-doomed");
    const later = await fx.shellPane();
    await fx.runInPane(later, "echo needle-later");
    await afterTheListing(fx, `kill-pane -t ${doomed}`);
    const found = await s.ok<Found>("search_panes", { pattern: "^needle-" });
    assertEquals(await fx.tmux("show", "-gv", "@fired"), "1", "the kill ran after the listing");
    assertEquals(found.panes.map((p) => p.paneId).sort(), [pane, later].sort());
    assertEquals(found.panesSearched, 2);
    assertEquals(found.skippedPanes, []);
  },
);

serverTest(
  "search_panes: history rows are numbered from the history the captures saw, not the listing's",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "seq 1 40; echo needle-screen");
    // The history shrinks between the listing and the captures.
    await afterTheListing(fx, `clear-history -t ${pane}`);
    const found = await s.ok<Found>("search_panes", {
      pattern: "^needle-screen",
      includeHistory: true,
    });
    assertEquals(await fx.tmux("show", "-gv", "@fired"), "1", "the history was cleared");
    const [hit] = found.panes[0].matches;
    const { content } = await s.ok("capture_pane", {
      paneId: pane,
      start: hit.row,
      end: hit.row,
    });
    assertEquals(content.lines, ["needle-screen"]);
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: rows of a pane whose wraps its line lengths do not tell are read apart",
  async (fx, s, pane) => {
    // "é" is one cell, but the search does not assume so: the rows of the
    // pane's matches are read with its rows apart, in a second round trip.
    await fx.runInPane(pane, `seq 1 40; echo needle-${"é".repeat(80)}; echo after-needle`);
    const rowText = (row: number) =>
      fx.tmux("capture-pane", "-p", "-t", pane, "-S", `${row}`, "-E", `${row}`);
    const search = async () => {
      const found = await s.ok<Found>("search_panes", {
        pattern: "^after-needle",
        includeHistory: true,
      });
      const [hit] = found.panes[0].matches;
      assertEquals(await rowText(hit.row), "after-needle");
    };
    await search();
    // Cleared between the two reads: the text changed, so it is matched again.
    await fx.tmux(
      "set-hook",
      "-g",
      "after-list-panes",
      `set-hook -g after-list-panes { clear-history -t ${pane} ; set-hook -gu after-list-panes ; ` +
        `set -g @fired 2 } ; set -g @fired 1`,
    );
    await search();
    assertEquals(await fx.tmux("show", "-gv", "@fired"), "2", "the history was cleared");
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: a search again reads the panes as they are, after panes come and go",
  async (fx, s, pane) => {
    const search = () => s.ok<Found>("search_panes", { pattern: "needle-\\d" });
    const hits = (found: Found) => found.panes.map((p) => [p.paneId, p.matches[0].text]);
    assertEquals(hits(await search()), []);
    // The second search reads the first one's panes with the listing: a pane
    // added since is not among them.
    const added = await fx.tmux("split-window", "-t", pane, "-P", "-F", "#{pane_id}");
    await fx.runInPane(added, "clear; echo needle-1");
    const withAdded = await search();
    assertEquals([withAdded.panesSearched, hits(withAdded)], [2, [[added, "needle-1"]]]);
    // A pane gone since fails the captures of the panes last listed.
    await fx.tmux("kill-pane", "-t", added);
    await fx.runInPane(pane, "clear; echo needle-2");
    const withoutAdded = await search();
    assertEquals([withoutAdded.panesSearched, hits(withoutAdded)], [1, [[pane, "needle-2"]]]);
    // The same panes again: what they show now.
    await fx.runInPane(pane, "clear; echo needle-3");
    assertEquals(hits(await search()), [[pane, "needle-3"]]);
  },
  { fixture: SMALL },
);

serverTest(
  "search_panes: a pattern anchored at the end matches a line that ends in spaces, as the description says",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "printf 'spaced-end   \\n'");
    const found = await s.ok<Found>("search_panes", { pattern: "spaced-end$" });
    assertEquals(found.panes.map((p) => p.matches.map((m) => m.text)), [["spaced-end"]]);
  },
);

serverTest(
  "search_panes: the server answers while a slow search matches, off its thread",
  async (fx, s) => {
    await fx.tmux("set", "-g", "history-limit", "50000");
    const pane = await fx.shellPane();
    // 3 MB of a, b and c, each line ending where no match can: the costliest
    // kind of pattern keeps matching busy for seconds.
    let seed = 3;
    const line = () =>
      Array.from({ length: 200 }, () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return "abc"[seed % 3];
      }).join("") + "!d";
    const file = `${fx.dir}/abc.txt`;
    await Deno.writeTextFile(file, Array.from({ length: 15_000 }, line).join("\n") + "\n");
    await fx.runInPane(pane, `cat ${file}`);
    // A ping is answered by the server alone: it measures the server's
    // thread, where list_sessions also waits for tmux (busy capturing).
    const timed = async () => {
      const start = performance.now();
      await s.client.ping();
      return performance.now() - start;
    };
    // Warm: the first search also builds the case-folding tables (once per server).
    await s.ok<Found>("search_panes", { pattern: "warm-up" });
    const usual = Math.max(await timed(), await timed(), await timed());
    let settled = false;
    const search = s.ok<Found>("search_panes", {
      pattern: "(?:[ab]c|[bc]a|[ca]b){1,90}d",
      includeHistory: true,
    }).finally(() => settled = true);
    const during: number[] = [];
    // Every ping sent before the search answered, the one it held up too.
    while (!settled) during.push(await timed());
    const found = await search;
    // Only the shell's own lines can match (they hold a d after other letters).
    assert(found.panes.every((p) => p.matches.every((m) => !m.text.includes("!d"))));
    assertEquals(found.skippedPanes, []);
    assert(during.length >= 10, `only ${during.length} pings overlapped the search`);
    const worst = Math.max(...during);
    // Matching on the server's thread held pings for seconds. What is left
    // (reading the capture, compiling, and on a loaded 2-core machine the
    // worker taking the CPU) stays far below that.
    assert(worst < usual + 500, `a ping took ${worst.toFixed(0)} ms, usually ${usual.toFixed(0)}`);
  },
  { transports: ["control"] },
);
