/**
 * wait_for_text against real tmux, driven through the MCP server as a client
 * drives it: matching (markers, wrapped lines, stop and literal patterns, any
 * output), progress, bursts and resizes, a cursor from capture_since, a pane
 * killed or moved, bad input, cancellation, and many waits in a row. Each test
 * owns a tmux server on a private socket; panes run `bash --norc --noprofile`
 * so prompts and echo are known. Waits synchronise on tmux (wait-for channels,
 * progress notifications that say a wait is armed), never on sleeps.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  childProcesses,
  eventually,
  serverTest,
  TmuxFixture,
  watchedSessions,
  whileStopped,
  withServer,
} from "./harness.ts";
import {
  BOUND_MS,
  historySize,
  setup,
  SHELL,
  type SinceResult,
  startWait,
  structured,
  type,
  type WaitResult,
} from "./watch_helpers.ts";

/** tmux child processes of the server (ps reads /proc; Deno's test flags cannot). */
async function tmuxChildren(serverPid: number): Promise<string[]> {
  return (await childProcesses(serverPid))
    .filter((p) => /tmux/.test(p.args.split(/\s+/)[0]))
    .map((p) => `${p.pid} ${p.args}`);
}

Deno.test("wait_for_text: text already on screen never matches, even \\S; timeout is clamped", async () => {
  await withServer(
    setup({ args: ["--wait-max-seconds", "1"] }),
    async (_fixture, session, pane) => {
      const r = await session.ok<WaitResult>("wait_for_text", {
        paneId: pane,
        patterns: ["\\S"],
        // Above any schema bound a tool might have had (a day): clamped, never refused.
        timeoutSeconds: 1e6,
      });
      assertEquals(r.outcome, "timeout");
      assertEquals(r.presentAtEntry, true, "the prompt was on screen");
      assertEquals(r.effectiveTimeoutSeconds, 1);
      assertEquals(r.tail.lines, []);
      assert(r.elapsedSeconds >= 1, "waited the effective timeout");
    },
  );
});

// The watch has a control client of its own either way; the reads go through the transport.
serverTest(
  "wait_for_text: a marker printed after the call matches, with progress",
  async (fixture, session, pane) => {
    const wait = startWait(session, {
      paneId: pane,
      patterns: ["nothing-like-this", "MARK-(\\d+)-END"],
      timeoutSeconds: 25,
    });
    await wait.armed;
    // Built from two parts so the typed command line (echoed) cannot match.
    await type(fixture, pane, "echo MARK-'4''2'-END");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched");
    assertEquals(r.matchedIndex, 1);
    assertEquals(r.matchedPattern, "MARK-(\\d+)-END");
    assertEquals(r.presentAtEntry, false);
    assert(r.tail.lines.includes("MARK-42-END"), `tail has the marker: ${r.tail.lines}`);
    assertEquals(r.wakeup, "control-mode");
    assert(wait.progress.length >= 1, "progress notifications arrive");
  },
  setup(),
);

Deno.test("wait_for_text: progress notifications keep arriving while waiting", async () => {
  await withServer(
    setup({ args: ["--wait-max-seconds", "3"] }),
    async (_fixture, session, pane) => {
      const wait = startWait(session, { paneId: pane, patterns: ["never-printed"] });
      const r = structured(await wait.result);
      assertEquals(r.outcome, "timeout");
      assertEquals(r.effectiveTimeoutSeconds, 3);
      assert(wait.progress.length >= 3, `one at arming and about one a second: ${wait.progress}`);
      for (let i = 1; i < wait.progress.length; i++) {
        assert(wait.progress[i] > wait.progress[i - 1], "progress increases");
      }
    },
  );
});

Deno.test("wait_for_text: a marker wrapped over two rows matches as one line", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const wait = startWait(session, { paneId: pane, patterns: ["MARK-WRAP"], timeoutSeconds: 25 });
    await wait.armed;
    // 79 zeros then the marker: the 80-column pane wraps it after the M.
    await type(fixture, pane, "printf '%079dMARK-''WRAP\\n' 0");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched");
    assert(r.tail.lines.includes("ARK-WRAP"), `wrapped rows in the tail: ${r.tail.lines}`);
  });
});

Deno.test("wait_for_text: a stop pattern wins over a pattern on the same line", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const wait = startWait(session, {
      paneId: pane,
      patterns: ["done"],
      stopPatterns: ["error"],
      timeoutSeconds: 25,
    });
    await wait.armed;
    await type(fixture, pane, "echo 'ERR''OR and DO''NE'");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "stopped");
    assertEquals(r.matchedPattern, "error");
    assertEquals(r.matchedIndex, 0);
  });
});

Deno.test("wait_for_text: literal patterns, case-sensitive when asked", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const wait = startWait(session, {
      paneId: pane,
      patterns: ["a.b[1]"],
      literal: true,
      ignoreCase: false,
      timeoutSeconds: 25,
    });
    await wait.armed;
    // "A.B[1]" (wrong case) and "axb1" (regex reading) come first and must not match.
    await type(fixture, pane, "echo 'A.B''[1]'; echo 'axb''1'; echo 'a.b''[1]'");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched");
    assert(r.tail.lines.includes("a.b[1]"), `tail: ${r.tail.lines}`);
    assert(r.tail.lines.includes("A.B[1]"), "the earlier lines were seen and skipped");
  });
});

Deno.test("wait_for_text: no patterns waits for any new output", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const wait = startWait(session, { paneId: pane, timeoutSeconds: 25 });
    await wait.armed;
    await type(fixture, pane, "echo hello");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "any_output");
    assertEquals(r.matchedPattern, null);
    assertEquals(r.presentAtEntry, true, "the prompt counts as text on screen");
    assert(r.tail.lines.length > 0, "the tail shows what arrived");
  });
});

Deno.test("wait_for_text: a burst that outruns the history still matches what tmux holds, and says lines went missing", async () => {
  await withServer(setup({ height: 10, historyLimit: 100 }), async (fixture, session, pane) => {
    const server = session.transport.pid!;
    await fixture.runInPane(pane, "seq 1 300");
    const wait = startWait(session, { paneId: pane, patterns: ["^NEEDLE$"], timeoutSeconds: 10 });
    await wait.armed;
    // The server sleeps through the burst, so its next look comes after it:
    // the rows it remembered are long gone, NEEDLE is 21 lines from the end.
    await whileStopped(server, () => fixture.runInPane(pane, "seq 1 200; echo NEE''DLE; seq 1 20"));
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched", `tail: ${r.tail.lines.slice(-12)}`);
    assertEquals(r.tail.truncated, true, "lines before what tmux holds are missing");
    assert(r.tail.droppedLines >= 1, `droppedLines: ${r.tail.droppedLines}`);
  });
});

Deno.test("wait_for_text: a pane grown taller during the wait matches only what came after", async () => {
  await withServer(setup({ height: 10 }), async (fixture, session, pane) => {
    // A line the pattern matches, scrolled into the history before the wait.
    await fixture.runInPane(pane, "echo HIT-''old; seq 1 30");
    const wait = startWait(session, { paneId: pane, patterns: ["^HIT-\\w+$"], timeoutSeconds: 25 });
    await wait.armed;
    // Taller: tmux pulls rows back out of the history (HIT-old among them);
    // they were there before the wait and must not match.
    const size = await historySize(fixture, pane);
    await fixture.tmux("resize-window", "-t", pane, "-y", "30");
    assert(await historySize(fixture, pane) < size, "rows came back out of the history");
    await type(fixture, pane, "echo HIT-''new");
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched", `tail: ${r.tail.lines}`);
    assert(r.tail.lines.includes("HIT-new"), `tail: ${r.tail.lines}`);
    assert(!r.tail.lines.includes("HIT-old"), `nothing from before the wait: ${r.tail.lines}`);
    assertEquals([r.tail.truncated, r.tail.droppedLines], [false, 0], "no line went missing");
  });
});

Deno.test("wait_for_text: after a clear that leaves no row to find, lines above the rows it reads are tested", async () => {
  // A program rather than a shell: no typed line, so the wait remembers only
  // blank rows. After the clear it prints as many lines as the history held
  // (NEEDLE and held - 1 more), so the read that compares, a few rows above
  // the screen, starts below NEEDLE.
  const blankRows = async (fixture: TmuxFixture) => {
    const script = `${fixture.dir}/blank.sh`;
    await Deno.writeTextFile(
      script,
      [
        "i=0; while [ $i -lt 30 ]; do echo; i=$((i + 1)); done",
        `held=$(tmux display-message -p -t "$TMUX_PANE" '#{history_size}')`,
        "tmux wait-for -S ready; tmux wait-for go",
        "echo NEEDLE; seq 1 $((held - 1))",
        "tmux wait-for -S printed; exec sleep 600",
      ].join("\n"),
    );
    const ready = fixture.tmux("wait-for", "ready");
    const pane = await fixture.windowPane(`sh ${script}`);
    await ready;
    return pane;
  };
  const options = { fixture: { width: 80, height: 10 }, pane: blankRows };
  await withServer(options, async (fixture, session, pane) => {
    const wait = startWait(session, { paneId: pane, patterns: ["^NEEDLE$"], timeoutSeconds: 10 });
    await wait.armed;
    // The server sleeps through the clear and the output, so its next look
    // sees them at once.
    await whileStopped(session.transport.pid!, async () => {
      await fixture.tmux("clear-history", "-t", pane);
      const printed = fixture.tmux("wait-for", "printed");
      await fixture.tmux("wait-for", "-S", "go");
      await printed;
    });
    const r = structured(await wait.result);
    assertEquals(r.outcome, "matched", `tail: ${r.tail.lines.slice(0, 5)}`);
    assert(r.tail.droppedLines >= 1, `the clear counts as missing lines: ${r.tail.droppedLines}`);
  });
});

Deno.test("wait_for_text: a pane killed mid-wait ends it as pane_exited", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const victim = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    const wait = startWait(session, { paneId: victim, patterns: ["never"], timeoutSeconds: 25 });
    await wait.armed;
    await fixture.tmux("kill-pane", "-t", victim);
    const r = structured(await wait.result);
    assertEquals(r.outcome, "pane_exited");
    assertEquals(r.paneId, victim);
  });
});

Deno.test("wait_for_text: a pane moved to another session mid-wait is watched there", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    await fixture.tmux("new-session", "-d", "-s", "other");
    // main keeps a window, so the move leaves its session (and watch) alive.
    const window = await fixture.tmux("display-message", "-p", "-t", pane, "#{window_id}");
    const wait = startWait(session, { paneId: pane, patterns: ["moved-41"], timeoutSeconds: 25 });
    await wait.armed;
    assertEquals(await watchedSessions(fixture, session), ["main"]);
    await fixture.tmux("move-window", "-s", window, "-t", "=other:");
    // tmux tells a control client only about its own session's panes: the
    // wait has to follow the pane, not learn of its output from a safety read.
    await eventually(
      async () => JSON.stringify(await watchedSessions(fixture, session)) === '["other"]',
      "the wait's watch moved to other",
      BOUND_MS,
    );
    await type(fixture, pane, "echo moved-$((40+1))");
    const r = structured(await wait.result);
    assertEquals([r.outcome, r.wakeup], ["matched", "control-mode"]);
  });
});

Deno.test("wait_for_text: a bad pattern or a missing pane fails before waiting", async () => {
  await withServer(setup(), async (_fixture, session, pane) => {
    const text = await session.fails("wait_for_text", { paneId: pane, patterns: ["(?=x)"] });
    assertStringIncludes(text, "wait_for_text failed:");
    const gone = await session.fails("wait_for_text", { paneId: "%999", patterns: ["x"] });
    assertStringIncludes(gone, "no such pane");
  });
});

Deno.test("wait_for_text: with a capture_since cursor, a reply printed before the call still matches", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    await fixture.runInPane(pane, "echo 'ear''lier'");
    const { cursor } = await session.ok<SinceResult>("capture_since", { paneId: pane });
    // The reply comes back before the wait begins, as it does after send_keys.
    await fixture.runInPane(pane, "echo 'rep''ly 42'");
    const late = structured(
      await session.call("wait_for_text", {
        paneId: pane,
        patterns: ["^reply 42$"],
        timeoutSeconds: 1,
      }),
    );
    assertEquals([late.outcome, late.presentAtEntry], ["timeout", true], "without the cursor");
    const caught = structured(
      await session.call("wait_for_text", { patterns: ["^reply 42$"], cursor, timeoutSeconds: 10 }),
    );
    assertEquals([caught.outcome, caught.matchedIndex, caught.paneId], ["matched", 0, pane]);
    assert(caught.elapsedSeconds < 5, `matched at once, not after ${caught.elapsedSeconds} s`);
    assert(caught.tail.lines.includes("reply 42"), `${caught.tail.lines}`);
    // Output from before the cursor still never matches.
    const old = structured(
      await session.call("wait_for_text", { patterns: ["^earlier$"], cursor, timeoutSeconds: 1 }),
    );
    assertEquals(old.outcome, "timeout");
    // The same cursor also waits for what comes after the call.
    const wait = startWait(session, { patterns: ["^later$"], cursor });
    await wait.armed;
    await type(fixture, pane, "echo 'lat''er'");
    assertEquals(structured(await wait.result).outcome, "matched");
  });
});

Deno.test("wait_for_text: with a cursor, the echo of the typed command line is not its output", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const { cursor } = await session.ok<SinceResult>("capture_since", { paneId: pane });
    // The typed line holds the text waited for; the command prints it only
    // once the test signals (a dev server that says when it listens).
    const channel = `t${crypto.randomUUID().slice(0, 8)}`;
    await type(
      fixture,
      pane,
      `tmux -S '${fixture.socketPath}' wait-for ${channel}; echo listening on port 8080`,
    );
    await fixture.untilForeground(pane, "tmux");
    const early = structured(
      await session.call("wait_for_text", {
        patterns: ["listening on port \\d+"],
        cursor,
        timeoutSeconds: 1,
      }),
    );
    assertEquals(early.outcome, "timeout", `the echo matched: ${early.tail.lines}`);
    const quiet = structured(await session.call("wait_for_text", { cursor, timeoutSeconds: 1 }));
    assertEquals(quiet.outcome, "timeout", "the echo alone is no output");
    await fixture.tmux("wait-for", "-S", channel);
    const ready = structured(
      await session.call("wait_for_text", {
        patterns: ["^listening on port \\d+$"],
        cursor,
        timeoutSeconds: 10,
      }),
    );
    assertEquals(ready.outcome, "matched");
    assert(ready.tail.lines.includes("listening on port 8080"), `${ready.tail.lines}`);
    // Lines below the typed one count as before, the prompt's answer included.
    const any = structured(await session.call("wait_for_text", { cursor, timeoutSeconds: 10 }));
    assertEquals(any.outcome, "any_output");
    // Empty lists read as no patterns, and no patterns means any new output.
    const empty = structured(
      await session.call("wait_for_text", {
        cursor,
        patterns: [],
        stopPatterns: [],
        timeoutSeconds: 10,
      }),
    );
    assertEquals(empty.outcome, "any_output");
  });
});

Deno.test("wait_for_text: a cursor of another pane, or from before a respawn, is refused before waiting", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const { cursor } = await session.ok<SinceResult>("capture_since", { paneId: pane });
    const other = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    const foreign = await session.fails("wait_for_text", { paneId: other, cursor });
    assertStringIncludes(foreign, "the cursor belongs to another pane");
    assertStringIncludes(foreign, "without a cursor");
    await fixture.tmux("respawn-pane", "-k", "-t", pane, SHELL);
    const before = await tmuxChildren(session.transport.pid!);
    const stale = await session.fails("wait_for_text", { cursor, timeoutSeconds: 30 });
    assertStringIncludes(stale, "restarted");
    assertEquals(await tmuxChildren(session.transport.pid!), before, "no watch was left running");
  });
});

Deno.test("wait_for_text: cancelling ends the wait at once and leaves no tmux process", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const serverPid = session.transport.pid;
    assert(serverPid, "the server runs");
    // Settle the shared transport first so its control client is in "before".
    await session.ok("capture_pane", { paneId: pane });
    const before = new Set(await tmuxChildren(serverPid));
    const abort = new AbortController();
    const wait = startWait(session, { paneId: pane, patterns: ["never"] }, abort.signal);
    await wait.armed;
    const during = await tmuxChildren(serverPid);
    assert(during.some((p) => !before.has(p)), `a watcher runs while waiting: ${during}`);
    const began = performance.now();
    abort.abort();
    let rejected = false;
    await wait.result.catch(() => (rejected = true));
    assert(rejected, "the client call is cancelled");
    // The wait would have lasted 30 s (the default ceiling): ending well
    // before that proves cancellation reached it.
    let left = await tmuxChildren(serverPid);
    while (left.some((p) => !before.has(p)) && performance.now() - began < 10_000) {
      // The server reaps the watcher right after the cancellation; a
      // following call on the same connection runs after it was received.
      await session.ok("list_sessions");
      left = await tmuxChildren(serverPid);
    }
    assertEquals(left.filter((p) => !before.has(p)), [], "no tmux child left behind");
    // The server still works, and a new wait works too.
    const again = startWait(session, { paneId: pane, patterns: ["AGAIN"], timeoutSeconds: 25 });
    await again.armed;
    await type(fixture, pane, "echo AG''AIN");
    assertEquals(structured(await again.result).outcome, "matched");
  });
});

Deno.test("wait_for_text: lines are joined where tmux wrapped them, not where a row is full", async () => {
  // The pane is 80 columns wide.
  await withServer(setup(), async (fixture, session, pane) => {
    const cases = [
      // A line exactly as wide as the pane is not wrapped: the next line starts anew.
      { pattern: "^ERROR", command: "printf '%080d\\nERR''OR: boom\\n' 0" },
      // 39 wide characters fill 78 columns, 終 the last two; 了 wraps.
      {
        pattern: "終了",
        command: `printf '${"\\343\\201\\202".repeat(39)}\\347\\265\\202\\344\\272\\206\\n'`,
      },
      // The space in column 80 is part of the line.
      { pattern: "0 HELLO", command: "printf '%079d HELLO\\n' 0" },
    ];
    for (const { pattern, command } of cases) {
      const wait = startWait(session, { paneId: pane, patterns: [pattern], timeoutSeconds: 25 });
      await wait.armed;
      await type(fixture, pane, command);
      const r = structured(await wait.result);
      assertEquals(r.outcome, "matched", `${pattern}: ${r.tail.lines}`);
    }
  });
});

Deno.test("wait_for_text: waits one after another never crash tmux (an ended watch client notifies)", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    // Each wait attaches a watch client and ends it; the next attaches while
    // tmux may still owe the others `%client-detached` for the last one.
    for (let round = 0; round < 60; round++) {
      const r = structured(
        await session.call("wait_for_text", {
          paneId: pane,
          patterns: ["never-printed"],
          timeoutSeconds: 0.1,
        }),
      );
      assertEquals(r.outcome, "timeout", `round ${round}`);
    }
    assertEquals(await fixture.tmux("display-message", "-p", "#{session_name}"), "main");
  });
});
