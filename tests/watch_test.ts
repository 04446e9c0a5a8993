/**
 * wait_for_text and capture_since against real tmux, driven through the MCP
 * server as a client drives it. Each test owns a tmux server on a private
 * socket; panes run `bash --norc --noprofile` so prompts and echo are known.
 * Waits synchronise on tmux (wait-for channels, progress notifications that
 * say a wait is armed), never on sleeps.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  childProcesses,
  eventually,
  serverTest,
  type ServerTestOptions,
  type Session,
  startServer,
  TmuxFixture,
  watchedSessions,
  whileStopped,
  withServer,
} from "./harness.ts";
import { logicalLines } from "../domain/logical_lines.ts";
import type { Snapshot } from "../domain/since.ts";
import { wrapFlags } from "../domain/wrapped.ts";
import { Tmux } from "../tmux/client.ts";
import { liveWatchClients, watchPaneOutput } from "../tmux/output_watch.ts";
import { ProcessTransport } from "../tmux/process_transport.ts";
import type { captureSince } from "../tools/capture_since.ts";
import type { waitForTextTool } from "../tools/wait_for_text.ts";

/** Failure bound of anything a test waits for; never a synchronisation device. */
const BOUND_MS = 30_000;
const SHELL = "bash --norc --noprofile";

/** The results of wait_for_text and capture_since, as their output schemas type them. */
type WaitResult = z.infer<typeof waitForTextTool.output>;

type SinceResult = z.infer<typeof captureSince.output>;
/**
 * The {@link withServer} options of these tests: an 80-column fixture whose
 * pane runs a plain bash in a fresh window (history-limit applies to panes
 * created after it is set).
 */
function setup(
  options: { args?: string[]; height?: number; historyLimit?: number } = {},
): ServerTestOptions {
  return {
    args: options.args,
    fixture: { width: 80, height: options.height ?? 10 },
    async pane(fixture) {
      if (options.historyLimit !== undefined) {
        await fixture.tmux("set-option", "-g", "history-limit", String(options.historyLimit));
      }
      const pane = await fixture.windowPane(SHELL);
      await fixture.runInPane(pane, "true");
      return pane;
    },
  };
}

/** A wait in flight: resolves `armed` at its first progress notification. */
function startWait(
  session: Session,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): { armed: Promise<void>; result: Promise<CallToolResult>; progress: number[] } {
  const progress: number[] = [];
  let armedResolve: () => void = () => {};
  const armed = new Promise<void>((resolve) => (armedResolve = resolve));
  const result = session.client.callTool(
    { name: "wait_for_text", arguments: args },
    undefined,
    {
      signal,
      timeout: BOUND_MS,
      onprogress: (p: { progress: number }) => {
        progress.push(p.progress);
        armedResolve();
      },
    },
  ) as Promise<CallToolResult>;
  return { armed, result, progress };
}

function structured(result: CallToolResult): WaitResult {
  assert(!result.isError, `unexpected error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as unknown as WaitResult;
}

/** Types a command into the pane without waiting for it. */
async function type(fixture: TmuxFixture, pane: string, command: string): Promise<void> {
  await fixture.tmux("send-keys", "-t", pane, "-l", command);
  await fixture.tmux("send-keys", "-t", pane, "Enter");
}

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

/** The pane's `history_size`, as tmux counts it now. */
async function historySize(fixture: TmuxFixture, pane: string): Promise<number> {
  return Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
}

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

Deno.test("wrapFlags: reads tmux's wraps off the joined capture, not off row lengths", () => {
  // A full row tmux did not wrap, a wrap at a space, and a wrap after wide characters.
  const padded = ["abcd", "ERROR", "abc ", "HELLO", "ああ", "了", ""];
  assertEquals(wrapFlags(padded, "abcd\nERROR\nabc HELLO\nああ了\n\n"), [
    false,
    false,
    true,
    false,
    true,
    false,
    false,
  ]);
  assertEquals(wrapFlags([], ""), []);
  assertEquals(wrapFlags(["ab", "cd"], "ab\nce"), undefined, "not the same rows");
  assertEquals(wrapFlags(["ab", "cd"], "ab\ncd\nef"), undefined, "a row more");
});

Deno.test("logicalLines: joins the rows tmux wrapped, from the start of the first row's line", () => {
  const snap: Snapshot = {
    state: {
      paneId: "%1",
      sessionId: "$0",
      pid: 1,
      historySize: 2,
      historyLimit: 100,
      height: 4,
      width: 4,
      cursorY: 3,
      alternate: false,
      dead: false,
    },
    first: 0,
    rows: ["abcd", "ef", "abcd", "x", "ab c", "d"],
    wrapped: [null, null, "abcd", null, "ab c", null],
  };
  assertEquals(logicalLines(snap, 0, 6), ["abcd", "ef", "abcdx", "ab cd"]);
  // Rows 3 and 5 were written onto lines that started above them.
  assertEquals(logicalLines(snap, 3, 4), ["abcdx"]);
  assertEquals(logicalLines(snap, 5, 6), ["ab cd"]);
  assertEquals(logicalLines(snap, 5, 5), []);
  // Without wrap information every row stands alone.
  assertEquals(logicalLines({ ...snap, wrapped: undefined }, 2, 4), ["abcd", "x"]);
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

Deno.test("watchPaneOutput: wakes on the pane's output, not on others', and on focus changes in its window; polls for a missing pane", async () => {
  await using fixture = await TmuxFixture.start({ width: 80, height: 10 });
  const args = ["-S", fixture.socketPath, "-f", "/dev/null"];
  const tmux = new Tmux(
    "tmux",
    { kind: "path", path: fixture.socketPath, source: "flag" },
    new ProcessTransport("tmux", args, "test socket"),
  );
  try {
    const pane = await fixture.windowPane(SHELL);
    const other = await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, SHELL);
    await fixture.runInPane(pane, "true");
    await fixture.runInPane(other, "true");
    const watch = await watchPaneOutput(tmux, pane);
    const witness = await watchPaneOutput(tmux, other);
    assertEquals(watch.mechanism, "control-mode");
    assertEquals(liveWatchClients(), 1, "one client per session, shared");
    // Output of another pane of the same session does not wake this watch:
    // once the other pane's watch woke, the client has passed that output.
    await fixture.runInPane(other, "echo elsewhere");
    assertEquals(await witness.next(BOUND_MS), true);
    assertEquals(await watch.next(0), false, "no wake for another pane");
    // The pane's own output does (runInPane returns after it printed).
    await fixture.runInPane(pane, "echo here");
    assertEquals(await watch.next(BOUND_MS), true);
    // Focus moving between the two panes prints nothing, yet changes the
    // pane's view (active): tmux says %window-pane-changed, which wakes it.
    // (The first wake may also come from the prompt bash printed after the
    // echo; nothing but the focus change can give the second.)
    // (split-window left the other pane active.)
    await fixture.tmux("select-pane", "-t", pane);
    assertEquals(await watch.next(BOUND_MS), true, "a wake when the pane gains focus");
    await fixture.tmux("select-pane", "-t", other);
    assertEquals(await watch.next(BOUND_MS), true, "a wake when the pane loses focus");
    await witness.close();
    await watch.close();
    const missing = await watchPaneOutput(tmux, "%999");
    assertEquals(missing.mechanism, "polling");
    assertEquals(await missing.next(BOUND_MS), true, "a poll says: look now");
    await missing.close();
    // The client left with its last watcher (closing waits for it).
    assertEquals(liveWatchClients(), 0);
  } finally {
    await tmux.close();
  }
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
