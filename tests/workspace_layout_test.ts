/**
 * Arranging the workspace over stdio against a real tmux: resize_pane,
 * resize_window and select_layout (and the layout strings refused before
 * tmux sees them), select_window and select_pane, move_window (linked
 * windows too) and swap_pane.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { type TmuxFixture, TRANSPORTS } from "./harness.ts";
import { layoutChecksum } from "../tools/select_layout.ts";
import { type Action, show, workspaceTest } from "./workspace_helpers.ts";

workspaceTest("resize_pane sizes panes and zooms idempotently", async (fx, s) => {
  const a = await show(fx, "main", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-h", "-t", a, "-P", "-F", "#{pane_id}");
  const sized = await s.ok("resize_pane", { paneId: a, width: 30 });
  assertEquals(sized.pane.width, 30);
  assertEquals(await show(fx, a, "#{pane_width}"), "30");
  const zoomed = await s.ok("resize_pane", { paneId: b, zoom: true });
  assertEquals([zoomed.pane.zoomed, zoomed.pane.active, zoomed.pane.width], [true, true, 100]);
  const again = await s.ok("resize_pane", { paneId: b, zoom: true });
  assertEquals([again.pane.zoomed, again.pane.width], [true, 100], "zooming twice stays zoomed");
  assertEquals(await show(fx, b, "#{window_zoomed_flag} #{pane_active}"), "1 1");
  // Zooming another pane while one is zoomed zooms that one.
  const other = await s.ok("resize_pane", { paneId: a, zoom: true });
  assertEquals([other.pane.zoomed, other.pane.active, other.pane.width], [true, true, 100]);
  const off = await s.ok("resize_pane", { paneId: a, zoom: false });
  assertEquals(off.pane.zoomed, false);
  const offAgain = await s.ok("resize_pane", { paneId: a, zoom: false });
  assertEquals(
    [offAgain.pane.zoomed, offAgain.pane.width],
    [false, 30],
    "unzooming twice is a no-op",
  );
  assertEquals(await show(fx, a, "#{window_zoomed_flag}"), "0");
  assertStringIncludes(
    await s.fails("resize_pane", { paneId: a, zoom: true, width: 10 }),
    "zoom cannot be combined",
  );
  assertStringIncludes(await s.fails("resize_pane", { paneId: a }), "nothing to do");
  assertStringIncludes(
    await s.fails("resize_pane", { paneId: "%999", zoom: true }),
    "no such pane",
  );
  assertStringIncludes(await s.fails("resize_pane", { paneId: "%999", width: 5 }), "no such pane");
  // Concurrent calls: tmux decides each toggle from the state right before it,
  // so no interleaving undoes another call's zoom.
  const together = await Promise.all(
    Array.from({ length: 6 }, () => s.ok("resize_pane", { paneId: b, zoom: true })),
  );
  assertEquals(together.map((r) => r.pane.zoomed), Array(6).fill(true));
  assertEquals(await show(fx, b, "#{window_zoomed_flag} #{pane_active}"), "1 1");
  const apart = await Promise.all(
    Array.from(
      { length: 6 },
      () => s.ok("resize_pane", { paneId: b, zoom: false }),
    ),
  );
  assertEquals(apart.map((r) => r.pane.zoomed), Array(6).fill(false));
  assertEquals(await show(fx, b, "#{window_zoomed_flag}"), "0");
});

workspaceTest("resize_window and select_layout read the window back", async (fx, s) => {
  const w = await show(fx, "main", "#{window_id}");
  const first = await show(fx, "main", "#{pane_id}");
  await fx.tmux("split-window", "-d", "-t", first);
  const r = await s.ok("resize_window", { windowId: w, width: 80, height: 20 });
  assertEquals([r.window.width, r.window.height], [80, 20]);
  assertEquals(await show(fx, w, "#{window_width}x#{window_height}"), "80x20");
  const tall = await s.ok("resize_window", { windowId: w, height: 24 });
  assertEquals([tall.window.width, tall.window.height], [80, 24]);
  assertStringIncludes(await s.fails("resize_window", { windowId: w }), "nothing to do");
  assertStringIncludes(
    await s.fails("resize_window", { windowId: "@999", width: 10 }),
    "no such window",
  );

  const even = await s.ok("select_layout", {
    windowId: w,
    layout: "even-horizontal",
  });
  assertEquals(even.window.layout, await show(fx, w, "#{window_layout}"));
  const panes = (await fx.tmux("list-panes", "-t", w, "-F", "#{pane_width}")).split("\n");
  assertEquals(panes.length, 2);
  assert(panes.every((width) => Math.abs(Number(width) - 39) <= 1), `even widths: ${panes}`);
  const saved = even.window.layout;
  await s.ok("select_layout", { windowId: w, layout: "even-vertical" });
  const restored = await s.ok("select_layout", { windowId: w, layout: saved });
  assertEquals(restored.window.layout, saved);
  // Strings tmux 3.3a would crash on never reach it; others come back as errors.
  for (
    const layout of ["#{window_layout}", "#abc", "zzzz,80x24,0,0,0", "tiledx", "abcd,80x24,0,0,1"]
  ) {
    const text = await s.fails("select_layout", { windowId: w, layout });
    assert(!text.includes(layout), `the rejected layout is not echoed: ${text}`);
  }
  // A checksum that matches does not make zero-sized cells acceptable (tmux
  // would take them).
  const flat = saved.slice(5).replaceAll(/\d+x\d+/g, "0x0");
  const zero = await s.fails("select_layout", {
    windowId: w,
    layout: `${layoutChecksum(flat).toString(16).padStart(4, "0")},${flat}`,
  });
  assertStringIncludes(zero, "no width or height");
  assertEquals(await show(fx, w, "#{window_width}x#{window_height}"), "80x24");
  // A layout string for another number of panes: too few cells (tmux refuses
  // with its own words) and too many (tmux would drop cells) say so alike.
  const forTwo = await show(fx, w, "#{window_layout}");
  const third = await fx.tmux("split-window", "-d", "-t", first, "-P", "-F", "#{pane_id}");
  const forThree = await show(fx, w, "#{window_layout}");
  const tooFew = await s.fails("select_layout", { windowId: w, layout: forTwo });
  assertStringIncludes(tooFew, `the layout string is for 2 panes, but window ${w} has 3 panes`);
  assertStringIncludes(tooFew, "get_window_info");
  assertStringIncludes(tooFew, "tiled");
  assertEquals(await show(fx, w, "#{window_layout}"), forThree, "the layout did not change");
  await fx.tmux("kill-pane", "-t", third);
  await fx.tmux("kill-pane", "-t", first);
  const tooMany = await s.fails("select_layout", { windowId: w, layout: forThree });
  assertStringIncludes(tooMany, `the layout string is for 3 panes, but window ${w} has 1 pane`);
  assertEquals(await fx.tmux("list-sessions", "-F", "#{session_name}"), "main", "tmux still runs");
  assertStringIncludes(
    await s.fails("select_layout", { windowId: "@999", layout: "tiled" }),
    "no such window",
  );
  assertStringIncludes(
    await s.fails("select_layout", { windowId: "@999", layout: forThree }),
    "no such window",
  );
});

/** `body` as a layout string with its checksum, as tmux prints one. */
function layoutString(body: string): string {
  return `${layoutChecksum(body).toString(16).padStart(4, "0")},${body}`;
}

workspaceTest(
  "select_layout refuses huge numbers and a layout of another window size",
  async (fx, s) => {
    const w = await show(fx, "main", "#{window_id}");
    const size = () => show(fx, w, "#{window_width}x#{window_height}");
    assertEquals(await size(), "100x30");
    // tmux 3.3a resizes the window to the top cell unbounded: a height of
    // 4e9 makes it allocate until it exits, with every session on it.
    for (
      const [body, number, at] of [
        ["80x4000000000,0,0,0", "4000000000", 9],
        ["4000000000x24,0,0,0", "4000000000", 6],
        ["100x30,0,10001,0", "10001", 15],
        ["100x30,0,0{50x30,0,0,1,10001x30,51,0,2}", "10001", 29],
      ] as const
    ) {
      const text = await s.fails("select_layout", { windowId: w, layout: layoutString(body) });
      assertStringIncludes(text, `number ${number} at character ${at} is over 10000`);
    }
    assertEquals(
      await fx.tmux("list-sessions", "-F", "#{session_name}"),
      "main",
      "tmux still runs",
    );
    // Within bounds, a top cell of another size would resize the window.
    const other = await s.fails("select_layout", {
      windowId: w,
      layout: layoutString("80x24,0,0,0"),
    });
    assertStringIncludes(
      other,
      `the layout string is for a 80x24 window, but window ${w} is 100x30`,
    );
    assertStringIncludes(other, "resize_window");
    assertEquals(await size(), "100x30", "the window kept its size");
    // Its own size fits; the pane id after a cell is not a size (tmux skips it).
    const same = await s.ok("select_layout", {
      windowId: w,
      layout: layoutString("100x30,0,0,123456"),
    });
    assertEquals([same.window.width, same.window.height], [100, 30]);
    await fx.tmux("resize-window", "-t", w, "-x", "80", "-y", "24");
    const resized = await s.ok("select_layout", {
      windowId: w,
      layout: layoutString("80x24,0,0,0"),
    });
    assertEquals([resized.window.width, resized.window.height], [80, 24]);
    assertEquals(resized.window.layout, await show(fx, w, "#{window_layout}"));
  },
);

workspaceTest("select_window resolves directions to ids and selects by id", async (fx, s) => {
  const sid = await show(fx, "main", "#{session_id}");
  const w0 = await show(fx, "main", "#{window_id}");
  const w1 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const w2 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const current = () => show(fx, "main", "#{window_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_window", args)).window;
  assertEquals((await pick({ windowId: w1 })).windowId, w1);
  assertEquals(await current(), w1);
  assertEquals((await pick({ session: sid, direction: "next" })).windowId, w2);
  assertEquals((await pick({ session: "main", direction: "next" })).windowId, w0, "wraps");
  assertEquals((await pick({ session: "main", direction: "previous" })).windowId, w2, "wraps back");
  assertEquals((await pick({ session: "main", direction: "last" })).windowId, w0);
  assertEquals(await current(), w0);
  assertEquals((await pick({ windowId: w1, direction: "next" })).windowId, w2);
  const selected = await pick({ windowId: w1 });
  assertEquals([selected.active, await current()], [true, w1]);
  await fx.tmux("new-session", "-d", "-s", "solo");
  assertStringIncludes(
    await s.fails("select_window", { session: "solo", direction: "last" }),
    "no previously selected window",
  );
  assertStringIncludes(
    await s.fails("select_window", { windowId: w1, session: "solo" }),
    "not in that session",
  );
  assertStringIncludes(await s.fails("select_window", { session: "main" }), "nothing to do");
  assertStringIncludes(await s.fails("select_window", { windowId: "@999" }), "no such window");
  assertStringIncludes(
    await s.fails("select_window", { windowId: w1, direction: "up" }),
    "'direction'",
  );
});

workspaceTest("select_pane resolves directions geometrically and by index", async (fx, s) => {
  // Layout: a | b on top, c across the bottom.
  const w = await show(fx, "main", "#{window_id}");
  const a = await show(fx, "main", "#{pane_id}");
  const c = await fx.tmux("split-window", "-d", "-v", "-t", a, "-P", "-F", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-h", "-t", a, "-P", "-F", "#{pane_id}");
  const active = () => show(fx, w, "#{pane_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_pane", args)).pane;
  assertEquals((await pick({ paneId: a, direction: "right" })).paneId, b);
  assertEquals(await active(), b);
  assertEquals((await pick({ windowId: w, direction: "down" })).paneId, c);
  assertEquals((await pick({ windowId: w, direction: "down" })).paneId, a, "wraps to the top");
  assertEquals((await pick({ paneId: b, direction: "up" })).paneId, c, "wraps to the bottom");
  assertEquals((await pick({ paneId: a, direction: "left" })).paneId, b, "wraps to the right edge");
  assertEquals((await pick({ paneId: b, direction: "left" })).paneId, a);
  const indexes = (await fx.tmux("list-panes", "-t", w, "-F", "#{pane_id}")).split("\n");
  assertEquals((await pick({ paneId: indexes[2], direction: "next" })).paneId, indexes[0]);
  assertEquals((await pick({ paneId: indexes[0], direction: "previous" })).paneId, indexes[2]);
  assertEquals((await pick({ windowId: w, direction: "last" })).paneId, indexes[0]);
  const chosen = await pick({ paneId: c });
  assertEquals([chosen.active, await active()], [true, c]);
  const single = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  assertStringIncludes(
    await s.fails("select_pane", { windowId: single, direction: "last" }),
    "no previously active pane",
  );
  assertStringIncludes(
    await s.fails("select_pane", { paneId: a, windowId: single }),
    "not in that window",
  );
  assertStringIncludes(await s.fails("select_pane", { windowId: w }), "nothing to do");
  assertStringIncludes(await s.fails("select_pane", { paneId: "%999" }), "no such pane");
});

workspaceTest(
  "move_window moves, refuses an occupied index, and replaces on request",
  async (fx, s) => {
    const main = await show(fx, "main", "#{session_id}");
    const w0 = await show(fx, "main", "#{window_id}");
    const w1 = await fx.tmux("new-window", "-d", "-t", "main:1", "-P", "-F", "#{window_id}");
    const w2 = await fx.tmux("new-window", "-d", "-t", "main:2", "-P", "-F", "#{window_id}");
    const index = (w: string) => show(fx, w, "#{window_index}");
    const moved = await s.ok<Action>("move_window", { windowId: w2, destinationIndex: 7 });
    assertEquals(moved, { changed: true, windowId: w2, sessionId: main });
    assertEquals(await index(w2), "7");
    const refused = await s.fails("move_window", { windowId: w1, destinationIndex: 7 });
    assertStringIncludes(refused, `the destination index already holds window ${w2}`);
    assertStringIncludes(refused, "replaceExisting");
    assertEquals(await index(w1), "1", "nothing moved");
    const same = await s.ok<Action>("move_window", { windowId: w1, destinationIndex: 1 });
    assertEquals(same.changed, false);
    const replaced = await s.ok<Action>("move_window", {
      windowId: w1,
      destinationIndex: 7,
      replaceExisting: true,
    });
    assertEquals(replaced.changed, true);
    assertEquals(await index(w1), "7");
    const ids = (await fx.tmux("list-windows", "-a", "-F", "#{window_id}")).split("\n");
    assertEquals(ids.sort(), [w0, w1].sort(), "the replaced window is gone");
    const other = await fx.tmux("new-session", "-d", "-s", "other", "-P", "-F", "#{session_id}");
    const across = await s.ok<Action>("move_window", { windowId: w1, destinationSession: "other" });
    assertEquals(across, { changed: true, windowId: w1, sessionId: other });
    assertEquals(await show(fx, w1, "#{session_id}"), other);
    assertEquals(await show(fx, "other", "#{window_id}") !== w1, true, "current window stays");
    assertStringIncludes(await s.fails("move_window", { windowId: w1 }), "nothing to do");
    assertStringIncludes(
      await s.fails("move_window", { windowId: "@999", destinationIndex: 3 }),
      "no such window",
    );
    assertStringIncludes(
      await s.fails("move_window", { windowId: w0, destinationSession: "nope" }),
      "no such session",
    );
  },
);

/** Every window link as `session:index=window`, sorted: a linked window shows once per session. */
async function links(fx: TmuxFixture): Promise<string[]> {
  return (await fx.tmux("list-windows", "-a", "-F", "#{session_name}:#{window_index}=#{window_id}"))
    .split("\n").sort();
}

/** `main` (@0 at 0, `w` at 1) and `b` (its own window at 0, `w` linked at 7). */

async function linkedWindow(fx: TmuxFixture): Promise<{ w: string; w0: string; b0: string }> {
  const w0 = await show(fx, "main", "#{window_id}");
  const b0 = await fx.tmux("new-session", "-d", "-s", "b", "-P", "-F", "#{window_id}");
  const w = await fx.tmux("new-window", "-d", "-t", "main:1", "-P", "-F", "#{window_id}");
  await fx.tmux("link-window", "-d", "-s", w, "-t", "b:7");
  return { w, w0, b0 };
}

workspaceTest("move_window moves a linked window's link in the session named", async (fx, s) => {
  const { w, w0, b0 } = await linkedWindow(fx);
  // tmux given a bare @N picks one of the window's links itself; each move
  // must take the link of the session it names, whichever tmux would pick.
  await s.ok<Action>("move_window", {
    windowId: w,
    destinationSession: "main",
    destinationIndex: 5,
  });
  assertEquals(await links(fx), [`b:0=${b0}`, `b:7=${w}`, `main:0=${w0}`, `main:5=${w}`]);
  await s.ok<Action>("move_window", { windowId: w, destinationSession: "b", destinationIndex: 3 });
  assertEquals(await links(fx), [`b:0=${b0}`, `b:3=${w}`, `main:0=${w0}`, `main:5=${w}`]);
}, [...TRANSPORTS]);

workspaceTest("select_window selects a linked window in the session named", async (fx, s) => {
  const { w, w0, b0 } = await linkedWindow(fx);
  const current = (session: string) => show(fx, `${session}:`, "#{window_id}");
  const pick = async (args: Record<string, unknown>) => (await s.ok("select_window", args)).window;
  // Each session in turn: whichever link tmux would pick for a bare @N, the
  // window must become current in the session asked about, and only there.
  const inMain = await pick({ session: "main", direction: "next" });
  assertEquals([inMain.windowId, inMain.sessionId, inMain.active], [
    w,
    await show(fx, "main", "#{session_id}"),
    true,
  ]);
  assertEquals([await current("main"), await current("b")], [w, b0]);
  await s.ok("select_window", { windowId: w0 });
  const inB = await pick({ session: "b", direction: "previous" });
  assertEquals([inB.windowId, inB.sessionId, inB.active], [
    w,
    await show(fx, "b", "#{session_id}"),
    true,
  ]);
  assertEquals([await current("main"), await current("b")], [w0, w]);
  // By id alone tmux picks the session; the result shows the window where it became current.
  await s.ok("select_window", { session: "b", direction: "last" });
  const byId = await pick({ windowId: w });
  assertEquals(byId.active, true);
  assertEquals(
    await current(byId.sessionId === (await show(fx, "b", "#{session_id}")) ? "b" : "main"),
    w,
  );
}, [...TRANSPORTS]);

workspaceTest("swap_pane exchanges places and keeps the active pane", async (fx, s) => {
  const a = await show(fx, "main", "#{pane_id}");
  const b = await fx.tmux("split-window", "-d", "-t", a, "-P", "-F", "#{pane_id}");
  const other = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{pane_id}");
  const top = (p: string) => show(fx, p, "#{pane_top}");
  const [ta, tb] = [await top(a), await top(b)];
  const r = await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: b });
  assertEquals(r.changed, true);
  assertEquals([await top(a), await top(b)], [tb, ta]);
  assertEquals(await show(fx, "main", "#{pane_id}"), a, "active pane stays the same pane");
  const across = await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: other });
  assertEquals(across.windowId, await show(fx, a, "#{window_id}"));
  assertEquals((await s.ok<Action>("swap_pane", { paneId: a, targetPaneId: a })).changed, false);
  assertStringIncludes(
    await s.fails("swap_pane", { paneId: a, targetPaneId: "%999" }),
    "no such pane",
  );
});
