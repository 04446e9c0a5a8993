/**
 * run_shell_command against real tmux when the pane is not simply waiting at
 * its shell's prompt: lines refused (a pager, a script or program holding the
 * terminal, a busy shell, synchronize-panes), a pane kept busy by a live run,
 * and runs cut short (cancelled, their frame killed, the pane or the tmux
 * server gone).
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { childProcesses, eventually, type Session, TmuxFixture, withServer } from "./harness.ts";
import { run, setup } from "./run_helpers.ts";

Deno.test("run_shell_command: a typed line the shell never ran leaves the pane free; a script holding the terminal is refused", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const screen = () => fixture.tmux("capture-pane", "-p", "-t", pane);
    // The shell waits for a closing quote: the frame is read as text, never run.
    await fixture.typeLine(pane, "echo 'unterminated");
    await eventually(
      async () => (await screen()).trimEnd().endsWith(">"),
      "the continuation prompt",
    );
    const quoted = await run(session, pane, "echo lost", { timeoutSeconds: 1 });
    assertEquals([quoted.outcome, quoted.stillRunning], ["timed_out", true]);
    await session.ok("send_keys", { paneId: pane, keys: ["C-c"] });
    const afterQuote = await run(session, pane, "echo after-quote");
    assertEquals([afterQuote.outcome, afterQuote.exitStatus, afterQuote.output.lines], [
      "completed",
      0,
      ["after-quote"],
    ], await screen());
    assertEquals(await fixture.tmux("show-options", "-p", "-t", pane), "", "no mark is left");
    // The frame empties the path it set, right after it signalled.
    await eventually(
      async () => (await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_path}")) === "",
      "the frame empties the path it set",
    );

    // vi command mode takes the typed keys as editing commands: the line that
    // reaches the shell is a syntax error.
    await fixture.runInPane(pane, "set -o vi");
    await fixture.tmux("send-keys", "-t", pane, "Escape");
    const garbled = await run(session, pane, "echo lost", { timeoutSeconds: 1 });
    assertEquals([garbled.outcome, garbled.stillRunning], ["timed_out", true]);
    const afterVi = await run(session, pane, "echo after-vi");
    assertEquals([afterVi.outcome, afterVi.output.lines], ["completed", ["after-vi"]]);

    // A script (a shell, so pane_current_command names one) holds the
    // terminal: the line is not typed, and nothing is left to run later.
    await fixture.typeLine(pane, "bash -c 'tmux wait-for -S held; tmux wait-for gate-b; true'");
    await fixture.tmux("wait-for", "held");
    const refused = await session.fails("run_shell_command", { paneId: pane, command: "echo x" });
    assertStringIncludes(refused, "not waiting at its prompt");
    await fixture.tmux("wait-for", "-S", "gate-b");
    const afterLate = await run(session, pane, "echo after-late");
    assertEquals([afterLate.outcome, afterLate.output.lines], ["completed", ["after-late"]]);
    assert(!(await screen()).includes("echo x"), "the refused line was never typed");
  });
});

Deno.test("run_shell_command: a running command that reports its own directory keeps the pane busy", async () => {
  // Shells that report their directory (OSC 7, e.g. a zsh chpwd hook) change
  // the pane's path while the command runs; the run has still begun.
  await withServer(setup(), async (fixture, session, pane) => {
    const slow = await run(
      session,
      pane,
      "printf '\\033]7;%s\\007' file://host/elsewhere; sleep 300",
      { timeoutSeconds: 1 },
    );
    assertEquals([slow.outcome, slow.stillRunning], ["timed_out", true]);
    assertEquals(
      await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_path}"),
      "file://host/elsewhere",
    );
    assertStringIncludes(
      await session.fails("run_shell_command", { paneId: pane, command: "echo x" }),
      "is busy",
    );
    await session.ok("send_keys", { paneId: pane, keys: ["C-c"] });
    const next = await run(session, pane, "echo free");
    assertEquals([next.outcome, next.output.lines], ["completed", ["free"]]);
  });
});

Deno.test("run_shell_command: a run whose frame was killed (kill -9) leaves the pane free; a live one keeps it busy", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const kill = async (target: string) => {
      const out = await new Deno.Command("kill", { args: ["-KILL", "--", target] }).output();
      assertEquals(out.code, 0, `kill -KILL ${target}`);
    };
    // The frame alone (its command lives on, orphaned), then the whole job
    // (frame, command and all: its process group).
    for (const victim of ["frame", "job"]) {
      const up = fixture.tmux("wait-for", `up-${victim}`);
      const slow = await run(
        session,
        pane,
        `tmux wait-for -S up-${victim}; tmux wait-for gate-${victim}`,
        { timeoutSeconds: 1 },
      );
      await up;
      assertEquals([slow.outcome, slow.stillRunning], ["timed_out", true], victim);
      assertStringIncludes(
        await session.fails("run_shell_command", { paneId: pane, command: "echo x" }),
        "is busy",
        `${victim}: the live run keeps the pane`,
      );
      // The pane's shell runs the frame as a job of its own: its only child,
      // leader of its process group.
      const shell = Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"));
      const [frame, ...others] = await childProcesses(shell);
      assertEquals(others, [], `${victim}: one child of the shell`);
      await kill(victim === "frame" ? String(frame.pid) : `-${frame.pid}`);
      const next = await run(session, pane, "echo free");
      assertEquals(
        [next.outcome, next.exitStatus, next.output.lines],
        ["completed", 0, ["free"]],
        `${victim}: the pane takes the next run`,
      );
      // The orphaned command of the first round ends with its gate.
      await fixture.tmux("wait-for", "-S", `gate-${victim}`);
    }
    // The frame killed while the call still waits: the run ends there, with
    // the status a shell gives a command killed by SIGKILL (128 + 9), in bash
    // and dash. The frame is the subshell the typed line's subshell runs.
    const dash = await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", "sh");
    for (const [name, target] of [["bash", pane], ["dash", dash]]) {
      const up = fixture.tmux("wait-for", `up-${name}`);
      const call = run(session, target, `tmux wait-for -S up-${name}; exec sleep 300`);
      await up;
      const shell = Number(
        await fixture.tmux("display-message", "-p", "-t", target, "#{pane_pid}"),
      );
      const [line] = await childProcesses(shell);
      const [frame] = await childProcesses(line.pid);
      await kill(String(frame.pid));
      const waited = await call;
      assertEquals(
        [waited.outcome, waited.exitStatus, waited.stillRunning],
        ["completed", 137, false],
        name,
      );
      await kill(`-${line.pid}`);
      // The shell goes on with its own `set -e` rules intact.
      const next = await run(session, target, "set -e; false; echo unreachable");
      assertEquals([next.exitStatus, next.output.lines], [1, []], name);
    }
  });
});

/**
 * Pids of `tmux wait-for` processes whose parent is `parent`, from `ps`
 * (Deno reads /proc only with --allow-all, which the test task does not grant).
 */
async function waitForChildren(parent: number): Promise<number[]> {
  return (await childProcesses(parent))
    .filter((p) => / wait-for /.test(p.args))
    .map((p) => p.pid);
}

/**
 * Starts `sleep 300` framed in `pane` and cancels its call once the server
 * waits on the run's channel; resolves when the client has the rejection.
 */
async function startAndCancel(
  fixture: TmuxFixture,
  session: Session,
  pane: string,
  pid: number,
): Promise<void> {
  const controller = new AbortController();
  const started = fixture.tmux("wait-for", "cancelled-run-started");
  const call = session.client.callTool(
    {
      name: "run_shell_command",
      arguments: { paneId: pane, command: "tmux wait-for -S cancelled-run-started; sleep 300" },
    },
    undefined,
    { signal: controller.signal, timeout: 120_000 },
  ).then(() => false, () => true);
  await started;
  // bash ignores a C-c that meets the signalling tmux client exiting: sleep would run on.
  await fixture.untilRunning(pane, "sleep 300");
  await eventually(async () => (await waitForChildren(pid)).length === 1, "the server waits");
  controller.abort();
  assert(await call, "the cancelled call rejects on the client");
}

Deno.test("run_shell_command: cancelling ends the call; the run's watch ends with the run", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const pid = session.transport.pid;
    assert(pid !== null && pid !== undefined, "server pid");
    await startAndCancel(fixture, session, pane, pid);
    // The server still serves, while the run's watch goes on for a later call.
    await session.ok("list_panes", {});
    assertEquals((await waitForChildren(pid)).length, 1, "the run's watch goes on");
    await fixture.tmux("send-keys", "-t", pane, "C-c");
    await eventually(
      async () => (await waitForChildren(pid)).length === 0,
      "the watch ends with the run",
    );
  });
});

Deno.test("run_shell_command: a retry right after a cancel hears that the earlier run still runs", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const pid = session.transport.pid;
    assert(pid !== null && pid !== undefined, "server pid");
    await startAndCancel(fixture, session, pane, pid);
    // At once: the cancelled call's clean-up may still be under way.
    const refused = await session.fails("run_shell_command", {
      paneId: pane,
      command: "echo next",
    });
    assertStringIncludes(refused, "an earlier run_shell_command");
    assertStringIncludes(refused, "is still running");
    await fixture.tmux("send-keys", "-t", pane, "C-c");
    const next = await run(session, pane, "echo next");
    assertEquals([next.outcome, next.exitStatus, next.output.lines], ["completed", 0, ["next"]]);
  });
});

Deno.test("run_shell_command: the status of a cancelled run that ends while the next run checks the pane is not left behind", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const pid = session.transport.pid;
    assert(pid !== null && pid !== undefined, "server pid");
    await startAndCancel(fixture, session, pane, pid);
    // The next run looks while the cancelled run still runs (its shell is
    // not at its prompt), and looks again for a while: C-c ends the run then.
    const looked = fixture.tmux("wait-for", "looked");
    // A look sets the frame's body before tmux checks the shell.
    await fixture.tmux(
      "set-hook",
      "-g",
      "after-set-option",
      "if -F '#{m:*@tmux_mcp_body_*,#{hook_arguments}}' 'wait-for -S looked'",
    );
    const next = run(session, pane, "echo next");
    await looked;
    await fixture.tmux("set-hook", "-gu", "after-set-option");
    await fixture.tmux("send-keys", "-t", pane, "C-c");
    const done = await next;
    assertEquals([done.outcome, done.exitStatus, done.output.lines], ["completed", 0, ["next"]]);
    const options = await fixture.tmux("show-options", "-p", "-t", pane);
    assertEquals(options.split("\n").filter((line) => line.startsWith("@tmux_mcp_status_")), []);
  });
});

Deno.test("run_shell_command: a pane killed mid-run reports pane_exited", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const started = fixture.tmux("wait-for", "kill-started");
    const call = run(session, pane, "tmux wait-for -S kill-started; tmux wait-for gate-never");
    await started;
    await fixture.tmux("kill-pane", "-t", pane);
    const r = await call;
    assertEquals([r.outcome, r.exitStatus, r.stillRunning], ["pane_exited", null, false]);
  });
});

Deno.test("run_shell_command: a tmux server that exits during the wait is an error", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const started = fixture.tmux("wait-for", "server-started");
    const call = session.call("run_shell_command", {
      paneId: pane,
      command: "tmux wait-for -S server-started; tmux wait-for gate-never",
    });
    await started;
    await fixture.tmux("kill-server");
    const result = await call;
    assert(result.isError, "must fail");
    assertStringIncludes((result.content[0] as { text: string }).text, "tmux server");
  });
});

Deno.test("run_shell_command: refuses panes without a POSIX shell in the foreground", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const cat = await fixture.tmux("new-window", "-P", "-F", "#{pane_id}", "cat");
    // tmux starts it through `sh -c`: until sh has exec'd cat, the pane runs a shell.
    await eventually(
      async () =>
        (await fixture.tmux("display-message", "-p", "-t", cat, "#{pane_current_command}")) ===
          "cat",
      "cat is in the foreground",
    );
    const text = await session.fails("run_shell_command", { paneId: cat, command: "echo x" });
    assertStringIncludes(text, "runs cat in the foreground");
    assertStringIncludes(text, "send_keys");

    const started = fixture.tmux("wait-for", "sleep-started");
    await session.ok("send_keys", {
      paneId: pane,
      text: "tmux wait-for -S sleep-started; exec sleep 300",
      enter: true,
    });
    await started;
    await eventually(
      async () =>
        (await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")) ===
          "sleep",
      "sleep is in the foreground",
    );
    assertStringIncludes(
      await session.fails("run_shell_command", { paneId: pane, command: "echo x" }),
      "runs sleep",
    );
  });
});

for (const transport of ["control", "process"]) {
  Deno.test(`run_shell_command: refuses a pane whose keys synchronize-panes copies into other panes [${transport}]`, async () => {
    await withServer({ args: ["--transport", transport] }, async (fx, s) => {
      const pane = await fx.shellPane();
      const sibling = await fx.tmux("split-window", "-P", "-F", "#{pane_id}", "-t", pane);
      await fx.runInPane(sibling, "cd /");
      const windowId = await fx.tmux("display-message", "-p", "-t", pane, "#{window_id}");
      await s.ok("set_synchronize_panes", { windowId, enabled: true });
      // Typed into every pane of the window, the line would run in the
      // sibling too, and its frame would report to this run's channel.
      const refused = await s.fails("run_shell_command", {
        paneId: pane,
        command: "echo LEAKED-$(pwd)",
      });
      assertStringIncludes(refused, "synchronize-panes");
      assertStringIncludes(refused, "set_synchronize_panes");
      assertEquals(await fx.tmux("show-options", "-p", "-t", pane), "", "no mark is left");
      // Zoomed, the pane's keys reach no hidden pane (tmux copies only to visible ones).
      await fx.tmux("resize-pane", "-Z", "-t", pane);
      const zoomed = await run(s, pane, "echo zoomed");
      assertEquals([zoomed.exitStatus, zoomed.output.lines], [0, ["zoomed"]]);
      await fx.tmux("resize-pane", "-Z", "-t", pane);
      await s.ok("set_synchronize_panes", { windowId, enabled: false });
      await fx.runInPane(sibling, "echo probe");
      await fx.runInPane(pane, "echo probe");
      for (const p of [pane, sibling]) {
        const shown = await fx.tmux("capture-pane", "-p", "-J", "-t", p);
        assert(!shown.includes("LEAKED"), `nothing reached ${p}`);
        if (p === sibling) assert(!shown.includes("__tmux_mcp"), "no frame reached the sibling");
      }
      // Synchronized but alone in its window: nothing is copied, the run goes ahead.
      const lone = await fx.shellPane();
      const loneWindow = await fx.tmux("display-message", "-p", "-t", lone, "#{window_id}");
      await s.ok("set_synchronize_panes", { windowId: loneWindow, enabled: true });
      const r = await run(s, lone, "echo alone");
      assertEquals([r.exitStatus, r.output.lines], [0, ["alone"]]);
    });
  });
}

Deno.test("run_shell_command: refuses when the shell does not read the line (pager, script, busy shell)", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const refused = async (why: string) => {
      const text = await session.fails("run_shell_command", {
        paneId: pane,
        command: "echo TYPED-$((6*7))",
      });
      assertStringIncludes(text, why);
      assert(!(await fixture.tmux("capture-pane", "-p", "-t", pane)).includes("TYPED"), why);
    };
    // A pager on the alternate screen; then one without it (-X), whose
    // pipeline's first process is gone, so pane_current_command says bash.
    for (const [pager, why] of [["less", "alternate screen"], ["less -X", "not waiting"]]) {
      await fixture.typeLine(pane, `seq 1 1000 | ${pager}`);
      await eventually(
        async () => (await fixture.tmux("capture-pane", "-p", "-t", pane)).trimEnd().endsWith(":"),
        `${pager} shows its prompt`,
      );
      await refused(why);
      await fixture.tmux("send-keys", "-t", pane, "q");
      await eventually(
        async () => (await run(session, pane, "true").catch(() => null)) !== null,
        "the shell takes a run again",
      );
    }
    // The shell itself is busy, in a command substitution of a prompt hook:
    // pane_current_command says bash, but the shell would not read the line.
    // The hook says when it is inside the substitution: until then the shell
    // may not even have read the line that sets it.
    await fixture.typeLine(
      pane,
      "PROMPT_COMMAND='x=$(tmux wait-for -S hook-in; tmux wait-for hook-gate)'",
    );
    await fixture.tmux("wait-for", "hook-in");
    await refused("not waiting at its prompt");
    await fixture.tmux("wait-for", "-S", "hook-gate");
    await fixture.runInPane(pane, "PROMPT_COMMAND=");
    const after = await run(session, pane, "echo free");
    assertEquals(after.output.lines, ["free"]);
    // The shell waits for a child in a group of its own that has not taken
    // the terminal (as a job just started has not yet): the terminal would
    // echo the line before any prompt. Refused at once, not timed out.
    await fixture.typeLine(
      pane,
      "set +m; setsid sh -c 'tmux wait-for -S child-in; tmux wait-for child-gate'",
    );
    await fixture.tmux("wait-for", "child-in");
    const waiting = await session.call("run_shell_command", {
      paneId: pane,
      command: "echo TYPED-$((6*7))",
      timeoutSeconds: 1,
    });
    assert(waiting.isError, JSON.stringify(waiting.structuredContent));
    assertStringIncludes(JSON.stringify(waiting.content), "not waiting at its prompt");
    assert(!(await fixture.tmux("capture-pane", "-p", "-t", pane)).includes("TYPED"));
    await fixture.tmux("wait-for", "-S", "child-gate");
    await fixture.runInPane(pane, "set -m");
    assertEquals((await run(session, pane, "echo free")).output.lines, ["free"]);
  });
});
