/**
 * Unit tests of the capture_since cursor codec (mcp/cursor.ts) and of the
 * pure comparison of a read with a remembered state (mcp/since.ts).
 *
 * @module
 */

import { type CursorState, decodeCursor, encodeCursor, rowHash } from "../mcp/cursor.ts";
import { ToolError } from "../mcp/errors.ts";
import { compare, type Delta, markOf, type Snapshot } from "../mcp/since.ts";
import { assert, assertEquals } from "./assert.ts";

const STATE: CursorState = {
  paneId: "%12",
  pid: 4242,
  width: 80,
  base: 7,
  top: 10,
  open: 12,
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

Deno.test("compare: trimmed history shifts the rows up and they are still found", () => {
  const history = Array.from({ length: 20 }, (_, i) => `old${i}`);
  const before = snap(history, ["a", "b", "$ ", ""], 2);
  // tmux dropped the 6 oldest rows; 3 new rows were printed since.
  const all = [...history.slice(6), "a", "b", "$ run", "new1", "new2", "$ "];
  const after = snap(all.slice(0, all.length - 4), all.slice(all.length - 4), 3);
  assertEquals(found(compare(markOf(before), after)), {
    shift: 6,
    rows: ["$ run", "new1", "new2", "$ "],
  });
});

Deno.test("compare: cleared history is lost and returns the screen", () => {
  const before = snap(H, ["a", "b", "$ ", ""], 2);
  const after = snap([], ["x1", "x2", "x3", "$ "], 3);
  const delta = compare(markOf(before), after);
  assertEquals(delta, { kind: "lost", historyLost: true, rows: ["x1", "x2", "x3", "$ "] });
});

Deno.test("compare: a width change is lost without lost history", () => {
  const before = snap(H, ["a", "$ "], 1);
  const after = snap(H, ["a", "$ "], 1, 60);
  const delta = compare(markOf(before), after);
  assert(delta.kind === "lost" && !delta.historyLost, JSON.stringify(delta));
});

Deno.test("compare: a partial read asks for the history when the rows moved", () => {
  const before = snap(H, ["a", "b", "$ "], 2);
  const full = snap(H.slice(2), ["a", "b", "$ ", "c"], 3);
  // Only the screen was read, and the rows are not where they were.
  const partial: Snapshot = { ...full, first: 3, rows: full.rows.slice(3) };
  assertEquals(compare(markOf(before), partial).kind, "need-history");
  assertEquals(found(compare(markOf(before), full)).shift, 2);
});

/** `count` numbered rows `prefix1`… */
function numbered(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
}

Deno.test("compare: a cursor from before the pane scrolled sees a trim as lost, not a redraw", () => {
  // History limit 100: tmux keeps 91 to 100 lines once it has trimmed.
  for (const screen of [["$ ", "", ""], ["$ seq 1 3", "1", "2", "3", "$ "]]) {
    const before = snap([], screen, screen.length - 1);
    const after = snap(numbered("n", 95), ["n96", "n97", "$ "], 2);
    const delta = compare(markOf(before), after);
    assertEquals(delta, { kind: "lost", historyLost: true, rows: ["n96", "n97", "$ "] });
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
