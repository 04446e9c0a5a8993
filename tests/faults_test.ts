/**
 * Faults: the tmux server killed in the middle of a read, a wait
 * (wait_for_text, wait_for_channel) and a run (run_shell_command); the pane
 * killed in the middle of a wait; tmux replaced by a program that hangs.
 * Every call must answer with a clear error (or the contract's outcome)
 * within its timeout, and the same server must work again once a tmux
 * server is back on the same socket.
 *
 * The hanging-tmux test starts the server with the shipped flags plus
 * `--allow-run=<script>`: the shipped permission set allows running tmux
 * only at fixed paths, and a test script lives in a temporary directory.
 * (A later `--allow-run` replaces the set's run list, so the server can run
 * nothing but the script.)
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  descendants,
  eventually,
  FIXTURE_SHELL,
  type Session,
  startServer,
  TmuxFixture,
} from "./harness.ts";
import { readTopology, startTopology, within } from "./hardening.ts";

/** Failure bound of one answer; the waits below use far shorter timeouts than this. */
const BOUND_MS = 60_000;
/** Counted for the closing report: each kill or hang injected. */
let faultsInjected = 0;

/** Asserts `result` is a clean contract error of `tool`; returns its text. */
function cleanError(tool: string, result: CallToolResult): string {
  assert(
    result.isError === true,
    `${tool} did not fail: ${JSON.stringify(result.structuredContent)}`,
  );
  assertEquals(result.structuredContent, undefined, `${tool} error carried structuredContent`);
  const text = (result.content[0] as { text: string }).text;
  assert(text.startsWith(`${tool} failed: `), `unexpected error text: ${text}`);
  assert(!text.includes("internal error"), `${tool} hit an internal error: ${text}`);
  return text;
}

/**
 * Starts a fresh tmux server on the fixture's socket (the panes run the
 * fixture shell). Right after a kill-server the old server may still hold the
 * socket while it exits: the client then reports that it exited, and the
 * start is repeated once tmux has let go of it.
 */
async function bringBack(fx: TmuxFixture, name: string): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await fx.tmux(
        ...["start-server", ";", "set-option", "-g", "default-command", FIXTURE_SHELL, ";"],
        ...["new-session", "-d", "-s", name, "-x", "100", "-y", "30"],
      );
      return;
    } catch (error) {
      if (attempt === 20 || !String(error).includes("server exited unexpectedly")) throw error;
    }
  }
}

/** Starts a tmux server on the fixture's socket unless one answers (a failed step killed it). */
async function ensureServer(fx: TmuxFixture): Promise<void> {
  try {
    await fx.tmux("has-session");
  } catch {
    await bringBack(fx, "spare");
  }
}

/** The same MCP server works again: it lists the new session and reads its pane. */
async function assertRecovered(s: Session, fx: TmuxFixture, name: string): Promise<void> {
  await bringBack(fx, name);
  const mark = `back-${crypto.randomUUID().slice(0, 6)}`;
  const pane = (await readTopology(fx)).panes[0];
  await fx.runInPane(pane, `echo ${mark}`);
  const { sessions } = await s.ok("list_sessions");
  assertEquals(sessions.map((x) => x.name), [name]);
  const { content } = await s.ok("capture_pane", {
    paneId: pane,
  });
  assertStringIncludes(content.lines.join("\n"), mark);
  const run = await s.ok("run_shell_command", {
    paneId: pane,
    command: "true",
  });
  assertEquals([run.outcome, run.exitStatus], ["completed", 0]);
}

/** Resolves once a descendant of `pid` whose command line includes every part exists. */
async function childAppears(pid: number, parts: string[]): Promise<void> {
  let found = false;
  // Polls the process table: the waiter process is the state being waited for, and the
  // loop ends as soon as it exists (the bound only catches a broken server).
  await within(
    BOUND_MS,
    `a child with ${parts.join(" ")}`,
    (async () => {
      while (!found) {
        found = (await descendants(pid)).some(({ args }) => parts.every((p) => args.includes(p)));
        if (!found) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
  );
}

/** Calls `tool` with a progress callback; resolves `armed` at its first progress notification. */
function callArmed(
  s: Session,
  tool: string,
  args: Record<string, unknown>,
): { armed: Promise<void>; result: Promise<CallToolResult> } {
  let armed!: () => void;
  const armedPromise = new Promise<void>((resolve) => (armed = resolve));
  const result = s.client.callTool({ name: tool, arguments: args }, undefined, {
    onprogress: () => armed(),
    timeout: BOUND_MS,
  }) as Promise<CallToolResult>;
  return { armed: armedPromise, result };
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`faults: tmux killed mid-read, mid-wait, mid-run; pane killed mid-wait [${transport}]`, async (t) => {
    await using fx = await startTopology();
    await using s = await startServer(fx.socketPath, {
      args: ["--transport", transport, "--wait-max-seconds", "20"],
    });
    try {
      const session = s;
      const pid = s.transport.pid!;
      /** Arms wait_for_text on `pane`, injects `fault`, and returns the answer, which must beat the timeout. */
      const waitThrough = async (pane: string, fault: () => Promise<unknown>) => {
        const started = performance.now();
        const call = callArmed(session, "wait_for_text", {
          paneId: pane,
          patterns: [`never-printed-${crypto.randomUUID().slice(0, 8)}`],
          timeoutSeconds: 20,
        });
        await within(BOUND_MS, "wait armed", call.armed);
        await fault();
        faultsInjected++;
        const result = await within(BOUND_MS, "wait_for_text answer", call.result);
        const elapsed = (performance.now() - started) / 1000;
        assert(elapsed < 20, `wait_for_text answered after its timeout (${elapsed} s)`);
        return result;
      };

      await t.step("tmux server killed (SIGKILL) in the middle of reads", async () => {
        const topo = await readTopology(fx);
        await fx.runInPane(topo.panes[0], "seq 1 3000");
        const serverPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
        const reads = Array.from({ length: 24 }, (_, i) => {
          const [tool, args] = [
            ["capture_pane", { paneId: topo.panes[0], includeHistory: true }],
            ["list_panes", {}],
            ["snapshot_pane", { paneId: topo.panes[1] }],
            ["search_panes", { pattern: "29\\d\\d", includeHistory: true }],
          ][i % 4] as [string, Record<string, unknown>];
          return session.call(tool, args).then((result) => ({ tool, result }));
        });
        Deno.kill(serverPid, "SIGKILL");
        faultsInjected++;
        const answers = await within(BOUND_MS, "reads after the kill", Promise.all(reads));
        let failed = 0;
        for (const { tool, result } of answers) {
          if (result.isError) {
            cleanError(tool, result);
            failed++;
          }
        }
        console.log(
          `reads around a SIGKILL [${transport}]: ${
            answers.length - failed
          } answered, ${failed} clean errors`,
        );
        // After the kill every targeted read is a clear "no tmux server" error.
        const after = cleanError(
          "capture_pane",
          await session.call("capture_pane", { paneId: topo.panes[0] }),
        );
        assertStringIncludes(after, "no tmux server");
        await assertRecovered(session, fx, "again1");
      });

      await t.step("tmux server killed while wait_for_text waits", async () => {
        await ensureServer(fx);
        const pane = (await readTopology(fx)).panes[0];
        const result = await waitThrough(pane, () => fx.tmux("kill-server"));
        const text = cleanError("wait_for_text", result);
        assertStringIncludes(text, "tmux");
        await assertRecovered(session, fx, "again2");
      });

      await t.step("tmux server killed while wait_for_channel waits", async () => {
        await ensureServer(fx);
        const channel = `fault-${crypto.randomUUID().slice(0, 8)}`;
        const started = performance.now();
        let answered = false;
        const result = session.call("wait_for_channel", { channel, timeoutSeconds: 20 })
          .finally(() => (answered = true));
        await Promise.race([childAppears(pid, ["wait-for", channel]), result]);
        if (answered) {
          // The message is built only here: awaiting the result earlier would wait out the timeout.
          throw new Error(
            `wait_for_channel answered before waiting: ${JSON.stringify(await result)}`,
          );
        }
        await fx.tmux("kill-server");
        faultsInjected++;
        const answer = await within(BOUND_MS, "wait_for_channel answer", result);
        const elapsed = (performance.now() - started) / 1000;
        assert(
          elapsed < 20,
          `wait_for_channel answered after its timeout (${elapsed} s): ${JSON.stringify(answer)}`,
        );
        // A vanished server is an error, never "signalled".
        assertStringIncludes(cleanError("wait_for_channel", answer), "tmux");
        await assertRecovered(session, fx, "again3");
      });

      await t.step("tmux server killed while run_shell_command runs", async () => {
        await ensureServer(fx);
        const pane = (await readTopology(fx)).panes[0];
        const channel = `running-${crypto.randomUUID().slice(0, 8)}`;
        const started = performance.now();
        const armed = fx.tmux("wait-for", channel);
        const result = session.call("run_shell_command", {
          paneId: pane,
          command: `tmux wait-for -S ${channel}; sleep 30`,
          timeoutSeconds: 20,
        });
        await within(BOUND_MS, "command started", armed);
        await fx.tmux("kill-server");
        faultsInjected++;
        const answer = await within(BOUND_MS, "run_shell_command answer", result);
        const elapsed = (performance.now() - started) / 1000;
        assert(elapsed < 20, `run_shell_command answered after its timeout (${elapsed} s)`);
        assertStringIncludes(cleanError("run_shell_command", answer), "tmux");
        await assertRecovered(session, fx, "again4");
      });

      await t.step("pane killed while wait_for_text waits", async () => {
        await ensureServer(fx);
        const first = (await readTopology(fx)).panes[0];
        const pane = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first);
        const result = await waitThrough(pane, () => fx.tmux("kill-pane", "-t", pane));
        assert(!result.isError, `wait_for_text failed: ${JSON.stringify(result.content)}`);
        assertEquals((result.structuredContent as { outcome: string }).outcome, "pane_exited");
      });
    } finally {
      console.log(`faults injected so far: ${faultsInjected}`);
    }
  });
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`faults: a tmux that hangs gives clear errors in bounded time [${transport}]`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-hang-" });
    const script = `${dir}/tmux`;
    // Answers -V like tmux 3.3a (so start-up accepts it), then hangs on
    // every command; exec so that killing the process kills the sleep.
    await Deno.writeTextFile(
      script,
      '#!/bin/sh\nfor a in "$@"; do [ "$a" = -V ] && { echo "tmux 3.3a"; exit 0; }; done\nexec sleep 600\n',
    );
    await Deno.chmod(script, 0o755);
    // No socket for startServer: the hanging tmux must not be waited on to attach.
    const server = await startServer(null, {
      denoFlags: [`--allow-run=${script}`],
      args: [
        ...["--tmux", script, "-S", `${dir}/none.sock`, "--transport", transport],
        ...["--wait-max-seconds", "1"],
      ],
    });
    try {
      const calls: [string, Record<string, unknown>][] = [
        ["list_sessions", {}],
        ["get_pane_info", { paneId: "%0" }],
        ["capture_pane", { paneId: "%0" }],
        ["wait_for_text", { paneId: "%0", timeoutSeconds: 1 }],
        ["wait_for_channel", { channel: "hang", timeoutSeconds: 1 }],
        ["run_shell_command", { paneId: "%0", command: "true", timeoutSeconds: 1 }],
        ["send_keys", { paneId: "%0", text: "x" }],
      ];
      const started = performance.now();
      const answers = await within(
        BOUND_MS,
        "calls against a hanging tmux",
        Promise.all(calls.map(async ([tool, args]) => {
          const result = await server.client.callTool({ name: tool, arguments: args }, undefined, {
            timeout: BOUND_MS,
          }) as CallToolResult;
          return { tool, result, seconds: (performance.now() - started) / 1000 };
        })),
      );
      faultsInjected += calls.length;
      for (const { tool, result, seconds } of answers) {
        const text = cleanError(tool, result);
        assert(/did not answer|timed? ?out/i.test(text), `${tool}: not a timeout error: ${text}`);
        // tmux round trips are bounded at 10 s; waits at 1 s on top.
        assert(seconds < 30, `${tool} answered after ${seconds} s`);
      }
      // Still serving: the protocol never waits on tmux.
      const { tools } = await within(10_000, "tools/list", server.client.listTools()) as {
        tools: unknown[];
      };
      assert(tools.length > 0);
      console.log(
        `hanging tmux [${transport}]: ${answers.length} calls, clear errors, slowest ${
          Math.max(...answers.map((a) => a.seconds)).toFixed(1)
        } s`,
      );
      const pid = server.transport.pid!;
      const left = (await descendants(pid)).filter(({ args }) => args.includes("sleep"));
      assertEquals(left, [], "hung tmux processes were not reaped");
    } finally {
      console.log(`faults injected so far: ${faultsInjected}`);
      await server.client.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`faults: a change tmux did not answer in time says it may still happen [${transport}]`, async () => {
    await using fx = await TmuxFixture.start();
    await using s = await startServer(fx.socketPath, { args: ["--transport", transport] });
    const serverPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
    const pane = await fx.shellPane();
    const mark = `stopped-${crypto.randomUUID().slice(0, 8)}`;
    let stopped = false;
    try {
      Deno.kill(serverPid, "SIGSTOP");
      stopped = true;
      faultsInjected++;
      const call = (name: string, args: Record<string, unknown>) =>
        s.client.callTool({ name, arguments: args }, undefined, { timeout: BOUND_MS }) as Promise<
          CallToolResult
        >;
      const [typed, listed] = await Promise.all([
        call("send_keys", { paneId: pane, text: `echo ${mark}`, enter: true }),
        call("list_sessions", {}),
      ]);
      const text = cleanError("send_keys", typed);
      assertStringIncludes(text, "did not answer");
      assertStringIncludes(text, "may still");
      assertStringIncludes(text, "before retrying");
      // A read that timed out changed nothing: asking again is safe.
      const read = cleanError("list_sessions", listed);
      assertStringIncludes(read, "did not answer");
      assert(!read.includes("may still"), read);
      Deno.kill(serverPid, "SIGCONT");
      stopped = false;
      const screen = () => fx.tmux("capture-pane", "-p", "-t", pane);
      if (transport === "control") {
        await eventually(async () => (await screen()).includes(`\n${mark}`), "the keys arrive");
      }
      console.log(
        `send_keys to a stopped tmux [${transport}]: typed after SIGCONT: ${
          (await screen()).includes(mark)
        }`,
      );
    } finally {
      if (stopped) Deno.kill(serverPid, "SIGCONT");
    }
  });
}

/**
 * Runs `burst` while a one-shot hook runs `action` right after tmux answers
 * the burst's first `list-sessions`: the burst's other commands are then
 * queued on the server's control client or on their way to it, so the kill
 * lands in the middle of them rather than before or after. Resolves with the
 * burst's results.
 */
async function killDuringBurst(
  fx: TmuxFixture,
  action: string,
  burst: () => Promise<CallToolResult[]>,
): Promise<CallToolResult[]> {
  await fx.tmux("set-hook", "-g", "after-list-sessions", `${action} ; set -g @fired 1`);
  return await burst();
}

Deno.test("reads in flight when the control client's session is killed, or the server, still answer", async () => {
  await using fx = await TmuxFixture.start(); // the control client attaches to session "main"
  await using s = await startServer(fx.socketPath);
  const other = await fx.tmux("new-session", "-d", "-s", "work", "-P", "-F", "#{pane_id}");
  // list_sessions first: its list-sessions fires the kill with the rest in flight.
  const calls: [string, Record<string, unknown>][] = [
    ["list_sessions", {}],
    ["get_pane_info", { paneId: other }],
    ["capture_pane", { paneId: other }],
    ["show_option", { name: "history-limit", scope: "Pane", paneId: other }],
  ];
  const reads = (n: number) =>
    Promise.all(Array.from({ length: n }, (_, k) => s.call(calls[k % 4][0], calls[k % 4][1])));
  // Reads change nothing: one the dropped connection lost is asked again.
  const answers = await killDuringBurst(
    fx,
    "kill-session -t main ; set-hook -gu after-list-sessions",
    () => reads(20),
  );
  assertEquals(await fx.tmux("show", "-gv", "@fired"), "1", "the hook fired during the reads");
  assertEquals(await fx.tmux("list-sessions", "-F", "#{session_name}"), "work");
  const failed = answers.filter((r: CallToolResult) => r.isError)
    .map((r: CallToolResult) => JSON.stringify(r.content));
  assertEquals(failed, [], "no read failed");
  // Before the kill: the sessions; after it: none (a list tool reads a missing server as
  // empty), never an error.
  const lists = await killDuringBurst(
    fx,
    "kill-server",
    () => Promise.all(Array.from({ length: 8 }, () => s.call("list_sessions"))),
  );
  for (const list of lists) assert(!list.isError, JSON.stringify(list.content));
  const gone = await fx.tmux("list-sessions").then(() => false, () => true);
  assert(gone, "the hook killed the server during the reads");
});
