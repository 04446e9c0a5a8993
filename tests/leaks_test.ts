/**
 * Leaks: after a workload of reads, waits (matched, timed out, cancelled),
 * runs (completed, timed out, cancelled), pastes and channel waits, the
 * server has no child process left but its own control client, no process
 * mentions the fixture socket but the tmux server (and what runs in its
 * panes), no buffer it named remains in tmux, and once stdin ends nothing
 * of it remains at all.
 *
 * @module
 */

import { assert, assertEquals } from "./assert.ts";
import {
  countingTmux,
  descendants,
  eventually,
  processTable,
  type Session,
  startServer,
  TmuxFixture,
} from "./harness.ts";
import { readTopology, settled, socketProcesses, startTopology, within } from "./hardening.ts";

const BOUND_MS = 60_000;
/** Failure bound of a wait that must end at once when nothing is left behind. */
const WAITER_BOUND_MS = 10_000;

/** Calls `tool` and aborts the request once `ready` resolves; resolves when the call settled. */
async function cancelAfter(
  s: Session,
  tool: string,
  args: Record<string, unknown>,
  ready: Promise<unknown>,
): Promise<void> {
  const controller = new AbortController();
  const call = s.client.callTool({ name: tool, arguments: args }, undefined, {
    signal: controller.signal,
    timeout: BOUND_MS,
  }).catch(() => undefined);
  await ready;
  controller.abort();
  await call;
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`leaks: nothing of the server remains after a workload [${transport}]`, async () => {
    await using fx = await startTopology();
    await using s = await startServer(fx.socketPath, {
      args: ["--transport", transport, "--wait-max-seconds", "2"],
    });
    const session = s;
    const pid = s.transport.pid!;
    const [a, b, c, d] = (await readTopology(fx)).panes;
    const ok = async (tool: string, args: Record<string, unknown>) => {
      const result = await session.call(tool, args);
      assert(!result.isError, `${tool} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    };

    for (let round = 0; round < 3; round++) {
      await Promise.all([
        ok("list_panes", {}),
        ok("capture_pane", { paneId: a, includeHistory: true }),
        ok("snapshot_pane", { paneId: b }),
        ok("search_panes", { pattern: "\\$", includeHistory: true }),
        ok("call_read_tools_batch", {
          operations: [{ tool: "list_sessions" }, {
            tool: "get_pane_info",
            arguments: { paneId: c },
          }],
        }),
        ok("paste_text", { paneId: d, text: `echo pasted-${round}\nexit-not`, enter: false }),
        ok("wait_for_text", { paneId: c, patterns: ["never-there"], timeoutSeconds: 1 }),
        ok("wait_for_channel", { channel: `leak-${round}`, timeoutSeconds: 1 }),
        ok("run_shell_command", { paneId: a, command: `echo run-${round}` }),
      ]);
      // A run that outlives its timeout leaves the command running (in the
      // pane, not in this server); C-c ends it before the next round.
      const slow = await ok("run_shell_command", {
        paneId: b,
        command: "sleep 20",
        timeoutSeconds: 1,
      });
      assertEquals(slow.outcome, "timed_out");
      await ok("send_keys", { paneId: b, keys: ["C-c"] });
      // Collected by its runId, as an agent does: the result it kept goes.
      const ended = await ok("run_shell_command", { paneId: b, runId: slow.runId });
      assertEquals(ended.outcome, "completed");
      await ok("send_keys", { paneId: d, keys: ["C-u"] });
      // A signalled channel: the waiter returns signalled.
      const waiting = session.call("wait_for_channel", {
        channel: `sig-${round}`,
        timeoutSeconds: 2,
      });
      await ok("signal_channel", { channel: `sig-${round}` });
      await waiting;
    }

    // Cancelled calls: each is aborted once its waiter/command is in place.
    const channel = "cancel-me";
    await cancelAfter(
      session,
      "wait_for_channel",
      { channel, timeoutSeconds: 2 },
      settlesTo(pid, ["wait-for", channel]),
    );
    let armed!: () => void;
    const armedPromise = new Promise<void>((resolve) => (armed = resolve));
    const controller = new AbortController();
    const waitCall = session.client.callTool(
      { name: "wait_for_text", arguments: { paneId: c, patterns: ["nope"], timeoutSeconds: 2 } },
      undefined,
      { signal: controller.signal, onprogress: () => armed(), timeout: BOUND_MS },
    ).catch(() => undefined);
    await armedPromise;
    controller.abort();
    await waitCall;
    const started = fx.tmux("wait-for", "run-started");
    await cancelAfter(
      session,
      "run_shell_command",
      { paneId: a, command: "tmux wait-for -S run-started; sleep 20", timeoutSeconds: 2 },
      started,
    );
    // bash ignores a C-c that meets the signalling tmux client exiting: sleep would run on.
    await fx.untilRunning(a, "sleep 20");
    await ok("send_keys", { paneId: a, keys: ["C-c"] });

    // Only the control client may remain a child while the server runs.
    const children = await settled(async () =>
      (await descendants(pid)).filter((p) => !p.args.includes(" -C attach-session "))
    );
    assertEquals(children, [], "child processes left behind");
    const clients = (await descendants(pid)).filter((p) => p.args.includes(" -C attach-session "));
    assert(
      clients.length <= (transport === "control" ? 1 : 0),
      `control clients: ${clients.length}`,
    );

    // The interrupted run's frame drops its body's buffer when it reports,
    // a moment after C-c reaches the shell.
    const buffers = await settled(async () =>
      (await fx.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter(Boolean)
    );
    assertEquals(buffers, [], "tmux buffers left behind");

    // After stdin ends: the server is gone and nothing mentions the socket
    // but the tmux server and the programs in its panes.
    await session.close();
    const tmuxPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
    const left = await settled(async () => {
      const table = await processTable();
      const underTmux = new Set<number>();
      for (const p of table) {
        for (let at = p.ppid; at > 1; at = table.find((q) => q.pid === at)?.ppid ?? 0) {
          if (at === tmuxPid) underTmux.add(p.pid);
        }
      }
      const stray = (await socketProcesses(fx.socketPath, tmuxPid)).filter((p) =>
        !underTmux.has(p.pid)
      );
      const server = table.filter((p) => p.pid === pid || p.ppid === pid);
      return [...stray, ...server];
    });
    assertEquals(left, [], "processes left after the server exited");
  });
}

/** Resolves once a descendant of `pid` mentions every part (polled, bounded). */
function settlesTo(pid: number, parts: string[]): Promise<void> {
  return within(
    BOUND_MS,
    `a child with ${parts.join(" ")}`,
    (async () => {
      while (!(await descendants(pid)).some((p) => parts.every((part) => p.args.includes(part)))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
  );
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`leaks: stdin ending while runs wait leaves no wait-for waiter in tmux [${transport}]`, async () => {
    await using fx = await TmuxFixture.start();
    const panes = [await fx.shellPane(), await fx.shellPane(), await fx.shellPane()];
    // A wrapper (a shell that logs, then execs tmux) makes every tmux
    // process a little slower to reach the server, as a loaded machine
    // does: a release still on its way when the process exits is lost.
    const wrapper = await countingTmux(fx.dir);
    await using s = await startServer(fx.socketPath, {
      args: ["--transport", transport, "--tmux", wrapper.binary],
      denoFlags: [`--allow-run=${wrapper.binary}`],
    });
    const session = s;
    const pid = s.transport.pid!;
    const sock = fx.socketPath;
    const runs = await Promise.all(panes.map(async (pane, i) => {
      const begun = fx.tmux("wait-for", `run-begun-${i}`);
      void session.call("run_shell_command", {
        paneId: pane,
        command:
          `tmux -S '${sock}' wait-for -S run-begun-${i}; tmux -S '${sock}' wait-for run-finish-${i}`,
      }).catch(() => undefined);
      await within(BOUND_MS, "the command began", begun);
      const mark = await fx.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running");
      const id = mark.split(".")[0];
      const channel = `tmux-mcp-run-${id}`;
      // The run's waiter is tmux itself (the wrapper exec'd it), not the wrapper any more.
      await within(
        BOUND_MS,
        `the waiter of ${channel}`,
        eventually(
          async () =>
            (await descendants(pid)).some((p) =>
              p.args.includes(`wait-for -- ${channel}`) && !p.args.includes(wrapper.binary)
            ),
          `the waiter of ${channel} runs tmux`,
        ),
      );
      return { pane, id };
    }));
    // A round trip after the waiters connected: tmux has registered them.
    await fx.tmux("display-message", "-p", "#{pid}");
    // The client goes away while the runs wait on their channels.
    await s.close();
    for (const [i, { pane, id }] of runs.entries()) {
      // The command ends: its frame drops its busy mark, then signals the
      // run's channel, in one command list that tmux runs in one go.
      await fx.tmux("wait-for", "-S", `run-finish-${i}`);
      await eventually(
        async () => (await fx.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running")) === "",
        `run ${i} ended`,
      );
      // A waiter the server killed instead of releasing stays registered in
      // tmux 3.3a and swallowed that signal; without one, tmux kept it for
      // the next waiter, which returns at once.
      await within(
        WAITER_BOUND_MS,
        `the end signal of run ${i} reaches a new waiter (a waiter left in tmux swallowed it)`,
        fx.tmux("wait-for", `tmux-mcp-run-${id}`),
      );
    }
  });
}
