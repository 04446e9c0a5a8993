/**
 * Unit tests of the capture_since cursor codec (domain/cursor.ts) and of the
 * pure comparison of a read with a remembered state (domain/since.ts).
 *
 * @module
 */

import { type CursorState, decodeCursor, encodeCursor, rowHash } from "../domain/cursor.ts";
import { ToolError } from "../core/errors.ts";
import { compare, type Delta, markOf, type Snapshot } from "../domain/since.ts";
import { assert, assertEquals } from "./assert.ts";

const STATE: CursorState = {
  paneId: "%12",
  pid: 4242,
  width: 80,
  base: 7,
  top: 10,
  open: 12,
  openLength: 2,
  hashes: [rowHash("a"), rowHash("b"), rowHash(""), rowHash("x"), rowHash("$ ")],
};

async function refusal(text: string): Promise<string> {
  try {
    await decodeCursor(text);
  } catch (error) {
    assert(error instanceof ToolError, `a ToolError, got ${error}`);
    if (text.length > 3) {
      assert(
        !error.message.includes(text) && !error.hint.includes(text),
        "never echoes the cursor",
      );
    }
    return error.message;
  }
  throw new Error("the cursor was accepted");
}

function bytesOf(text: string): Uint8Array {
  const binary = atob(
    text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - text.length % 4) % 4),
  );
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function textOf(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

Deno.test("cursor: round trip keeps every field", async () => {
  const text = await encodeCursor(STATE);
  assert(/^[A-Za-z0-9_-]+$/.test(text), "URL-safe text");
  assertEquals(await decodeCursor(text), STATE);
});

Deno.test("cursor: any changed byte is refused as altered", async () => {
  const bytes = bytesOf(await encodeCursor(STATE));
  // Every byte after the version and the instance id: fields, hashes, signature.
  for (let i = 9; i < bytes.length; i++) {
    const copy = bytes.slice();
    copy[i] ^= 0x01;
    const message = await refusal(textOf(copy));
    assert(/altered|malformed/.test(message), `byte ${i}: ${message}`);
  }
});

Deno.test("cursor: another process's instance id is named as such", async () => {
  const bytes = bytesOf(await encodeCursor(STATE));
  bytes[3] ^= 0xff;
  assert((await refusal(textOf(bytes))).includes("another server process"));
});

Deno.test("cursor: malformed text, truncation and a wrong version are refused", async () => {
  const text = await encodeCursor(STATE);
  assert((await refusal("not a cursor!")).includes("malformed"));
  assert((await refusal("")).includes("malformed"));
  assert((await refusal(text.slice(0, 20))).includes("malformed"));
  const bytes = bytesOf(text);
  bytes[0] = 9;
  assert((await refusal(textOf(bytes))).includes("malformed"));
  // Version 1 (no open row length) came from an older server process.
  bytes[0] = 1;
  assert((await refusal(textOf(bytes))).includes("another server process"));
  // A version-1 cursor was shorter than a version-2 header can be.
  assert((await refusal(textOf(bytes.slice(0, 20)))).includes("another server process"));
});

Deno.test("rowHash: stable and distinguishes rows", () => {
  assertEquals(rowHash("hello"), rowHash("hello"));
  assert(rowHash("hello") !== rowHash("hellp"));
  assert(rowHash("") !== rowHash(" "));
});

/** A full read (history and screen) of a pane `width` wide. */
function snap(history: string[], screen: string[], cursorY: number, width = 80): Snapshot {
  return {
    state: {
      paneId: "%1",
      sessionId: "$0",
      pid: 1,
      historySize: history.length,
      historyLimit: 100,
      height: screen.length,
      width,
      cursorY,
      alternate: false,
      dead: false,
    },
    first: 0,
    rows: [...history, ...screen],
  };
}

function found(delta: Delta): { shift: number; rows: string[] } {
  assert(delta.kind === "found", `expected found, got ${JSON.stringify(delta)}`);
  return { shift: delta.shift, rows: delta.rows };
}

/** `count` numbered rows `prefix1`… */
function numbered(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
}

const H = ["h1", "h2", "h3", "h4", "h5"];

Deno.test("compare: nothing new gives no rows", () => {
  const before = snap(H, ["a", "b", "$ ", "", ""], 2);
  assertEquals(found(compare(markOf(before), before)), { shift: 0, rows: [] });
});

Deno.test("compare: output scrolling more than a screen gives exactly the new rows", () => {
  const before = snap(H, ["a", "b", "$ ", "", ""], 2);
  const numbers = Array.from({ length: 12 }, (_, i) => `n${i}`);
  // The prompt row got the command typed, then 12 rows and a new prompt.
  const all = [...H, "a", "b", "$ seq", ...numbers, "$ "];
  const after = snap(all.slice(0, all.length - 5), [...all.slice(all.length - 5)], 4);
  assertEquals(found(compare(markOf(before), after)), {
    shift: 0,
    rows: ["$ seq", ...numbers, "$ "],
  });
});

Deno.test("compare: a carriage-return rewrite of the cursor's row is new", () => {
  const before = snap(H, ["x", "step 1", "", ""], 1);
  const after = snap(H, ["x", "step 2", "$ ", ""], 2);
  assertEquals(found(compare(markOf(before), after)).rows, ["step 2", "$ "]);
});

Deno.test("compare: rows rewritten above the cursor (a redraw) come back from the first change", () => {
  const before = snap(H, ["top", "mid", "low", "$ "], 3);
  const after = snap(H, ["top", "MID", "low", "$ "], 3);
  assertEquals(found(compare(markOf(before), after)).rows, ["MID", "low", "$ "]);
});

/**
 * The pane after `printed` replaced the screen from the cursor's row down:
 * rows scroll into the history and tmux trims it as grid.c does (a tenth of
 * `limit` whenever a row scrolls into a full history).
 */
function printed(before: Snapshot, rows: string[], limit = 100): Snapshot {
  const { historySize, height, cursorY } = before.state;
  const all = [...before.rows.slice(0, historySize + cursorY), ...rows];
  const scrolls = Math.max(0, all.length - height - historySize);
  let size = historySize;
  let dropped = 0;
  for (let i = 0; i < scrolls; i++) {
    if (size >= limit) {
      size -= Math.max(1, Math.floor(limit / 10));
      dropped += Math.max(1, Math.floor(limit / 10));
    }
    size++;
  }
  const held = all.slice(dropped);
  const screen = held.slice(-height);
  while (screen.length < height) screen.push("");
  const history = held.slice(0, Math.max(0, held.length - height));
  return snap(history, screen, Math.min(held.length - history.length, height) - 1);
}

/**
 * The pane after its height changed to `height`, as tmux's screen.c does it:
 * taller takes rows back out of the history (then adds blank rows), shorter
 * drops the rows below the cursor, then pushes rows from the top into the
 * history. No row changes its line number.
 */
function resized(before: Snapshot, height: number): Snapshot {
  const { historySize, height: old, cursorY } = before.state;
  if (height >= old) {
    const pulled = Math.min(height - old, historySize);
    const screen = before.rows.slice(historySize - pulled);
    while (screen.length < height) screen.push("");
    return snap(before.rows.slice(0, historySize - pulled), screen, cursorY + pulled);
  }
  const eaten = Math.min(old - 1 - cursorY, old - height);
  const pushed = old - height - eaten;
  const rows = before.rows.slice(0, before.rows.length - eaten);
  return snap(
    rows.slice(0, historySize + pushed),
    rows.slice(historySize + pushed),
    cursorY - pushed,
  );
}

Deno.test("compare: a height change keeps every row at its line: nothing new, then only new rows", () => {
  const before = snap(numbered("old", 30), [...numbered("s", 4), "$ "], 4);
  const taller = resized(before, 12);
  assertEquals(taller.state.historySize, 23, "rows came back out of the history");
  assertEquals(found(compare(markOf(before), taller)), { shift: 0, rows: [] });
  const more = printed(taller, ["$ run", "n1", "$ "]);
  assertEquals(found(compare(markOf(before), more)), { shift: 0, rows: ["$ run", "n1", "$ "] });
  const shorter = resized(before, 2);
  assertEquals(shorter.state.historySize, 33, "rows went into the history");
  assertEquals(found(compare(markOf(before), shorter)), { shift: 0, rows: [] });
  // Shorter (eating the blank rows below the cursor), then as tall again:
  // the same height, and a history smaller than the cursor's.
  const prompt = snap(numbered("old", 30), ["$ x", "y", "$ ", "", ""], 2);
  const back = resized(resized(prompt, 3), 5);
  assertEquals([back.state.height, back.state.historySize], [5, 28]);
  const typed = printed(back, ["$ z", "$ "]);
  assertEquals(found(compare(markOf(prompt), typed)), { shift: 0, rows: ["$ z", "$ "] });
});

Deno.test("compare: a smaller history whose rows also fit where a clear puts them is lost, not a guess", () => {
  // Rows repeating every 5 lines: after a clear and more output they fit
  // both where they were (a taller pane) and 30 lines up (the clear).
  const cycle = (n: number) => Array.from({ length: n }, (_, i) => `c${i % 5}`);
  const before = snap(cycle(30), [...cycle(5).slice(0, 4), "$ "], 4);
  const after = snap(cycle(25), [...cycle(15), "$ "], 15);
  const delta = compare(markOf(before), after);
  assert(delta.kind === "lost" && delta.historyLost, `lost, got ${JSON.stringify(delta)}`);
  // Rows that do not repeat are found where they were.
  const plain = snap(numbered("old", 30), [...numbered("s", 4), "$ "], 4);
  assertEquals(found(compare(markOf(plain), resized(plain, 21))).shift, 0);
});

Deno.test("compare: a smaller history with only blank rows to compare is lost", () => {
  // Blank rows fit anywhere: a clear looks like a taller pane.
  const before = snap([...numbered("old", 20), "", "", "", ""], ["", "", "", "$ "], 3);
  const taller = resized(before, 10);
  const delta = compare(markOf(before), taller);
  assert(delta.kind === "lost" && delta.historyLost, `lost, got ${JSON.stringify(delta)}`);
});

Deno.test("compare: trimmed history shifts the rows up and they are still found", () => {
  // History limit 100 and 95 lines held: nine more rows scrolling reach the
  // limit once, and tmux drops the oldest 10.
  const before = snap(numbered("old", 95), ["a", "b", "$ ", ""], 2);
  const after = printed(before, ["$ run", ...numbered("new", 9), "$ "]);
  assertEquals(after.state.historySize, 94);
  assertEquals(found(compare(markOf(before), after)), {
    shift: 10,
    rows: ["$ run", ...numbered("new", 9), "$ "],
  });
});

Deno.test("compare: the same rows printed again are not taken for a trim", () => {
  // A full history (limit 100) and `seq 1 50` on the screen; then `seq 1 150`:
  // tmux trims again and again, and the history it keeps holds 39..50 once
  // more, at a shift no trim makes; the rows the cursor saw are gone.
  const history = [...numbered("x", 60), "$ seq 1 50", ...numbered("", 41)].slice(-97);
  const before = snap(history, ["42", "43", "44", "45", "46", "47", "48", "49", "50", "$ "], 9);
  const after = printed(before, ["$ seq 1 150", ...numbered("", 150), "$ "]);
  const delta = compare(markOf(before), after);
  assert(delta.kind === "lost" && delta.historyLost, `lost, got ${JSON.stringify(delta)}`);
  // Only what follows the repeat at the top is surely new: a clear and then
  // trims could have left the remembered rows there.
  assertEquals(after.rows[delta.newFrom], "51");
});

Deno.test("compare: two places a trim could have moved the rows to is lost, not a guess", () => {
  // 22 rows printed into a history of 95 (limit 100): tmux trims twice, so
  // the remembered rows move up by 20. Built from rows that repeat every 10
  // lines, they also fit at a shift of 10, and either could be the truth.
  const print = (rows: string[]) => {
    const before = snap(rows.slice(0, 95), [rows[95], rows[96], "$ "], 2);
    const after = printed(before, ["$ x", ...rows.slice(97, 117), "$ "]);
    assertEquals(after.state.historySize, 96);
    return compare(markOf(before), after);
  };
  // Rows that do not repeat are found at the one place the trims put them.
  assertEquals(found(print(numbered("u", 117))).shift, 20);
  const cycle = Array.from({ length: 117 }, (_, i) => `c${i % 10}`);
  const delta = print(cycle);
  assert(delta.kind === "lost" && delta.historyLost, `lost, got ${JSON.stringify(delta)}`);
});

Deno.test("compare: cleared history is lost and returns the screen", () => {
  const before = snap(H, ["a", "b", "$ ", ""], 2);
  const after = snap([], ["x1", "x2", "x3", "$ "], 3);
  const delta = compare(markOf(before), after);
  assertEquals(delta, {
    kind: "lost",
    historyLost: true,
    rows: ["x1", "x2", "x3", "$ "],
    newFrom: 0,
  });
});

Deno.test("compare: a width change is lost without lost history", () => {
  const before = snap(H, ["a", "$ "], 1);
  const after = snap(H, ["a", "$ "], 1, 60);
  const delta = compare(markOf(before), after);
  assert(delta.kind === "lost" && !delta.historyLost, JSON.stringify(delta));
});

Deno.test("compare: a partial read asks for the history when the rows moved", () => {
  const before = snap(numbered("old", 95), ["a", "b", "$ "], 2);
  const full = printed(before, ["$ run", ...numbered("new", 8), "$ "]);
  const top = full.state.historySize;
  // Only the screen was read, and the rows are not where they were.
  const partial: Snapshot = { ...full, first: top, rows: full.rows.slice(top) };
  assertEquals(compare(markOf(before), partial).kind, "need-history");
  assertEquals(found(compare(markOf(before), full)).shift, 10);
});

Deno.test("compare: lost history with no rows to search for is answered from a partial read", () => {
  // Only blank rows above the prompt: once they are gone nothing can be
  // searched for, and the rows from line 0 on are all new.
  const before = snap([...numbered("old", 20), "", "", ""], ["", "", "$ "], 2);
  const full = snap(numbered("n", 40), ["n41", "n42", "$ "], 2);
  const partial: Snapshot = { ...full, first: 20, rows: full.rows.slice(20) };
  assertEquals(compare(markOf(before), partial), {
    kind: "lost",
    historyLost: true,
    rows: ["n41", "n42", "$ "],
    newFrom: 0,
  });
});

Deno.test("compare: a cursor from before the pane scrolled sees a trim as lost, not a redraw", () => {
  // History limit 100: tmux keeps 91 to 100 lines once it has trimmed.
  for (const screen of [["$ ", "", ""], ["$ seq 1 3", "1", "2", "3", "$ "]]) {
    const before = snap([], screen, screen.length - 1);
    const after = snap(numbered("n", 95), ["n96", "n97", "$ "], 2);
    const delta = compare(markOf(before), after);
    assert(delta.kind === "lost" && delta.historyLost, JSON.stringify(delta));
    assertEquals(delta.rows, ["n96", "n97", "$ "]);
  }
});

Deno.test("compare: a cursor from before the pane scrolled still gets every row while no trim was possible", () => {
  const before = snap([], ["$ ", "", ""], 0);
  const after = snap(["$ seq 1 80", ...numbered("", 78)], ["79", "80", "$ "], 2);
  assertEquals(found(compare(markOf(before), after)), {
    shift: 0,
    rows: ["$ seq 1 80", ...numbered("", 80), "$ "],
  });
  // A redraw of rows above the cursor, nothing scrolled: still a redraw.
  const drawn = snap([], ["top", "mid", "$ "], 2);
  const redrawn = snap([], ["TOP", "mid", "$ "], 2);
  assertEquals(found(compare(markOf(drawn), redrawn)).rows, ["TOP", "mid", "$ "]);
});

Deno.test("compare: a clear after rows scrolled is lost even with no rows to vouch", () => {
  // A fresh pane: only the prompt, on the top row. `seq 1 25` scrolled 19
  // rows into the history, then the history was cleared: the screen is
  // all that is left and the count is back at zero.
  const before = snap([], ["$", "", "", "", "", "", "", "", "", ""], 0);
  const scrolled = printed(before, ["$ seq 1 25", ...numbered("", 25), "$"]);
  const rows = scrolled.rows.slice(scrolled.state.historySize);
  const cleared = snap([], rows, scrolled.state.cursorY);
  const delta = compare(markOf(before), cleared);
  assert(delta.kind === "lost" && delta.historyLost, `lost, got ${JSON.stringify(delta)}`);
  assertEquals(delta.rows.at(-1), "$");
  // Typed onto the prompt, nothing scrolled: every row is new, none missed.
  const typed = snap([], ["$ seq 1 3", "1", "2", "3", "$", "", "", "", "", ""], 4);
  assertEquals(found(compare(markOf(before), typed)).rows, ["$ seq 1 3", "1", "2", "3", "$"]);
});
