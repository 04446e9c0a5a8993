/**
 * The input tools against real tmux: send_keys, send_keys_batch, paste_text,
 * and the input-safety refusals all four input tools share.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  countingTmux,
  eventually,
  serverTest,
  type Session,
  startServer,
  TmuxFixture,
  tmuxVersion,
} from "./harness.ts";
import { describeTyping, isKeyName, sendableKey, unsendable } from "../domain/keys.ts";
import { chunkText } from "../tmux/chunks.ts";
import { chordsAsIn33 } from "../tmux/version.ts";

const BASH = "bash --norc --noprofile";

async function bashPane(fixture: TmuxFixture): Promise<string> {
  return await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", BASH);
}

/** Splits `pane`'s window; resolves with the new pane, which runs bash. */
async function bashSibling(fixture: TmuxFixture, pane: string): Promise<string> {
  return await fixture.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane, BASH);
}

/** Starts the server as if it ran inside `pane` of the fixture (TMUX and TMUX_PANE set). */
async function serverInPane(
  fixture: TmuxFixture,
  pane: string,
  args: string[] = [],
): Promise<Session> {
  const pid = await fixture.tmux("display-message", "-p", "#{pid}");
  return await startServer(fixture.socketPath, {
    args,
    env: { TMUX: `${fixture.socketPath},${pid},0`, TMUX_PANE: pane },
  });
}

/** The pane's visible text. */
function screen(fixture: TmuxFixture, pane: string): Promise<string> {
  return fixture.tmux("capture-pane", "-p", "-J", "-t", pane);
}

/** Waits until `channel` is signalled while `action` runs. */
async function signalledBy(fixture: TmuxFixture, channel: string, action: () => Promise<unknown>) {
  const waiting = fixture.tmux("wait-for", channel);
  await action();
  await waiting;
}

/**
 * A pane whose program has exited, kept by remain-on-exit. Polls tmux's own
 * `pane_dead` flag with a generous bound: a pane-died hook signalling a
 * channel was seen to miss under load.
 */
async function deadPane(fixture: TmuxFixture): Promise<string> {
  await fixture.tmux("set-option", "-g", "remain-on-exit", "on");
  const pane = await fixture.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "exit 0");
  await eventually(
    async () => (await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_dead}")) === "1",
    "the pane is dead",
  );
  return pane;
}

/** One call of each input tool at `pane`. */
function everyInputTool(pane: string): [string, Record<string, unknown>][] {
  return [
    ["send_keys", { paneId: pane, text: "echo x" }],
    ["send_keys_batch", { operations: [{ paneId: pane, keys: ["Enter"] }] }],
    ["paste_text", { paneId: pane, text: "echo x" }],
    ["run_shell_command", { paneId: pane, command: "echo x" }],
  ];
}

async function refusedEverywhere(session: Session, pane: string, part: string) {
  for (const [tool, args] of everyInputTool(pane)) {
    if (tool === "send_keys_batch") {
      const r = await session.ok<{ results: { error: string | null }[]; failed: number }>(
        tool,
        args,
      );
      assertEquals(r.failed, 1, tool);
      assertStringIncludes(r.results[0].error ?? "", part, tool);
    } else {
      assertStringIncludes(await session.fails(tool, args), part, tool);
    }
  }
}

Deno.test("input tools refuse a dead pane, a pane in copy mode and the caller's pane", async () => {
  await using fixture = await TmuxFixture.start();
  const live = await bashPane(fixture);
  const dead = await deadPane(fixture);
  await using session = await serverInPane(fixture, live);
  await refusedEverywhere(session, dead, "is dead");
  await refusedEverywhere(session, live, "the pane this server runs in");
  const other = await bashPane(fixture);
  await fixture.tmux("copy-mode", "-t", other);
  await refusedEverywhere(session, other, "copy mode");
  // The way out cannot be keys sent by a tool (they are refused the same
  // way): the error sends the agent to the person or another pane.
  const leave = await session.fails("send_keys", { paneId: other, keys: ["q"] });
  assertStringIncludes(leave, "cannot leave it");
  assertStringIncludes(leave, "ask the user");
  // Two modes stacked (view mode over copy mode): pane_in_mode is 2, not 1.
  const stacked = await bashPane(fixture);
  await fixture.tmux("copy-mode", "-t", stacked);
  await fixture.tmux("run-shell", "-t", stacked, "echo over-copy-mode");
  assertEquals(
    await fixture.tmux("display-message", "-p", "-t", stacked, "#{pane_in_mode}"),
    "2",
  );
  await refusedEverywhere(session, stacked, "copy mode");
  await refusedEverywhere(session, "%999", "no such pane");
  // synchronize-panes would copy keys sent to a sibling into the caller's pane.
  const sibling = await bashSibling(fixture, live);
  const callerWindow = await fixture.tmux("display-message", "-p", "-t", live, "#{window_id}");
  assertStringIncludes(
    await session.fails("set_synchronize_panes", { windowId: callerWindow, enabled: true }),
    "holds the pane this server runs in",
  );
  assertEquals(
    await fixture.tmux("display-message", "-p", "-t", live, "#{synchronize-panes}"),
    "0",
    "the refusal changed nothing",
  );
  // A person may still turn it on; the input tools then refuse the sibling.
  await fixture.tmux("set-option", "-w", "-t", live, "synchronize-panes", "on");
  await refusedEverywhere(session, sibling, "synchronize-panes is on");
  // tmux 3.3a copies only into panes whose own option is on: off for the
  // caller's pane, the keys reach the sibling alone.
  await fixture.tmux("set-option", "-p", "-t", live, "synchronize-panes", "off");
  await signalledBy(fixture, "synced", () =>
    session.ok("send_keys", {
      paneId: sibling,
      text: `echo SIBLING-ONLY; tmux -S ${fixture.socketPath} wait-for -S synced`,
      enter: true,
    }));
  assert(!(await screen(fixture, live)).includes("SIBLING-ONLY"), "the caller got nothing");
  assertEquals(await fixture.tmux("list-buffers"), "", "refused pastes leave no buffer");
});

Deno.test("synchronize-panes refusal holds for a caller pane id of two digits, also for long text", async () => {
  // display-message runs its template through strftime: an unescaped %12
  // inside the guard's format read as a field width and the check said no.
  await using fixture = await TmuxFixture.start();
  for (let i = 0; i < 12; i++) await fixture.tmux("new-window", "-d", "-t", "main:");
  const caller = await bashPane(fixture);
  assert(Number(caller.slice(1)) >= 12, `caller ${caller} has a two-digit id`);
  const sibling = await bashSibling(fixture, caller);
  await fixture.tmux("set-option", "-w", "-t", caller, "synchronize-panes", "on");
  await using session = await serverInPane(fixture, caller);
  await refusedEverywhere(session, sibling, "synchronize-panes is on");
  // Text too long for the guarded round trip is checked first, then sent.
  const long = await session.fails("send_keys", {
    paneId: sibling,
    text: "'" + '"'.repeat(6000),
  });
  assertStringIncludes(long, "synchronize-panes is on");
  assert(!(await screen(fixture, caller)).includes('""""'), "nothing reached the caller");
});

for (const transport of ["control", "process"]) {
  Deno.test(`swap_pane never moves the caller's pane into a synchronized window [${transport}]`, async () => {
    // A pane follows the options of the window it sits in: swapped into a
    // synchronized window, the caller's pane would copy what a person types
    // into the agent's terminal into that window's panes, which
    // set_synchronize_panes refuses to bring about for the caller's window.
    await using fixture = await TmuxFixture.start();
    const caller = await bashPane(fixture);
    const callerWindow = await fixture.tmux(
      "display-message",
      "-p",
      "-t",
      caller,
      "#{window_id}",
    );
    const other = await bashPane(fixture);
    const sibling = await bashSibling(fixture, other);
    const synced = await fixture.tmux("display-message", "-p", "-t", other, "#{window_id}");
    await using session = await serverInPane(fixture, caller, ["--transport", transport]);
    await session.ok("set_synchronize_panes", { windowId: synced, enabled: true });
    for (
      const args of [{ paneId: caller, targetPaneId: other }, {
        paneId: other,
        targetPaneId: caller,
      }]
    ) {
      const refused = await session.fails("swap_pane", args);
      assertStringIncludes(refused, `pane ${caller} is the pane this server runs in`);
      assertStringIncludes(refused, "synchronize-panes");
      assertStringIncludes(refused, "set_synchronize_panes");
    }
    const windowOf = (pane: string) =>
      fixture.tmux("display-message", "-p", "-t", pane, "#{window_id} #{synchronize-panes}");
    assertEquals(await windowOf(caller), `${callerWindow} 0`, "the caller's pane stayed");
    assertEquals(await windowOf(other), `${synced} 1`, "the other pane stayed");
    // Panes of other windows still swap, and so does the caller once synchronization is off.
    await session.ok("swap_pane", { paneId: other, targetPaneId: sibling });
    await session.ok("set_synchronize_panes", { windowId: synced, enabled: false });
    await session.ok("swap_pane", { paneId: caller, targetPaneId: other });
    assertEquals(await windowOf(caller), `${synced} 0`);
    // Within its own window the caller's pane keeps its options: a swap there is allowed.
    await fixture.tmux("set-option", "-w", "-t", synced, "synchronize-panes", "on");
    await session.ok("swap_pane", { paneId: caller, targetPaneId: sibling });
    assertEquals(await windowOf(caller), `${synced} 1`);
  });
}

Deno.test("key names: tmux names and modifiers pass, anything else is refused", () => {
  for (
    const key of [
      "C-c",
      "M-x",
      "Enter",
      "Escape",
      "Up",
      "PageDown",
      "F1",
      "F12",
      "BSpace",
      "Tab",
      "Space",
      "Home",
      "End",
      "C-M-Left",
      "S-Up",
      "c-a",
      "^C",
      "a",
      ";",
      "-",
      "C--",
      "KPEnter",
      "é",
    ]
  ) assert(isKeyName(key), `${key} should be accepted`);
  for (
    const key of ["", "Nope", "F13", "C-", "Ctrl-c", "enter key", "ab", "C-Nope", "\n", " ", "\x1b"]
  ) assert(!isKeyName(key), `${JSON.stringify(key)} should be refused`);
  // Shift on Tab or a letter becomes the key a terminal sends; other names stay.
  const sendable = ["S-Tab", "c-S-tab", "S-BTab", "S-a", "M-s-b", "S-Up", "S-F5", "C-c", "^S", "S"]
    .map(sendableKey);
  assertEquals(sendable, ["BTab", "c-BTab", "BTab", "A", "M-B", "S-Up", "S-F5", "C-c", "^S", "S"]);
  // What send_keys reports it sent, in English for one character too.
  assertEquals(describeTyping({ text: "y", enter: true }), "1 character of text, then Enter");
  assertEquals(
    describeTyping({ text: "€€", keys: ["S-Tab"] }),
    "2 characters of text, then keys BTab",
  );
});

Deno.test("chunks never split a character and respect the byte limit", () => {
  const text = "aé€😀".repeat(1000);
  const chunks = chunkText(text, 100);
  assertEquals(chunks.join(""), text);
  for (const chunk of chunks) assert(new TextEncoder().encode(chunk).length <= 100);
  assertEquals(chunkText(""), [""]);
});

serverTest(
  "send_keys types text, keys and Enter; refuses bad input before sending",
  async (fixture, session, pane) => {
    // Text, then two BSpace that delete "#x", then Enter.
    await signalledBy(fixture, "typed", async () => {
      const r = await session.ok("send_keys", {
        paneId: pane,
        text: "echo typed-$((40+2)); tmux wait-for -S typed #x",
        keys: ["BSpace", "BSpace"],
        enter: true,
      });
      assertEquals(r.paneId, pane);
      assertStringIncludes(r.sent, "BSpace");
    });
    assertStringIncludes(await screen(fixture, pane), "\ntyped-42\n");

    // C-c interrupts a running program: the next typed line runs at once.
    await signalledBy(fixture, "sleeping", () =>
      session.ok("send_keys", {
        paneId: pane,
        text: "tmux wait-for -S sleeping; sleep 300",
        enter: true,
      }));
    // The signal comes just before sleep starts: a C-c sent in between would
    // hit the exiting tmux client, and sleep would run its 300 s.
    await fixture.untilForeground(pane, "sleep");
    await session.ok("send_keys", { paneId: pane, keys: ["C-c"] });
    await fixture.runInPane(pane, "echo after-interrupt");

    // Refusals send nothing: a probe typed afterwards runs unchanged.
    const unknown = await session.fails("send_keys", {
      paneId: pane,
      text: "echo LEAKED",
      keys: ["Enter", "NoSuchKey"],
    });
    assertStringIncludes(unknown, "keys[1] is not a tmux key name");
    assert(!unknown.includes("NoSuchKey"), "the rejected value is not echoed");
    const newline = await session.fails("send_keys", { paneId: pane, text: "echo LEAKED\n" });
    assertStringIncludes(newline, "control character");
    assertStringIncludes(await session.fails("send_keys", { paneId: pane }), "nothing to send");
    assertStringIncludes(
      await session.fails("send_keys", { paneId: pane, text: "x", wait_for_previous: true }),
      "wait_for_previous",
    );
    await fixture.runInPane(pane, "echo probe");
    assert(!(await screen(fixture, pane)).includes("LEAKED"), "nothing was typed");

    /** Types `echo ${#v}`, then goes back and types `v=<value>; ` in front of it, and runs it. */
    const assignAndCount = (value: string, channel: string) =>
      signalledBy(fixture, channel, () =>
        session.ok("send_keys", {
          paneId: pane,
          text: `echo \${#v} ; tmux wait-for -S ${channel} #`,
          keys: ["C-a"],
        }).then(() =>
          session.ok("send_keys", { paneId: pane, text: `v=${value}; `, enter: true })
        ));
    // Long text goes through in chunks whatever the transport's limits.
    await assignAndCount("x".repeat(17_000), "long");
    assertStringIncludes(await screen(fixture, pane), "\n17000\n");
    // Quoted for tmux's parser inside the guard, 8,000 "~" take 32,000 bytes: too long for one
    // tmux command line, so the pane is checked first and the text sent after it.
    await assignAndCount(`'${"~".repeat(9_000)}'`, "tildes");
    assertStringIncludes(await screen(fixture, pane), "\n9000\n");
  },
  { pane: bashPane },
);

/** Text that tmux's command parser would change if any part of it were not quoted. */
const NASTY = `-n 'single' "double" $HOME ~/x \\back ; semi #{pane_id} #(echo no) %1 {a} é€`;

serverTest(
  `send_keys and paste_text deliver text tmux would parse, byte for byte`,
  async (fixture, session) => {
    for (const tool of ["send_keys", "paste_text"]) {
      const pane = await bashPane(fixture);
      // Typed after a `:` and never run: the prompt line shows it as it arrived.
      await session.ok(tool, { paneId: pane, text: `: ${NASTY}` });
      await session.ok("send_keys", { paneId: pane, text: " END" });
      await eventually(async () => (await screen(fixture, pane)).includes(" END"), "END shows");
      assertStringIncludes(await screen(fixture, pane), `: ${NASTY} END`, tool);
    }
  },
  { fixture: { width: 200 } },
);

Deno.test("a refusal is decided by tmux in the input's own round trip (counted in process mode)", async () => {
  await using fixture = await TmuxFixture.start();
  const counter = await countingTmux(fixture.dir);
  const pane = await bashPane(fixture);
  const dead = await deadPane(fixture);
  await using session = await startServer(fixture.socketPath, {
    args: ["--transport", "process", "--tmux", counter.binary],
    denoFlags: [`--allow-run=${counter.binary}`],
  });
  /** tmux processes (round trips) the call started. */
  const processes = async (tool: string, args: Record<string, unknown>, ok = true) => {
    await counter.reset();
    if (ok) await session.ok(tool, args);
    else await session.fails(tool, args);
    return (await counter.started()).length;
  };
  assertEquals(await processes("send_keys", { paneId: dead, text: "never" }, false), 1);
  // tmux drops a refused paste's buffer in that round trip; the second looks that it is gone.
  assertEquals(await processes("paste_text", { paneId: dead, text: "never" }, false), 2);
  assertEquals(await fixture.tmux("list-buffers"), "");
  // The same calls to a live pane take one round trip each (round_trips_test has them all).
  assertEquals(await processes("paste_text", { paneId: pane, text: "echo b\necho c" }), 1);
});

serverTest(
  `a pane that enters a mode between the check and the keys gets nothing`,
  async (fixture, session, pane) => {
    /** Runs `tool` while a tmux hook puts the pane in copy mode right after `command`. */
    const underHook = async (command: string, tool: string, args: Record<string, unknown>) => {
      await fixture.tmux("set-hook", "-g", `after-${command}`, `copy-mode -t ${pane}`);
      try {
        return await session.fails(tool, args);
      } finally {
        await fixture.tmux("set-hook", "-gu", `after-${command}`);
        await fixture.tmux("send-keys", "-t", pane, "-X", "cancel");
      }
    };
    // After the paste's buffer is filled, before the guard: tmux's own test
    // refuses, says why, and drops the buffer.
    const pasted = await underHook("set-buffer", "paste_text", {
      paneId: pane,
      text: "echo LEAKED",
      enter: true,
    });
    assertStringIncludes(pasted, "is in a mode");
    assertEquals(await fixture.tmux("list-buffers"), "");
    // run_shell_command sets the option its line fetches before the guard;
    // refused, nothing is marked and the option goes again.
    const ran = await underHook("set-option", "run_shell_command", {
      paneId: pane,
      command: "echo LEAKED",
    });
    assertStringIncludes(ran, "is in a mode");
    assertEquals(await fixture.tmux("show-options", "-p", "-t", pane), "");
    assertEquals(await fixture.tmux("list-buffers"), "");
    const next = await session.ok("run_shell_command", {
      paneId: pane,
      command: "echo fine",
    });
    assertEquals(next.outcome, "completed");
    assert(!(await screen(fixture, pane)).includes("LEAKED"), "nothing was typed");
  },
  { pane: bashPane },
);

Deno.test("send_keys_batch: rows in order, stop or continue at a failure, ceiling and validation", async () => {
  await using fixture = await TmuxFixture.start();
  const pane = await bashPane(fixture);
  const dead = await deadPane(fixture);
  await using session = await startServer(fixture.socketPath, {
    args: ["--wait-max-seconds", "2"],
  });
  type Batch = {
    results: {
      index: number;
      paneId: string;
      success: boolean;
      error: string | null;
      elapsedSeconds: number;
    }[];
    succeeded: number;
    failed: number;
    stoppedAt: number | null;
  };
  const ops = [
    { paneId: pane, text: "echo one" },
    { paneId: dead, text: "never" },
    { paneId: pane, text: "; tmux wait-for -S batch-done", keys: ["Enter"], delayMs: 50 },
  ];
  const stopped = await session.ok<Batch>("send_keys_batch", { operations: ops });
  assertEquals([stopped.succeeded, stopped.failed, stopped.stoppedAt], [1, 1, 1]);
  assertEquals(stopped.results.map((r) => [r.index, r.paneId, r.success]), [
    [0, pane, true],
    [1, dead, false],
  ]);
  assertStringIncludes(stopped.results[1].error ?? "", "is dead");
  await session.ok("send_keys", { paneId: pane, keys: ["C-u"] });

  let continued: Batch | undefined;
  await signalledBy(fixture, "batch-done", async () => {
    continued = await session.ok<Batch>("send_keys_batch", {
      operations: ops,
      onError: "continue",
    });
  });
  assertEquals([continued!.succeeded, continued!.failed, continued!.stoppedAt], [2, 1, null]);
  assertEquals(continued!.results.map((r) => r.success), [true, false, true]);
  assert(continued!.results[2].elapsedSeconds >= 0.05, "the delay ran before row 2");
  assertStringIncludes(await screen(fixture, pane), "\none\n");

  const invalid = await session.fails("send_keys_batch", {
    operations: [{ paneId: pane, text: "echo LEAKED " }, { paneId: pane, keys: ["Bogus"] }],
  });
  assertStringIncludes(invalid, "operations[1].keys[0] is not a tmux key name");
  const tooSlow = await session.fails("send_keys_batch", {
    operations: [
      { paneId: pane, text: "echo LEAKED ", delayMs: 1500 },
      { paneId: pane, keys: ["Enter"], delayMs: 1500 },
    ],
  });
  assertStringIncludes(tooSlow, "wait ceiling");
  await fixture.runInPane(pane, "echo probe");
  assert(!(await screen(fixture, pane)).includes("LEAKED"), "refused batches send nothing");
});

serverTest(
  `paste_text: \\r\\n and a lone \\r arrive as one Enter each, bracketed or not`,
  async (fixture, session) => {
    const text = "l1\r\nl2\rl3\n\r\n";
    const lines = "l1\rl2\rl3\r\r";
    for (const bracketed of [false, true]) {
      const expected = bracketed ? `\x1b[200~${lines}\x1b[201~` : lines;
      // A raw terminal reads the bytes as they arrive (no CR to NL); the
      // mode sequence asks tmux for bracketed paste, and READY on screen
      // says tmux has read it.
      const out = `${fixture.dir}/raw-${bracketed}`;
      const pane = await fixture.tmux(
        "new-window",
        "-P",
        "-F",
        "#{pane_id}",
        `stty raw -echo; printf '${bracketed ? "\\033[?2004h" : ""}READY'; ` +
          `dd bs=1 count=${expected.length} of='${out}' 2>/dev/null; stty sane; ` +
          `tmux wait-for -S raw-${bracketed}`,
      );
      await eventually(async () => (await screen(fixture, pane)).includes("READY"), "READY");
      await signalledBy(fixture, `raw-${bracketed}`, async () => {
        const r = await session.ok("paste_text", {
          paneId: pane,
          text,
          bracketed,
        });
        assertEquals(r.bytes, lines.length);
      });
      assertEquals(await Deno.readTextFile(out), expected, `bracketed: ${bracketed}`);
    }
  },
);

/** A bash pane, and a buffer of the user's own that a paste must leave alone. */
async function bashPaneAndBuffer(fixture: TmuxFixture): Promise<string> {
  const pane = await bashPane(fixture);
  await fixture.tmux("set-buffer", "-b", "mine", "the user's own buffer");
  return pane;
}

serverTest(
  "paste_text: multi-line text through a private buffer that is gone afterwards",
  async (fixture, session, pane) => {
    const text = "echo first-line\necho 'second line' é\ntmux wait-for -S pasted";
    await signalledBy(fixture, "pasted", async () => {
      const r = await session.ok("paste_text", {
        paneId: pane,
        text,
        enter: true,
      });
      assertEquals(r, { paneId: pane, bytes: new TextEncoder().encode(text).length });
    });
    const shown = await screen(fixture, pane);
    assertStringIncludes(shown, "\nfirst-line\n");
    assertStringIncludes(shown, "\nsecond line é\n");
    assertEquals(await fixture.tmux("list-buffers", "-F", "#{buffer_name}"), "mine");
    assertEquals(await fixture.tmux("show-buffer", "-b", "mine"), "the user's own buffer");

    // 60 KB (beyond one tmux command line) into cat, compared byte for byte.
    const out = `${fixture.dir}/pasted.txt`;
    const cat = await fixture.tmux(
      "new-window",
      "-P",
      "-F",
      "#{pane_id}",
      `cat > '${out}'; tmux wait-for -S cat-done`,
    );
    const lines = Array.from(
      { length: 750 },
      (_, i) => `${String(i).padStart(5, "0")} ${"y".repeat(73)}`,
    );
    const big = lines.join("\n") + "\n";
    const r = await session.ok("paste_text", {
      paneId: cat,
      text: big,
      bracketed: false,
    });
    assertEquals(r.bytes, big.length);
    await signalledBy(
      fixture,
      "cat-done",
      () => session.ok("send_keys", { paneId: cat, keys: ["C-d"] }),
    );
    const written = await Deno.readTextFile(out);
    assertEquals(written.length, big.length);
    assertEquals(written, big);
    assertEquals(await fixture.tmux("list-buffers", "-F", "#{buffer_name}"), "mine");

    const control = await session.fails("paste_text", { paneId: pane, text: "a\x1b[201~b" });
    assertStringIncludes(control, "control character");
  },
  { pane: bashPaneAndBuffer },
);

serverTest(
  `paste_text: enter reaches only the pasted pane under synchronize-panes, as the paste does`,
  async (fixture, session) => {
    const pane = await fixture.shellPane();
    const sibling = await bashSibling(fixture, pane);
    // Half a line waits on the sibling's prompt, as a person's typing would.
    await fixture.tmux("send-keys", "-t", sibling, "-l", "echo HALF-");
    const windowId = await fixture.tmux("display-message", "-p", "-t", pane, "#{window_id}");
    await session.ok("set_synchronize_panes", { windowId, enabled: true });
    // tmux 3.3a copies keys, not pastes, into synchronized panes: the text
    // reaches this pane alone, and so must the Enter that ends it.
    await signalledBy(fixture, "pasted", () =>
      session.ok("paste_text", {
        paneId: pane,
        text: "echo pasted; tmux wait-for -S pasted",
        enter: true,
      }));
    assertStringIncludes(await screen(fixture, pane), "\npasted\n");
    await session.ok("set_synchronize_panes", { windowId, enabled: false });
    // Pressed there, the Enter would have run the half line on its own.
    await fixture.runInPane(sibling, "echo rest");
    const shown = await screen(fixture, sibling);
    assertStringIncludes(shown, "\nHALF-echo rest\n");
    assert(!shown.includes("\nHALF-\n"), "the sibling's half line was not run");
    assertEquals(await fixture.tmux("list-buffers"), "", "no buffer is left");
  },
  { fixture: { width: 120 } },
);

serverTest(
  `send_keys: shifted keys tmux 3.3a would type as their name arrive as the keys`,
  async (fixture, session) => {
    // tmux 3.3a knows "S-Tab" and "S-x" but has no bytes for them (without
    // extended keys), and then types the name itself: "S-Tab" as 5 letters.
    // 3.4+ cannot send M-S-Tab (it drops the Meta): refused there, tested on 3.3.
    const meta = chordsAsIn33(await tmuxVersion());
    const keys = ["S-Tab", "s-tab", ...(meta ? ["M-S-Tab"] : []), "S-x", "M-S-y", "S-Z", "Enter"];
    const expected = `\x1b[Z\x1b[Z${meta ? "\x1b\x1b[Z" : ""}X\x1bYZ\r`;
    const out = `${fixture.dir}/raw-keys`;
    const pane = await fixture.tmux(
      "new-window",
      "-P",
      "-F",
      "#{pane_id}",
      `stty raw -echo; printf READY; dd bs=1 count=${expected.length} of='${out}' 2>/dev/null; ` +
        "stty sane; tmux wait-for -S raw-keys",
    );
    await eventually(async () => (await screen(fixture, pane)).includes("READY"), "READY");
    let sent = "";
    await signalledBy(fixture, "raw-keys", async () => {
      sent = (await session.ok("send_keys", { paneId: pane, keys })).sent;
    });
    assertEquals(await Deno.readTextFile(out), expected);
    assertStringIncludes(
      sent,
      `keys BTab BTab ${meta ? "M-BTab " : ""}X M-Y Z Enter`,
      "what was sent, by tmux name",
    );
  },
);

serverTest(
  `send_keys and send_keys_batch name the panes synchronize-panes also typed into`,
  async (fixture, session) => {
    type Sent = { sent: string; alsoSentTo: string[] };
    type Batch = { results: { success: boolean; alsoSentTo: string[] }[] };
    const pane = await fixture.shellPane();
    const sibling = await bashSibling(fixture, pane);
    const browsing = await bashSibling(fixture, pane);
    const windowId = await fixture.tmux("display-message", "-p", "-t", pane, "#{window_id}");
    const alone = await session.ok<Sent>("send_keys", { paneId: pane, keys: ["C-u"] });
    assertEquals(alone.alsoSentTo, [], "no synchronization: the keys reach one pane");
    await session.ok("set_synchronize_panes", { windowId, enabled: true });
    // tmux 3.3a copies no key into a pane in a mode: only the sibling gets one.
    await fixture.tmux("copy-mode", "-t", browsing);
    // Each shell that runs the line signals a channel named after its own pane.
    const line = `tmux -S ${fixture.socketPath} wait-for -S "copied$TMUX_PANE"`;
    await signalledBy(fixture, `copied${sibling}`, async () => {
      const r = await session.ok<Sent>("send_keys", { paneId: pane, text: line, enter: true });
      assertEquals(r.alsoSentTo, [sibling]);
      assertEquals(
        (await session.call("send_keys", { paneId: pane, keys: ["C-u"] })).content,
        [{
          type: "text",
          text: `sent to pane ${pane}: keys C-u (synchronize-panes also typed it into ` +
            `1 other pane: ${sibling})`,
        }],
      );
    });
    // Text too long for the guarded round trip (tmux's quoting escapes each " inside the
    // guard's branch) is checked first, then sent: still reported.
    const long = await session.ok<Sent>("send_keys", {
      paneId: pane,
      text: "'" + '"'.repeat(6000),
    });
    assertEquals(long.alsoSentTo, [sibling]);
    await session.ok("send_keys", { paneId: pane, keys: ["C-u"] });
    const batch = await session.ok<Batch>("send_keys_batch", {
      operations: [{ paneId: pane, keys: ["C-u"] }, { paneId: sibling, keys: ["C-u"] }],
    });
    assertEquals(batch.results.map((r) => [r.success, r.alsoSentTo]), [
      [true, [sibling]],
      [true, [pane]],
    ]);
  },
  { fixture: { width: 120 } },
);

serverTest(
  "send_keys_batch: a row's error hint naming a tool the settings left out says it is not offered",
  async (_fx, s) => {
    type Batch = { results: { success: boolean; error: string | null }[] };
    const batch = await s.ok<Batch>("send_keys_batch", {
      operations: [{ paneId: "%999", text: "x" }],
      onError: "continue",
    });
    const [row] = batch.results;
    assertEquals(row.success, false);
    // The same refusal as send_keys itself gives, note included.
    const note =
      "Not offered by this server: list_sessions, list_windows, list_panes (toolsets on: execute).";
    assertStringIncludes(row.error!, note);
    assertStringIncludes(await s.fails("send_keys", { paneId: "%999", text: "x" }), note);
  },
  { args: ["--toolsets", "execute"], transports: ["process"] },
);

Deno.test("keys send-keys cannot send to a program without extended keys are known", () => {
  const refused = ["S-Enter", "s-space", "C-S-Escape", "S-BSpace", "C-Enter", "C-Tab", "c-s-tab"];
  for (const version of ["tmux 3.3a", "tmux 3.5a", undefined]) {
    for (const key of [...refused, "C-BSpace", "C-Escape", "C-M-BSpace"]) {
      assert(unsendable(key, version), `${key} on ${version}`);
    }
  }
  // 3.4+ sends M-BTab as a bare BTab; 3.3a sends ESC before it.
  assert(!unsendable("M-S-Tab", "tmux 3.3a") && unsendable("M-S-Tab", "tmux 3.5a"));
  // M-BSpace sends ESC DEL on 3.3a and 3.5a alike (a cooked terminal's DEL erases the ESC).
  for (
    const key of [
      "Enter",
      "S-Tab",
      "S-a",
      "S-Up",
      "S-F5",
      "C-c",
      "M-Enter",
      "C-Space",
      "^M",
      "M-BSpace",
    ]
  ) {
    assert(!unsendable(key, "tmux 3.3a") && !unsendable(key, "tmux 3.5a"), `${key} is sendable`);
  }
});

serverTest(
  "send_keys refuses a chord tmux would type as its name or send unmodified, and sends nothing",
  async (fx, s) => {
    const pane = await fx.shellPane();
    const text = await s.fails("send_keys", {
      paneId: pane,
      text: "echo typed",
      keys: ["S-Enter"],
    });
    assertStringIncludes(text, "keys[0] is a chord tmux 3.");
    assertStringIncludes(text, "cannot send");
    assertStringIncludes(text, "without that modifier");
    const batch = await s.call("send_keys_batch", {
      operations: [{ paneId: pane, keys: ["Up"] }, { paneId: pane, keys: ["C-Enter"] }],
    });
    assert(batch.isError, JSON.stringify(batch.content));
    assertStringIncludes(
      (batch.content[0] as { text: string }).text,
      "operations[1].keys[0] is a chord",
    );
    // Nothing of either call reached the pane: the prompt line is still empty.
    const screen = await fx.tmux("capture-pane", "-p", "-t", pane);
    assert(!screen.includes("echo typed") && !screen.includes("S-Enter"), screen);
  },
  { transports: ["control"] },
);
