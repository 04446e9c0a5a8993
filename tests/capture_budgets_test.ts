/**
 * Reading pane content and keeping results in budget, over stdio against a
 * real tmux: capture_pane and snapshot_pane, the --max-bytes and maxLines
 * budgets of every read, and the read batch.
 */

import type { z } from "zod";
import type { paneView } from "../core/schemas.ts";
import { assert, assertEquals, assertStringIncludes, assertWithinBytes } from "./assert.ts";
import { atNamedBudget, eventually, rawServer, serverTest, TmuxFixture } from "./harness.ts";

type Pane = z.infer<typeof paneView>;

serverTest("capture_pane and snapshot_pane read what the pane shows", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.runInPane(paneId, "clear; printf 'alpha\\nbeta ü 日本\\n'");
  const capture = await s.ok("capture_pane", { paneId });
  assert(capture.content.lines.includes("alpha"));
  assert(capture.content.lines.includes("beta ü 日本"));
  const snap = await s.ok<
    { pane: Pane; content: { lines: string[] }; cursorY: number; alternateScreen: boolean }
  >(
    "snapshot_pane",
    { paneId },
  );
  assertEquals(snap.pane.paneId, paneId);
  assert(snap.content.lines.includes("alpha"));
  const expectedY = Number(await fx.tmux("display-message", "-p", "-t", paneId, "#{cursor_y}"));
  assertEquals(snap.cursorY, expectedY);
  assertEquals(snap.alternateScreen, false);
});

serverTest(
  "capture_pane: a reversed range is refused; rows outside the pane are counted, not replaced",
  async (fx, s, pane) => {
    const file = `${fx.dir}/rows.txt`;
    await Deno.writeTextFile(file, Array.from({ length: 50 }, (_, i) => `n${i}`).join("\n") + "\n");
    await fx.runInPane(pane, `clear; cat ${file}`);
    const history = Number(await fx.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
    type Capture = { content: { lines: string[]; truncated: boolean }; rowsNotHeld?: number };
    const read = async (range: Record<string, unknown>) => {
      const r = await s.ok<Capture>("capture_pane", { paneId: pane, ...range });
      return [r.content.lines, r.rowsNotHeld];
    };
    for (const range of [{ start: 5, end: 2 }, { end: -1 }]) {
      assertStringIncludes(
        await s.fails("capture_pane", { paneId: pane, ...range }),
        "start is below end",
      );
    }
    assertEquals(await read({ start: 100, end: 200 }), [[], 101]);
    assertEquals(await read({ start: -1000, end: -999 }), [[], 2]);
    assertEquals(await read({ start: -history - 2, end: -history }), [["n0"], 2]);
    assertEquals(await read({ start: 20 }), [[], 1]);
    assertEquals(await read({ end: -1000, includeHistory: true }), [[], 1]);
    assertEquals(await read({ start: -history, end: -history + 1 }), [["n0", "n1"], 0]);
    assertEquals((await read({}))[1], undefined);
  },
  { fixture: { width: 40, height: 10 } },
);

serverTest(
  "capture_pane: joinWrappedLines joins tmux's wrapped rows and trims trailing spaces as a plain capture does",
  async (fx, s, pane) => {
    // A line wrapped at a space (kept: it is inside the joined line), a line
    // ending in spaces, and a row of spaces (a blank row to a plain capture).
    await fx.runInPane(pane, "clear; printf '%019d %s\\nabc   \\n%20s\\n' 0 tail ''");
    // The wait-for ends before the shell has drawn its next prompt.
    await eventually(
      async () => (await fx.tmux("capture-pane", "-p", "-J", "-t", pane)).includes("\n$"),
      "the prompt after the printf",
    );
    const plain = (await fx.tmux("capture-pane", "-p", "-t", pane)).split("\n");
    assertEquals(plain.slice(0, 4), ["0".repeat(19), "tail", "abc", ""]);
    const joined = ["0".repeat(19) + " tail", "abc", "", "$"];
    // What tmux joins, with each line's trailing spaces trimmed.
    const tmuxJoined = (await fx.tmux("capture-pane", "-p", "-J", "-t", pane)).split("\n")
      .map((line) => line.trimEnd());
    assertEquals(tmuxJoined.slice(0, 4), joined);
    type Capture = { content: { lines: string[] }; rowsNotHeld?: number };
    for (const range of [{}, { start: 0, end: 4 }, { includeHistory: true }]) {
      const r = await s.ok<Capture>("capture_pane", {
        paneId: pane,
        joinWrappedLines: true,
        ...range,
      });
      assertEquals(r.content.lines, joined, JSON.stringify(range));
    }
  },
  { fixture: { width: 20, height: 8 } },
);

serverTest(
  "budgets: maxLines keeps the newest lines; bytes cut on character boundaries",
  async (fx, s) => {
    const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    await fx.runInPane(paneId, "clear; seq -f 'row %g ééé日本' 1 300");
    const few = await s.ok<
      { content: { lines: string[]; truncated: boolean; droppedLines: number } }
    >(
      "capture_pane",
      { paneId, includeHistory: true, maxLines: 5 },
    );
    assertEquals(few.content.lines.length, 5);
    assert(few.content.truncated && few.content.droppedLines > 0);
    assert(few.content.lines.some((l) => l.startsWith("row 300")), "newest kept");
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: a list that cannot fit --max-bytes is refused; one that fits is whole",
  async (fx, s) => {
    const small = await s.call("list_panes", {});
    assert(!small.isError);
    assertWithinBytes(small, 4000);
    for (let i = 0; i < 12; i++) await fx.tmux("new-window", "-d", "-t", "main");
    const big = await s.call("list_panes", {});
    assert(big.isError, "13 panes do not fit 4,000 bytes");
    const bigText = String((big.content as { text: string }[])[0].text);
    assertStringIncludes(bigText, "byte budget");
    assertStringIncludes(bigText, "Give windowId");
    assertEquals(big.structuredContent, undefined);
    // One window of ten panes: the error names the narrower reads, and they work.
    const windowId = await fx.tmux("display-message", "-p", "-t", "main:0", "#{window_id}");
    for (let i = 0; i < 9; i++) {
      await fx.tmux("split-window", "-t", windowId, ";", "select-layout", "-t", windowId, "tiled");
    }
    // Long titles, so the listing is over budget whatever the checkout's path length.
    const panes = (await fx.tmux("list-panes", "-t", windowId, "-F", "#{pane_id}")).split("\n");
    for (const pane of panes) await fx.tmux("select-pane", "-t", pane, "-T", "t".repeat(120));
    for (const tool of ["list_panes", "get_window_info"]) {
      const error = await s.fails(tool, { windowId });
      assertStringIncludes(error, "byte budget");
      assertStringIncludes(error, "find_pane_by_position {windowId, position}");
      assertStringIncludes(error, "call_read_tools_batch");
    }
    const operations = Array.from({ length: 10 }, (_, position) => ({
      tool: "find_pane_by_position",
      arguments: { windowId, position },
    }));
    const batch = await s.ok<{ results: { result: { pane: Pane } | null }[]; succeeded: number }>(
      "call_read_tools_batch",
      { operations },
    );
    assertEquals(batch.succeeded, 10);
    assertEquals(new Set(batch.results.map((r) => r.result?.pane.paneId)).size, 10);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: every session over --max-bytes is refused with the reads that work and the budget it needs",
  async (fx, s) => {
    const args: string[] = [];
    for (let i = 0; i < 40; i++) args.push(";", "new-session", "-d", "-s", `extra${i}`);
    await fx.tmux(...args.slice(1));
    const error = await s.fails("list_sessions", {});
    assertStringIncludes(error, "byte budget");
    // The sessions one by one, 16 to a batch (whose limit is not --max-bytes).
    assertStringIncludes(error, "get_session_info {session}");
    assertStringIncludes(error, "call_read_tools_batch");
    let succeeded = 0;
    for (let from = 0; from < 41; from += 16) {
      const operations = Array.from({ length: Math.min(16, 41 - from) }, (_, n) => ({
        tool: "get_session_info",
        arguments: { session: `$${from + n}` },
      }));
      const batch = await s.ok<{ succeeded: number; truncated: boolean }>(
        "call_read_tools_batch",
        { operations, onError: "continue" },
      );
      assertEquals(batch.truncated, false);
      succeeded += batch.succeeded;
    }
    assertEquals(succeeded, 41);
    // The budget the error names is enough for the whole list.
    await atNamedBudget(fx.socketPath, error, async (wider, needed) => {
      assert(needed > 4000, `${needed} is over the budget`);
      const whole = await wider.ok("list_sessions", {});
      assertEquals(whole.sessions.length, 41);
    });
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: every session's windows over --max-bytes are refused with session as the narrower read",
  async (fx, s) => {
    const args: string[] = [];
    for (let i = 0; i < 30; i++) args.push(";", "new-session", "-d", "-s", `extra${i}`);
    await fx.tmux(...args.slice(1));
    const error = await s.fails("list_windows", {});
    assertStringIncludes(error, "byte budget");
    assertStringIncludes(error, "Give session");
    const one = await s.call("list_windows", { session: "extra0" });
    assert(!one.isError);
    assertWithinBytes(one, 4000);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest("budgets: the whole result fits --max-bytes", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.runInPane(paneId, "clear; seq -f 'row %g ééé日本' 1 400");
  const result = await s.call("capture_pane", { paneId, includeHistory: true });
  assert(!result.isError);
  assertWithinBytes(result, 4000);
  const content =
    (result.structuredContent as { content: { lines: string[]; droppedBytes: number } }).content;
  assert(content.droppedBytes > 0);
  for (const line of content.lines) assert(!line.includes("\ufffd"), "no broken characters");
  assert(
    content.lines.at(-1)!.includes("row 400") || content.lines.some((l) => l.includes("row 400")),
  );
}, { args: ["--max-bytes", "4000"] });

serverTest(
  "budgets: backslash-heavy history keeps the newest lines that fit, not none",
  async (fx, s, pane) => {
    // 600 lines of 150 backslashes: each byte costs several on the wire (escaped twice).
    await fx.runInPane(
      pane,
      "clear; yes \"$(printf '%0150d' 0 | tr 0 '\\\\')\" | head -n 600",
    );
    for (const maxLines of [undefined, 300]) {
      const result = await s.call("capture_pane", { paneId: pane, includeHistory: true, maxLines });
      assert(!result.isError);
      const bytes = assertWithinBytes(result, 128_000);
      const content = (result.structuredContent as { content: { lines: string[] } }).content;
      const full = content.lines.filter((l) => l === "\\".repeat(150)).length;
      // About 128000 / (150 * 6) lines fit; the bug kept none.
      assert(full > 100, `${full} full lines kept, ${bytes} bytes`);
    }
  },
  { fixture: { width: 200, height: 50 } },
);

serverTest(
  "budgets: a long pane title is cut in views, so setting it succeeds and the pane stays readable",
  async (fx, s, pane) => {
    const view = (p: Pane) => new TextEncoder().encode(p.title!).length;
    const title = "é".repeat(1000);
    const set = await s.ok("set_pane_title", { paneId: pane, title });
    assertEquals(await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}"), title);
    assert(view(set.pane) <= 256 && set.pane.title!.endsWith("é\u2026"), set.pane.title!);
    // A program sets a longer one with an escape sequence; reads of its pane still fit.
    await fx.runInPane(pane, `printf '\\033]2;%s\\033\\\\' "$(printf 'T%.0s' $(seq 1 5000))"`);
    await eventually(
      async () =>
        (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}")).length > 4000,
      "the program's title is set",
    );
    const info = await s.ok("get_pane_info", { paneId: pane });
    assert(view(info.pane) <= 256 && info.pane.title!.startsWith("TTT"), info.pane.title!);
    const listed = await s.ok("list_panes", {});
    assertEquals(listed.panes[0].title, info.pane.title);
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: over-budget errors name only what helps; a change tool says the change was made",
  async (fx, s, pane) => {
    for (let i = 0; i < 60; i++) {
      await fx.tmux("set-environment", "-g", `VAR_${i}_${"X".repeat(60)}`, "v");
    }
    const listing = await s.fails("show_environment", {});
    assertStringIncludes(listing, "byte budget");
    assertStringIncludes(listing, "--max-bytes");
    assert(!/maxLines|fewer lines|fewer panes/.test(listing), listing);
    // A path no label cut can shorten: the title is set, and the error says so.
    let dir = fx.dir;
    for (let i = 0; i < 12; i++) dir += `/${"d".repeat(250)}`;
    await Deno.mkdir(dir, { recursive: true });
    await fx.runInPane(pane, `cd ${dir}`);
    const error = await s.fails("set_pane_title", { paneId: pane, title: "done" });
    assertStringIncludes(error, "tmux made the change");
    assertStringIncludes(error, "Do not repeat the call");
    assertEquals(await fx.tmux("display-message", "-p", "-t", pane, "#{pane_title}"), "done");
  },
  { args: ["--max-bytes", "4000"] },
);

serverTest(
  "budgets: capture_since over budget on a tall pane says its cursor is the cause, not maxLines",
  async (fx, s, pane) => {
    // The cursor remembers the screen's rows down to the last written one.
    await fx.runInPane(pane, "seq 1 500");
    for (const args of [{}, { maxLines: 1 }]) {
      const error = await s.fails("capture_since", { paneId: pane, ...args });
      assertStringIncludes(error, "cursor alone");
      assertStringIncludes(error, "--max-bytes");
      assert(!error.includes("maxLines"), error);
    }
    await s.ok("snapshot_pane", { paneId: pane, maxLines: 1 });
  },
  { args: ["--max-bytes", "4000"], fixture: { width: 80, height: 400 } },
);

serverTest("read batch: 16 full-history captures stay under 1,000,000 bytes", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.tmux("set-option", "-g", "history-limit", "50000");
  const big = await fx.tmux("new-window", "-P", "-F", "#{pane_id}", "-t", "main:");
  // One process prints it all: a loop forking per line takes minutes on a loaded machine.
  await fx.runInPane(
    big,
    "seq -f 'history line %g xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' 1 6000",
  );
  const operations = Array.from({ length: 16 }, () => ({
    tool: "capture_pane",
    arguments: { paneId: big, includeHistory: true, maxLines: 100000 },
  }));
  const result = await s.client.request(
    { method: "tools/call", params: { name: "call_read_tools_batch", arguments: { operations } } },
    (await import("@modelcontextprotocol/sdk/types.js")).CallToolResultSchema,
  );
  const structured = result.structuredContent as {
    results: { result: unknown; resultTruncated: boolean; success: boolean }[];
    truncated: boolean;
    truncatedBytes: number;
    succeeded: number;
  };
  const line = JSON.stringify({ result, jsonrpc: "2.0", id: 999 }) + "\n";
  assert(new TextEncoder().encode(line).length <= 1_000_000, "the response line fits");
  assertEquals(structured.succeeded, 16);
  assert(structured.truncated);
  const nulled = structured.results.filter((r) => r.resultTruncated);
  assert(nulled.length > 0 && nulled.every((r) => r.result === null));
  // Nulled from the last row backwards: every nulled row comes after every kept one.
  const firstNulled = structured.results.findIndex((r) => r.resultTruncated);
  assert(structured.results.slice(firstNulled).every((r) => r.resultTruncated));
  const keptSize = JSON.stringify(structured.results[0].result).length;
  assert(
    structured.truncatedBytes >= nulled.length * keptSize * 0.9,
    "truncatedBytes counts the nulled results",
  );
  void paneId;
}, { args: ["--max-bytes", "4000000", "--max-lines", "100000"] });

Deno.test("read batch: a non-ASCII request id counts in UTF-8 bytes toward the 1,000,000", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath, "--max-bytes", "4000000"], { stderr: "null" });
  try {
    const pane = await fx.shellPane();
    await fx.runInPane(pane, "seq -f 'history line %g xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' 1 2000");
    await server.initialize();
    // JSON-RPC allows string ids. This one is 600,000 UTF-8 bytes but 300,000
    // UTF-16 units: counted in units, the line overshoots by far more than one
    // row takes (about 50,000 bytes), so nulling rows cannot hide the miscount.
    const id = "\u{1F600}".repeat(150_000);
    const operations = Array.from({ length: 16 }, () => ({
      tool: "capture_pane",
      arguments: { paneId: pane, includeHistory: true, maxLines: 400 },
    }));
    await server.send({
      id,
      method: "tools/call",
      params: { name: "call_read_tools_batch", arguments: { operations } },
    });
    const answer = await server.answer(id);
    const result = answer.result as {
      structuredContent: { truncated: boolean; succeeded: number };
    };
    // The line is the message's JSON and a newline.
    assertWithinBytes(answer, 1_000_000 - 1);
    assertEquals(result.structuredContent.succeeded, 16);
    assert(result.structuredContent.truncated, "rows were nulled to fit");
  } finally {
    await server.hangUp();
    await server.child.status;
  }
});

serverTest("read batch: 16 mixed rows equal the same calls made one by one", async (fx, s) => {
  // Window names follow the running command (env, then bash) unless fixed:
  // both reads must see the same topology.
  await fx.tmux("set-option", "-g", "automatic-rename", "off");
  await fx.tmux("split-window", "-t", "main");
  await fx.tmux("new-window", "-t", "main:");
  await fx.tmux("split-window", "-t", "main:1");
  const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  const windows = (await fx.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
  // Each row must get its own answer, in its own row.
  const operations = Array.from({ length: 16 }, (_, i) => {
    const paneId = panes[i % panes.length];
    return [
      { tool: "get_pane_info", arguments: { paneId } },
      { tool: "capture_pane", arguments: { paneId } },
      { tool: "get_window_info", arguments: { windowId: windows[i % windows.length] } },
      { tool: "get_tmux_variables", arguments: { paneId, names: ["pane_id", "window_id"] } },
    ][i % 4];
  });
  const batch = await s.ok<{ results: { success: boolean; result: unknown }[] }>(
    "call_read_tools_batch",
    { operations },
  );
  assert(batch.results.every((r) => r.success));
  for (const [i, op] of operations.entries()) {
    assertEquals(batch.results[i].result, await s.ok(op.tool, op.arguments), `row ${i}`);
  }
});

serverTest("read batch: limits, refusals and onError", async (fx, s) => {
  const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  const op = { tool: "get_pane_info", arguments: { paneId } };
  assertStringIncludes(
    await s.fails("call_read_tools_batch", { operations: Array.from({ length: 17 }, () => op) }),
    "at most 16",
  );
  // The refusal lists the tools a batch can run.
  const notARead = await s.fails("call_read_tools_batch", {
    operations: [{ tool: "kill_session", arguments: { session: "main" } }],
  });
  assertStringIncludes(notARead, "'operations.0.tool' must be one of ");
  assertStringIncludes(notARead, '"get_pane_info"');
  await s.fails("call_read_tools_batch", {
    operations: [{ tool: "wait_for_text", arguments: {} }],
  });
  const bad = { tool: "get_pane_info", arguments: { paneId: "%999" } };
  const stop = await s.ok<
    { results: unknown[]; stoppedAt: number; failed: number; succeeded: number }
  >(
    "call_read_tools_batch",
    { operations: [op, bad, op] },
  );
  assertEquals([stop.results.length, stop.stoppedAt, stop.failed, stop.succeeded], [2, 1, 1, 1]);
  const cont = await s.ok<
    { results: { success: boolean; error: string | null }[]; stoppedAt: number | null }
  >(
    "call_read_tools_batch",
    { operations: [op, bad, op], onError: "continue" },
  );
  assertEquals(cont.results.map((r) => r.success), [true, false, true]);
  assertEquals(cont.stoppedAt, null);
  assertStringIncludes(cont.results[1].error!, "get_pane_info failed:");
});
