/**
 * The control-mode transport against real tmux servers: each test starts its
 * own server on a socket in a fresh temporary directory and kills it after.
 *
 * @module
 */

import { assert, assertEquals } from "./assert.ts";
import { Tmux } from "../tmux/client.ts";
import {
  beginLoudCommands,
  handshaking,
  markAttached,
  quietCommands,
  readChunks,
  reserveAttach,
  spawnControlClient,
} from "../tmux/control_client.ts";
import { type ControlOptions, ControlTransport, quoteArgument } from "../tmux/control_transport.ts";
import { ProcessTransport } from "../tmux/process_transport.ts";
import { TmuxError } from "../tmux/errors.ts";
import { parseOptionValues } from "../tmux/option_listing.ts";
import { spawnStats, spawnTmux } from "../tmux/spawn.ts";
import { eventually, TmuxFixture, whileStopped } from "./harness.ts";

const decoder = new TextDecoder();
/** Failure bound of anything a test waits for; never a synchronisation device. */
const BOUND_MS = 20_000;

async function assertRejects(promise: Promise<unknown>, kind: string): Promise<TmuxError> {
  try {
    await promise;
  } catch (error) {
    assert(error instanceof TmuxError, `expected a TmuxError, got ${error}`);
    assertEquals(error.kind, kind, `kind of "${error.message}"`);
    return error;
  }
  throw new Error(`expected a rejection of kind ${kind}`);
}

/** Resolves with the first notification `pred` accepts; rejects after the bound. */
function nextNotification(t: ControlTransport, pred: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error("notification did not arrive"));
    }, BOUND_MS);
    const off = t.onNotification((line) => {
      if (!pred(line)) return;
      clearTimeout(timer);
      off();
      resolve(line);
    });
  });
}

interface Server {
  /** Global arguments selecting the private socket. */
  args: string[];
  /** Runs one tmux command as its own process; throws on failure. */
  tmux(...args: string[]): Promise<string>;
  /** A control transport on this server, closed at the end of the test. */
  transport(options?: ControlOptions): ControlTransport;
}

/**
 * Runs `fn` against a private tmux server (sessions from `setup`, started
 * through the transports' own process starter), then closes the transports
 * it made and the fixture, even when `fn` throws.
 */
async function withServer(
  setup: string[][],
  fn: (server: Server) => Promise<void>,
): Promise<void> {
  await using fx = await TmuxFixture.empty();
  const args = ["-S", fx.socketPath, "-f", "/dev/null"];
  await using transports = new AsyncDisposableStack();
  const tmux = async (...command: string[]) => {
    const result = await spawnTmux("tmux", [...args, ...command], { timeoutMs: BOUND_MS });
    if (result.code !== 0) {
      throw new Error(`tmux ${command.join(" ")}: ${decoder.decode(result.stderr)}`);
    }
    const out = decoder.decode(result.stdout);
    return out.endsWith("\n") ? out.slice(0, -1) : out;
  };
  for (const command of setup) await tmux(...command);
  await fn({
    args,
    tmux,
    transport: (options?: ControlOptions) => {
      const t = new ControlTransport("tmux", args, `socket ${fx.socketPath}`, options);
      transports.defer(() => t.close());
      return t;
    },
  });
}

const MAIN = [["new-session", "-d", "-s", "main", "-x", "200", "-y", "50"]];

Deno.test("basic read goes over the control client", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    assert(await t.connect(), "attached");
    const [name] = await t.run([["display-message", "-p", "-t", "main", "#{session_name}"]]);
    assertEquals(name, "main");
    assertEquals(t.stats.control, 1, "served by control");
    assertEquals(t.name, "control");
  });
});

Deno.test("chained commands are split per command", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    const out = await t.run([
      ["display-message", "-p", "one"],
      ["list-windows", "-t", "main", "-F", "#{window_index}"],
      ["new-window", "-d", "-t", "main:"],
      ["list-windows", "-t", "main", "-F", "#{window_index}"],
      ["display-message", "-p", ""],
      // Commands inserted by if-shell -F answer in blocks of their own; they
      // still belong to the if-shell that ran them.
      ["if-shell", "-F", "1", "display-message -p inner1 ; display-message -p inner2"],
      ["display-message", "-p", "last"],
    ]);
    assertEquals(out, ["one", "0", "", "0\n1", "", "inner1\ninner2", "last"]);
    assertEquals(t.stats, { control: 1, fallback: 0, attaches: 1 });
  });
});

Deno.test("arguments arrive byte-exact", async () => {
  const values = [
    "$HOME",
    "${HOME}",
    "~",
    "~/x",
    "~'",
    "a;b",
    "trailing;",
    ";",
    "\\;",
    "#{session_name}",
    "#(echo hi)",
    "##",
    "'single'",
    '"double"',
    'it\'s "both"',
    "back\\slash\\",
    "\\n not a newline",
    "line1\nline2",
    "tab\there",
    "cr\rhere",
    "esc\x1b[0m",
    "bell\x07 del\x7f",
    "unicode é ✓ 🙂 中文",
    "",
    "  lead and trail  ",
    "{ braces }",
    "%if 1",
    "%end 1 2 1",
    "$(echo x) `x`",
    "-dash",
  ];
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    assert(await t.connect(), "attached");
    for (const value of values) {
      // Without -v tmux quotes the value alike on every version (3.4+ escapes -v output).
      const [, shown] = await t.run([
        ["set-option", "-g", "@x", value],
        ["show-options", "-g", "@x"],
      ]);
      assertEquals(parseOptionValues(shown), [value], `round trip of ${JSON.stringify(value)}`);
    }
    assertEquals(t.stats.control, values.length, "all over control");
  });
  // The quoting rules themselves, for the record.
  assertEquals(quoteArgument("$HOME ~ ; #{x} \\"), "'$HOME ~ ; #{x} \\'");
  assertEquals(quoteArgument("a'b\n\t\x1b$\\\""), '"a\'b\\012\\011\\033\\$\\\\\\""');
});

Deno.test("output lines that look like framing stay content", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    const now = Math.floor(Date.now() / 1000);
    const fake = [
      "%end 123 1 0",
      `%end ${now} 1 1`,
      `%error ${now} 2 1`,
      `%begin ${now} 3 1`,
      "%exit",
      "%session-changed $9 fake",
      `%end ${now} 4 1`,
    ].join("\n");
    const [, shown, after] = await t.run([
      ["set-option", "-g", "@fake", fake],
      ["show-options", "-gv", "@fake"],
      ["display-message", "-p", "after"],
    ]);
    assertEquals(shown, fake);
    assertEquals(after, "after");
    // A read alone travels without markers: its one block is the whole answer.
    assertEquals(await t.run([["show-options", "-gv", "@fake"]]), [fake]);
    await t.run([["rename-window", "-t", "main:0", "%end 1 2 1"]]);
    const [names] = await t.run([["list-windows", "-t", "main", "-F", "#{window_name}"]]);
    assertEquals(names, "%end 1 2 1");
    assertEquals(t.attachedSession !== undefined, true, "still attached");
    assertEquals(t.stats.fallback, 0, "no fallback");
  });
});

Deno.test("output text arrives whole: a leading U+FEFF, characters across chunks", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    // Long enough to span many reads of the client's output, so that
    // multi-byte characters straddle chunk boundaries.
    const long = "é€😀x".repeat(40_000);
    const value = `\ufeffat the start\nmid\ufeff\n\ufeff\n${long}`;
    await t.run([["set-option", "-g", "@text", value]]);
    const [shown] = await t.run([["show-options", "-gv", "@text"]]);
    // Compared without printing 200 KB on failure.
    assert(shown === value, `got ${JSON.stringify(shown.slice(0, 40))}… (${shown.length} units)`);
  });
});

Deno.test("many lines across chunks, with empty and framing-like ones, arrive whole", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    const now = Math.floor(Date.now() / 1000);
    // Lines starting with % and empty lines at every position relative to
    // the reads of the client's output, which are taken in runs between them.
    const kinds = ["", "%", `%end ${now} 7 1`, "% x", "50% é %", "x".repeat(300), "", ""];
    const lines = Array.from(
      { length: 12_000 },
      (_, i) => `${kinds[i % 7 + (i % 3 === 0 ? 1 : 0)]}`,
    );
    const value = `${lines.join("\n")}\n\nend`;
    await t.run([["set-option", "-g", "@lines", value]]);
    for (
      const read of [[["show-options", "-gv", "@lines"]], [["show-options", "-gv", "@lines"], [
        "display-message",
        "-p",
        "after",
      ]]]
    ) {
      const [shown, after] = await t.run(read);
      assert(shown === value, `got ${shown.length} units of ${value.length}`);
      if (read.length === 2) assertEquals(after, "after");
    }
    assertEquals(t.stats.fallback, 0, "no fallback");
  });
});

Deno.test("a lone read reaches tmux as that one command; a chained round trip adds its markers", async () => {
  await withServer(MAIN, async ({ transport, tmux }) => {
    const t = transport();
    await t.connect();
    // tmux counts every display-message it runs (our markers are display-message).
    await tmux("set-option", "-g", "@shown", "0");
    await tmux("set-hook", "-g", "after-display-message", "set -gF @shown '#{e|+:#{@shown},1}'");
    assertEquals(await t.run([["show-options", "-gv", "@shown"]]), ["0"]);
    assertEquals(
      await tmux("show-options", "-gv", "@shown"),
      "0",
      "no terminator after a lone read",
    );
    await t.run([["list-sessions"], ["list-windows"]]);
    assertEquals(await tmux("show-options", "-gv", "@shown"), "2", "one separator, one terminator");
    assertEquals(t.stats.fallback, 0, "all over the control client");
  });
});

Deno.test("100 concurrent round trips get their own answers", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    const calls = Array.from({ length: 100 }, (_, i) => {
      if (i % 10 === 7) {
        return t.run([["list-panes", "-t", "%999"]]).then(() => "no error", (e) => e.kind);
      }
      if (i % 3 === 0) {
        return t.run([["display-message", "-p", `a${i}`], ["display-message", "-p", `b${i}`]]).then(
          (o) => o.join("+"),
        );
      }
      return t.run([["display-message", "-p", `r${i}`]]).then((o) => o[0]);
    });
    const results = await Promise.all(calls);
    results.forEach((result, i) => {
      const expected = i % 10 === 7 ? "no_target" : i % 3 === 0 ? `a${i}+b${i}` : `r${i}`;
      assertEquals(result, expected, `call ${i}`);
    });
    assertEquals(t.stats.control, 100, "all over control");
  });
});

Deno.test("errors are classified and stop the rest of the round trip", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    await assertRejects(t.run([["list-panes", "-t", "%99"]]), "no_target");
    await assertRejects(
      t.run([
        ["set-option", "-g", "@before", "ran"],
        ["list-panes", "-t", "%99"],
        ["set-option", "-g", "@after", "ran"],
      ]),
      "no_target",
    );
    const [before, after] = await t.run([
      ["show-options", "-gqv", "@before"],
      ["show-options", "-gqv", "@after"],
    ]);
    assertEquals([before, after], ["ran", ""], "commands after a failure do not run");
    await assertRejects(t.run([["no-such-command"]]), "failed");
    assertEquals(t.stats.fallback, 0, "errors did not disturb the client");
  });
});

Deno.test("a killed attached session: calls keep working, then it reattaches", async () => {
  await withServer(
    [["new-session", "-d", "-s", "one"], ["new-session", "-d", "-s", "two"]],
    async (s) => {
      const t = s.transport();
      assert(await t.connect(), "attached");
      const first = t.attachedSession;
      const firstPid = t.clientPid;
      assert(first !== undefined, "knows its session");
      const other = first === await s.tmux("display-message", "-p", "-t", "one", "#{session_id}")
        ? "two"
        : "one";
      const gone = other === "one" ? "two" : "one";
      const exited = nextNotification(t, (line) => line.startsWith("%exit"));
      await s.tmux("kill-session", "-t", gone);
      await exited;
      const [name] = await t.run([["display-message", "-p", "-t", other, "#{session_name}"]]);
      assertEquals(name, other, "answered while detached");
      assert(await t.connect(), "reattached");
      const otherId = await s.tmux("display-message", "-p", "-t", other, "#{session_id}");
      assertEquals(t.attachedSession, otherId);
      assert(t.clientPid !== firstPid, "a new client");
      const before = t.stats.control;
      assertEquals(await t.run([["display-message", "-p", "x"]]), ["x"]);
      assertEquals(t.stats.control, before + 1, "served by control again");
      assertEquals(await s.tmux("list-clients", "-F", "#{client_session}"), other, "one client");
    },
  );
});

Deno.test("killing the attached session through the client itself succeeds", async () => {
  await withServer(
    [["new-session", "-d", "-s", "one"], ["new-session", "-d", "-s", "two"]],
    async (s) => {
      const t = s.transport();
      assert(await t.connect(), "attached");
      const attached = t.attachedSession!;
      const oneId = await s.tmux("display-message", "-p", "-t", "one", "#{session_id}");
      const remaining = attached === oneId ? "two" : "one";
      const out = await t.run([["display-message", "-p", "bye"], ["kill-session", "-t", attached]]);
      assertEquals(out, ["bye", ""]);
      // The very next call must not go to the client that is leaving.
      assertEquals(await t.run([["list-sessions", "-F", "#{session_name}"]]), [remaining]);
      assert(await t.connect(), "reattached");
      assertEquals(await t.run([["display-message", "-p", "#{session_name}"]]), [remaining]);
    },
  );
});

Deno.test("a killed server reads as no_server, a restarted one works again", async () => {
  await withServer(MAIN, async (s) => {
    const t = s.transport();
    assert(await t.connect(), "attached");
    const pid = t.clientPid!;
    const exited = nextNotification(t, (line) => line.startsWith("%exit"));
    await s.tmux("kill-server");
    await exited;
    await assertRejects(t.run([["display-message", "-p", "x"]]), "no_server");
    await assertRejects(t.run([["list-sessions"]]), "no_server");
    assertEquals(await t.connect(), false, "nothing to attach to");
    await s.tmux("new-session", "-d", "-s", "again");
    assertEquals(await t.run([["display-message", "-p", "-t", "again", "#{session_name}"]]), [
      "again",
    ]);
    assert(await t.connect(), "reattached to the new server");
    const before = t.stats.control;
    assertEquals(await t.run([["display-message", "-p", "#{session_name}"]]), ["again"]);
    assertEquals(t.stats.control, before + 1);
    await t.close();
    assertEquals(processExists(pid), false, "the old client was reaped");
  });
});

Deno.test("a removed socket file and a new server on its path: calls reach the path's server", async () => {
  await withServer(MAIN, async (s) => {
    // Checked on every call here (in service every 10 s, at a call after 2 s
    // without one) rather than waiting for it.
    const t = s.transport({ verifyMs: 0, verifyIdleMs: 0 });
    assert(await t.connect(), "attached");
    const orphan = Number(await s.tmux("display-message", "-p", "#{pid}"));
    try {
      await Deno.remove(s.args[1]);
      // The old server lives on, reachable only through the client's connection.
      await eventually(
        () => t.run([["list-sessions"]]).then(() => false, (e) => e.kind === "no_server"),
        "reads say what every tmux process says: no server on the socket",
      );
      await s.tmux("new-session", "-d", "-s", "fresh");
      const names = () => t.run([["list-sessions", "-F", "#{session_name}"]]);
      await eventually(async () => (await names())[0] === "fresh", "the new server is read");
      await eventually(
        async () => await t.connect() && t.attachedSession !== undefined,
        "attached to the new server",
      );
      const answers = await Promise.all(Array.from({ length: 20 }, names));
      assertEquals(new Set(answers.map(([name]) => name)), new Set(["fresh"]));
      assertEquals(await s.tmux("list-clients", "-F", "#{client_control_mode}"), "1");
    } finally {
      Deno.kill(orphan, "SIGTERM");
    }
  });
});

Deno.test("kill-server through the client answers, then reads as no_server", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    assert(await t.connect(), "attached");
    assertEquals(await t.run([["display-message", "-p", "last"], ["kill-server"]]), ["last", ""]);
    await assertRejects(t.run([["list-sessions"]]), "no_server");
  });
});

Deno.test("with no session, round trips fall back to processes", async () => {
  await withServer([["start-server", ";", "set-option", "-s", "exit-empty", "off"]], async (s) => {
    const t = s.transport();
    assertEquals(await t.run([["list-sessions", "-F", "#{session_id}"]]), [""]);
    assertEquals(await t.connect(), false);
    await t.run([["new-session", "-d", "-s", "late"]]);
    assert(await t.connect(), "attached once a session exists");
    assertEquals(await t.run([["display-message", "-p", "#{session_name}"]]), ["late"]);
    assert(t.stats.fallback >= 2 && t.stats.control === 1, JSON.stringify(t.stats));
    assertEquals(
      await s.tmux("list-sessions", "-F", "#{session_name}"),
      "late",
      "no session created",
    );
  });
});

Deno.test("attaching resizes no window and floods no output", async () => {
  await withServer(MAIN, async (s) => {
    await s.tmux("new-session", "-d", "-s", "small");
    const size = () =>
      s.tmux("list-windows", "-a", "-F", "#{session_name}:#{window_width}x#{window_height}");
    const sizes = await size();
    assertEquals(sizes, "main:200x50\nsmall:80x24");
    const t = s.transport();
    assert(await t.connect(), "attached");
    await t.run([["select-window", "-t", "main:0"], ["split-window", "-d", "-t", "main:0"]]);
    assertEquals(await size(), sizes, "sizes kept");
    const flags = await s.tmux("list-clients", "-F", "#{client_flags}");
    assert(/ignore-size/.test(flags) && /no-output/.test(flags), flags);
  });
});

Deno.test("a read made while the client attaches waits for it instead of starting a process", async () => {
  await withServer(MAIN, async ({ transport }) => {
    // A bound no attach here reaches: the read must be served by the client.
    const t = transport({ attachWaitMs: BOUND_MS });
    const attached = t.connect();
    const [name] = await t.run([["display-message", "-p", "-t", "main", "#{session_name}"]]);
    assertEquals(name, "main");
    assert(await attached, "attached");
    assertEquals(t.stats, { control: 1, fallback: 0, attaches: 1 });
  });
});

Deno.test("while the client attaches, writes go at once and reads wait no longer than the bound", async () => {
  await withServer(MAIN, async ({ tmux, transport }) => {
    // The attach waits for commands that make tmux notify: they must not wait for it.
    const patient = transport({ attachWaitMs: BOUND_MS });
    const attached = patient.connect();
    await patient.run([["set-option", "-g", "@during", "1"]]);
    assert(await attached, "attached");
    assertEquals(patient.stats, { control: 0, fallback: 1, attaches: 1 });
    assertEquals(await tmux("show-options", "-gv", "@during"), "1");
    // An attach takes processes of its own: it cannot end within 0 ms.
    const hasty = transport({ attachWaitMs: 0 });
    const attaching = hasty.connect();
    assertEquals(await hasty.run([["display-message", "-p", "#{session_name}"]]), ["main"]);
    assert(await attaching, "attached");
    assertEquals(hasty.stats, { control: 0, fallback: 1, attaches: 1 });
  });
});

Deno.test("close() ends the client and is idempotent", async () => {
  await withServer(MAIN, async (s) => {
    const t = s.transport();
    assert(await t.connect(), "attached");
    const pid = t.clientPid!;
    assertEquals(await s.tmux("list-clients", "-F", "#{client_pid}"), String(pid));
    assert(processExists(pid), "the client runs while attached");
    await t.close();
    await t.close();
    assertEquals(await s.tmux("list-clients"), "", "no client left");
    assertEquals(processExists(pid), false, "client process reaped");
    await assertRejects(t.run([["display-message", "-p", "x"]]), "failed");
    assertEquals(await t.connect(), false);
  });
});

Deno.test("steady-state round trips start no process", async () => {
  await withServer(MAIN, async ({ transport }) => {
    // The socket check may run at any call here, but only after a quiet spell
    // (the first call's, whose check starts once it is answered): a burst of
    // calls starts no process.
    const t = transport({ verifyMs: 0 });
    await t.connect();
    const before = spawnStats.started;
    await t.run([["display-message", "-p", "warm"]]);
    await eventually(() => Promise.resolve(spawnStats.started === before + 1), "the first check");
    const started = spawnStats.started;
    for (let i = 0; i < 50; i++) {
      await t.run([["list-panes", "-a"], ["display-message", "-p", "#{pid}"]]);
    }
    assertEquals(spawnStats.started, started, "processes started");
  });
});

Deno.test("the socket check of a call after a quiet spell starts once that call is answered", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport({ verifyMs: 0, verifyIdleMs: 0 });
    assert(await t.connect(), "attached");
    const started = spawnStats.started;
    assertEquals(await t.run([["display-message", "-p", "due"]]), ["due"]);
    assertEquals(spawnStats.started, started, "no process before the answer");
    await eventually(
      () => Promise.resolve(spawnStats.started === started + 1),
      "the check's process",
    );
  });
});

Deno.test("a timed-out reply is consumed later without shifting answers", async () => {
  await withServer(MAIN, async (s) => {
    const t = s.transport();
    await t.connect();
    const pid = Number(await s.tmux("display-message", "-p", "#{pid}"));
    await whileStopped(pid, async () => {
      // Both go to the client (neither is abandoned yet when sent). Nothing
      // here may use a one-shot process: its output pipe stays open in the
      // stopped server until the server runs again.
      const abort = new AbortController();
      const late = t.run([["display-message", "-p", "late"]], { timeoutMs: 300 });
      const cancelled = t.run([["display-message", "-p", "x"]], { signal: abort.signal });
      abort.abort();
      await assertRejects(cancelled, "cancelled");
      await assertRejects(late, "timeout");
      assertEquals(t.stats, { control: 2, fallback: 0, attaches: 1 });
    });
    // While the abandoned reply is outstanding, calls use processes; once it
    // has been consumed the client serves again, with answers in step.
    const control = t.stats.control;
    let served = 0;
    for (let i = 0; i < 500 && t.stats.control === control; i++) {
      assertEquals(await t.run([["display-message", "-p", `n${i}`]]), [`n${i}`]);
      served++;
    }
    assert(t.stats.control > control, `back on control after ${served} calls`);
  });
});

Deno.test("waiting and client-bound commands run as their own process", async () => {
  await withServer(MAIN, async ({ transport }) => {
    const t = transport();
    await t.connect();
    const before = t.stats;
    await t.run([["wait-for", "-S", "chan"]]);
    assertEquals(await t.run([["run-shell", "true"]]), [""]);
    assertEquals(t.stats.fallback, before.fallback + 2);
    assertEquals(await t.run([["if-shell", "-F", "1", "display-message -p yes"]]), ["yes"]);
    assertEquals(t.stats.control, before.control + 1);
  });
});

Deno.test("notifications reach listeners until they unsubscribe", async () => {
  await withServer(MAIN, async (s) => {
    const t = s.transport();
    await t.connect();
    const seen: string[] = [];
    const off = t.onNotification((line) => seen.push(line));
    const added = nextNotification(t, (line) => line.startsWith("%window-add"));
    const id = await s.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
    assertEquals(await added, `%window-add ${id}`);
    off();
    const count = seen.length;
    await s.tmux("new-window", "-d", "-t", "main:");
    // A round trip over the client comes after the notification it produced.
    await t.run([["display-message", "-p", "sync"]]);
    assertEquals(seen.length, count, "no delivery after unsubscribe");
  });
});

/**
 * True while process `pid` exists, even as an unreaped zombie (a zombie still
 * accepts signals). Signals instead of /proc: Deno only lets --allow-all read
 * /proc/<pid>, and the project's test task grants less.
 */
function processExists(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || /ESRCH|No such process/i.test(String(error))) {
      return false;
    }
    throw error;
  }
}

Deno.test("no command goes to tmux while one of our control clients is still attaching", async () => {
  await withServer(MAIN, async ({ args, tmux }) => {
    // A real process transport, recording when each round trip reaches it.
    const inner = new ProcessTransport("tmux", args, "test socket");
    const reached: number[] = [];
    const recording = {
      name: "process",
      run: (commands: string[][]) => {
        reached.push(performance.now());
        return inner.run(commands);
      },
      close: () => inner.close(),
    };
    const client = new Tmux("tmux", { kind: "path", path: args[1], source: "flag" }, recording);
    const child = await spawnControlClient("tmux", args, "main", {
      flags: ["ignore-size", "no-output"],
    });
    assert(child, "spawned");
    let attachedAt = Infinity;
    const reading = readChunks(child, (bytes) => {
      if (attachedAt === Infinity && decoder.decode(bytes).includes("%session-changed ")) {
        attachedAt = performance.now();
        markAttached(child);
      }
    });
    assert(handshaking(), "attaching right after the spawn");
    // Commands that make tmux notify every control client (%sessions-changed).
    await client.run([["new-session", "-d", "-s", "during"]]);
    await client.one(["kill-session", "-t", "=during"]);
    assert(!handshaking(), "attached");
    assert(reached.length === 2, "both round trips ran");
    assert(reached[0] >= attachedAt, "the first command waited for the attach");
    assertEquals(await tmux("display-message", "-p", "ok"), "ok", "tmux is alive");
    await child.stdin.close();
    await reading;
    await child.status;
  });
});

Deno.test("a control client is spawned only after the commands that could notify it have finished", async () => {
  await withServer(MAIN, async ({ args }) => {
    const client = new Tmux("tmux", { kind: "path", path: args[1], source: "flag" }, {
      name: "process",
      run: (commands: string[][]) =>
        new ProcessTransport("tmux", args, "test socket").run(commands),
      close: () => Promise.resolve(),
    });
    let finishedAt = 0;
    // run-shell holds its tmux client until the shell command ends: a loud command in flight.
    const loud = client.run([["run-shell", "sleep 0.3"]]).then(
      () => (finishedAt = performance.now()),
    );
    const slot = await reserveAttach();
    const reservedAt = performance.now();
    slot.release();
    await loud;
    assert(finishedAt > 0 && reservedAt >= finishedAt, "the attach waited for the loud command");
    // A quiet command never holds an attach back: the slot comes before the read's answer.
    let quietDone = false;
    const quiet = client.run([["list-sessions"]]).then(() => (quietDone = true));
    const second = await reserveAttach();
    assert(!quietDone, "a read did not hold the attach");
    second.release();
    await quiet;
  });
});

/*
 * The order of loud round trips is the crash protection (tmux/control_client.ts):
 * a waiter goes out of turn only when nothing has moved for 3 s, not 3 s
 * after it joined a queue that keeps moving. Timers here make the queue, they
 * bound nothing: 1 s, then a look at 4.5 s, between the 3 s a waiter would
 * have gone at and the 6 s its renewed wait ends.
 */
Deno.test("loud round trips: a queue that keeps moving keeps its order past 3 s", async () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const first = await beginLoudCommands();
  const second = beginLoudCommands();
  let thirdIn = false;
  const third = beginLoudCommands().then((end) => {
    thirdIn = true;
    return end;
  });
  await pause(1_000);
  first();
  const endSecond = await second;
  await pause(3_500);
  assert(!thirdIn, "the third went while the second was still in flight");
  endSecond();
  (await third)();
  assert(thirdIn);
});

Deno.test("quiet commands: reads are quiet; a capture into a buffer is loud (3.4+ announces it)", () => {
  assert(quietCommands([["capture-pane", "-p", "-t", "%0"], ["list-panes", "-a"]]));
  assert(!quietCommands([["capture-pane", "-J", "-b", "out", "-t", "%0"]]));
  assert(!quietCommands([["list-panes"], ["set-buffer", "-b", "x", "y"]]));
});
