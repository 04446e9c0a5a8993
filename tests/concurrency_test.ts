/**
 * Concurrency: 50 tool calls in flight at once over one stdio connection —
 * mixed reads, a wait_for_text that a print made after it is armed
 * satisfies, and a run_shell_command in another pane — all answer correctly
 * and within a (generous) failure bound, on both transports.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { ALL_TOOLSETS, serverTest, startServer } from "./harness.ts";
import { readTopology, startTopology, within } from "./hardening.ts";

/** Failure bound of the whole burst; never a synchronisation device. */
const BOUND_MS = 90_000;
const IN_FLIGHT = 50;

type Check = (structured: Record<string, unknown>) => void;

for (const transport of ["control", "process"] as const) {
  Deno.test(`50 calls in flight at once all answer correctly [${transport}]`, async () => {
    await using fx = await startTopology();
    const topo = await readTopology(fx);
    const [waitPane, runPane, readPane] = topo.panes;
    const mark = `mark-${crypto.randomUUID().slice(0, 8)}`;
    await fx.runInPane(readPane, `echo ${mark}`);
    await using session = await startServer(fx.socketPath, { args: ["--transport", transport] });

    let armed!: () => void;
    const armedPromise = new Promise<void>((resolve) => (armed = resolve));
    const waitToken = `WAITED-${crypto.randomUUID().slice(0, 6)}`;
    const runToken = `RAN-${crypto.randomUUID().slice(0, 6)}`;

    const calls: { name: string; args: Record<string, unknown>; check: Check }[] = [];
    const reads: { name: string; args: Record<string, unknown>; check: Check }[] = [
      {
        name: "list_sessions",
        args: {},
        check: (r) => {
          const names = (r.sessions as { name: string }[]).map((x) => x.name).sort();
          assertEquals(names, ["alpha", "beta"]);
        },
      },
      {
        name: "list_panes",
        args: {},
        check: (r) => assertEquals((r.panes as unknown[]).length, topo.panes.length),
      },
      {
        name: "get_pane_info",
        args: { paneId: readPane },
        check: (r) => assertEquals((r.pane as { paneId: string }).paneId, readPane),
      },
      {
        name: "capture_pane",
        args: { paneId: readPane },
        check: (r) =>
          assertStringIncludes((r.content as { lines: string[] }).lines.join("\n"), mark),
      },
      {
        name: "snapshot_pane",
        args: { paneId: readPane },
        check: (r) =>
          assertStringIncludes((r.content as { lines: string[] }).lines.join("\n"), mark),
      },
      {
        name: "search_panes",
        args: { pattern: mark, literal: true },
        check: (r) => {
          const panes = (r.panes as { paneId: string }[]).map((p) => p.paneId);
          assert(panes.includes(readPane), `search found ${mark} in ${panes.join(",")}`);
        },
      },
      {
        name: "get_window_info",
        args: { windowId: topo.windows[0] },
        check: (r) => assertEquals((r.window as { windowId: string }).windowId, topo.windows[0]),
      },
      {
        name: "get_tmux_variables",
        args: { names: ["pane_id", "session_name"], paneId: readPane },
        check: (r) => assertEquals((r.values as Record<string, string>).pane_id, readPane),
      },
      {
        name: "list_windows",
        args: { session: "beta" },
        check: (r) => assertEquals((r.windows as unknown[]).length, 2),
      },
    ];
    while (calls.length < IN_FLIGHT - 2) calls.push(reads[calls.length % reads.length]);

    const started = performance.now();
    const all: Promise<void>[] = calls.map(async ({ name, args, check }, i) => {
      const result = await session.call(name, args);
      assert(!result.isError, `call ${i} ${name} failed: ${JSON.stringify(result.content)}`);
      check(result.structuredContent as Record<string, unknown>);
    });
    all.push((async () => {
      const result = await session.client.callTool(
        {
          name: "wait_for_text",
          arguments: {
            paneId: waitPane,
            patterns: [waitToken],
            literal: true,
            timeoutSeconds: 60,
          },
        },
        undefined,
        { onprogress: () => armed(), timeout: BOUND_MS },
      ) as CallToolResult;
      assert(!result.isError, `wait_for_text failed: ${JSON.stringify(result.content)}`);
      const r = result.structuredContent as { outcome: string; matchedPattern: string };
      assertEquals(r.outcome, "matched");
    })());
    all.push((async () => {
      const r = await session.ok<
        { outcome: string; exitStatus: number; output: { lines: string[] } }
      >(
        "run_shell_command",
        { paneId: runPane, command: `echo ${runToken}-$((6*7)); (exit 3)` },
      );
      assertEquals(r.outcome, "completed");
      assertEquals(r.exitStatus, 3);
      assertStringIncludes(r.output.lines.join("\n"), `${runToken}-42`);
    })());
    // The print comes only after the wait is armed (its first progress
    // notification), while the other calls are still in flight; the
    // typed line splits the token with quotes, so only the output matches.
    const printed = (async () => {
      await armedPromise;
      const [head, tail] = [waitToken.slice(0, 3), waitToken.slice(3)];
      await fx.runInPane(waitPane, `echo ${head}""${tail}`);
    })();
    await within(BOUND_MS, "50 concurrent calls", Promise.all([...all, printed]));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${IN_FLIGHT} calls in flight [${transport}]: all answered in ${seconds.toFixed(2)} s`,
    );
  });
}

/*
 * tmux 3.3a dereferences a NULL current window when, with a control client
 * attached, a session's current window changes and the session is destroyed
 * in one pass of its loop, before the change is notified (two round trips
 * read together). Parallel tool calls that select a window and kill its
 * session must reach tmux one after the other (tmux/control_client.ts).
 */
serverTest(
  "parallel select_window and kill_session calls do not crash tmux",
  async (fx, s) => {
    for (let round = 0; round < 5; round++) {
      const session = `doomed-${round}`;
      await fx.tmux("new-session", "-d", "-s", session);
      const window = await fx.tmux(
        "new-window",
        "-d",
        "-t",
        `${session}:`,
        "-P",
        "-F",
        "#{window_id}",
      );
      const results = await Promise.all([
        s.call("select_window", { windowId: window }),
        s.call("kill_session", { session }),
        s.call("select_window", { windowId: window }),
      ]);
      // Each call did its work, or came after the kill and found its target gone.
      for (const result of results) {
        if (!result.isError) continue;
        const text = (result.content[0] as { text: string }).text;
        assert(/failed: tmux has no such (window|session)\./.test(text), text);
      }
      assertEquals(
        await fx.tmux("list-sessions", "-F", "#{session_name}"),
        "main",
        `round ${round}`,
      );
    }
  },
  { args: ALL_TOOLSETS },
);
