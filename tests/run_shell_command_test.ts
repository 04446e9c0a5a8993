/**
 * run_shell_command against real tmux, through the server: exit statuses,
 * output framing, isolation of the pane's shell, budgets, timeout, history
 * suppression, a new pane's shell still starting, and the same basics in
 * each shell it runs commands in (bash, dash, zsh, fish), a shell replaced
 * since the last run among them.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes, assertWithinBytes } from "./assert.ts";
import { TmuxFixture, withServer } from "./harness.ts";
import { shellQuote, typedInline } from "../domain/shell_frame.ts";
import { type Run, run, setup } from "./run_helpers.ts";

for (const transport of ["control", "process"]) {
  Deno.test(`run_shell_command: statuses, output framing and isolation [${transport}]`, async (t) => {
    await withServer(
      setup({ args: ["--transport", transport] }),
      async (fixture, session, pane) => {
        await t.step("exit statuses 0, 1, 3 and 127", async () => {
          const cases: [string, number][] = [
            ["true", 0],
            ["false", 1],
            ["exit 3", 3],
            ["no_such_command_tmux_mcp", 127],
          ];
          for (const [command, status] of cases) {
            const r = await run(session, pane, command);
            assertEquals(r.outcome, "completed", command);
            assertEquals(r.exitStatus, status, command);
            assertEquals(r.stillRunning, false);
          }
          const missing = await run(session, pane, "no_such_command_tmux_mcp");
          assertStringIncludes(missing.output.lines.join("\n"), "not found");
        });
        await t.step("output with and without a trailing newline, and blank lines", async () => {
          assertEquals((await run(session, pane, "echo hello")).output.lines, ["hello"]);
          assertEquals((await run(session, pane, "printf abc")).output.lines, ["abc"]);
          assertEquals((await run(session, pane, "printf 'a\\n\\nb\\n\\n'")).output.lines, [
            "a",
            "",
            "b",
            "",
          ]);
          assertEquals((await run(session, pane, "true")).output.lines, []);
        });
        await t.step("the pane shows the command and its output, no frame", async () => {
          await fixture.tmux("send-keys", "-t", pane, "-R");
          await fixture.tmux("clear-history", "-t", pane);
          const r = await run(session, pane, "echo '<<tmux-mcp:x:end>>'; echo after");
          assertEquals(r.output.lines, ["<<tmux-mcp:x:end>>", "after"]);
          const shown = (await fixture.tmux("capture-pane", "-p", "-J", "-t", pane)).trimEnd();
          const [echo, ...rest] = shown.split("\n").filter((line) => line.trim() !== "");
          assertEquals(rest.slice(0, 2), ["<<tmux-mcp:x:end>>", "after"]);
          assert(rest.length <= 3, "then at most the prompt");
          const command = "echo '<<tmux-mcp:x:end>>'; echo after";
          assert(
            echo.length <= "$ ".length + shellQuote(command).length + 60,
            `the echo is the command and at most 60 bytes: ${echo}`,
          );
          assert(!shown.includes("__tmux_mcp"), "no frame code on the screen");
        });
        await t.step("set -e, exit, cd and export stay inside the command", async () => {
          const before = await fixture.tmux(
            "display-message",
            "-p",
            "-t",
            pane,
            "#{pane_current_path}",
          );
          const r = await run(session, pane, "set -e; false; echo unreachable");
          assertEquals([r.exitStatus, r.output.lines], [1, []]);
          const cd = await run(session, pane, "cd /tmp && pwd && export TMUX_MCP_LEAK=1");
          assertEquals(cd.output.lines, ["/tmp"]);
          assertEquals(
            await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_current_path}"),
            before,
          );
          const after = await run(session, pane, 'echo "${TMUX_MCP_LEAK:-unset}"; pwd');
          assertEquals(after.output.lines, ["unset", before]);
          // The shell survived `exit 3` earlier and still answers.
          assertEquals((await run(session, pane, "echo alive")).output.lines, ["alive"]);
        });
        await t.step("quotes, a trailing comment, a here-document, several lines", async () => {
          const quotes = await run(
            session,
            pane,
            `echo "double \\"q\\"" 'single' \`echo back\` $((1+2)) # a comment`,
          );
          assertEquals(quotes.output.lines, ['double "q" single back 3']);
          const heredoc = await run(
            session,
            pane,
            "cat <<'EOF'\nliteral $HOME `x` \"q\" 'q' \\ #{pane_id}\nEOF\ncat <<EOF\nexpanded $((2*3))\nEOF",
          );
          assertEquals(heredoc.output.lines, [
            "literal $HOME `x` \"q\" 'q' \\ #{pane_id}",
            "expanded 6",
          ]);
          const tabs = await run(session, pane, "printf '%s\\n' one\nprintf '%s\\n' two");
          assertEquals(tabs.output.lines, ["one", "two"]);
        });
        await t.step("a 200-line command (carried through a pane option)", async () => {
          const lines = Array.from(
            { length: 200 },
            (_, i) => `echo "line ${i + 1} of the long command"`,
          );
          const command = lines.join("\n");
          assert(!typedInline(command), "the command must ride in the body");
          const r = await run(session, pane, command, { maxLines: 1000 });
          assertEquals(r.exitStatus, 0);
          assertEquals(r.output.lines.length, 200);
          assertEquals(r.output.lines[199], "line 200 of the long command");
          const options = await fixture.tmux("show-options", "-p", "-t", pane);
          assert(!options.includes("@tmux_mcp_"), `run options left behind: ${options}`);
          const buffers = await fixture.tmux("list-buffers", "-F", "#{buffer_name}");
          assertEquals(buffers, "", "no buffer left behind");
        });
      },
    );
  });
}

Deno.test("run_shell_command: 1 MB of output is budgeted, newest lines kept", async () => {
  await withServer(setup({ history: 20_000 }), async (_fixture, session, pane) => {
    // 10,000 lines of 100 bytes: 1 MB, all inside the pane's history.
    const r = await run(
      session,
      pane,
      "i=0; while [ $i -lt 10000 ]; do i=$((i+1)); printf '%099d\\n' $i; done",
      {
        maxLines: 100_000,
        timeoutSeconds: 120,
      },
    );
    assertEquals([r.outcome, r.exitStatus], ["completed", 0]);
    assert(r.output.truncated, "1 MB must not fit the byte budget");
    assert(r.output.droppedLines > 8000, `droppedLines ${r.output.droppedLines}`);
    assertEquals(r.output.lines.at(-1), "10000".padStart(99, "0"));
    assertEquals(r.output.lines.length + r.output.droppedLines, 10_000);
    assertWithinBytes(r, 128_000);

    const few = await run(session, pane, "seq 1 100", { maxLines: 10 });
    assertEquals(few.output.lines, Array.from({ length: 10 }, (_, i) => String(91 + i)));
    assertEquals([few.output.droppedLines, few.output.truncated], [90, true]);
  });
});

Deno.test("run_shell_command: output larger than the pane's history keeps the newest part", async () => {
  await withServer(setup({ history: 1000 }), async (_fixture, session, pane) => {
    const r = await run(session, pane, "seq 1 5000", { maxLines: 50 });
    assertEquals([r.outcome, r.exitStatus, r.outputIncomplete], ["completed", 0, true]);
    assertEquals(r.output.lines.at(-1), "5000");
    assertEquals(r.output.lines.length, 50);
    assert(r.output.truncated);
  });
});

Deno.test("run_shell_command: timeout leaves the command running; the pane takes the next one after it ends", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    const slow = await run(session, pane, "echo waiting; tmux wait-for gate-a; echo released", {
      timeoutSeconds: 1,
    });
    assertEquals([slow.outcome, slow.stillRunning, slow.exitStatus], ["timed_out", true, null]);
    assertEquals(slow.effectiveTimeoutSeconds, 1);
    assertEquals(slow.output.lines, ["waiting"]);

    const refused = await session.fails("run_shell_command", {
      paneId: pane,
      command: "echo next",
    });
    assertStringIncludes(refused, "is busy");
    assertStringIncludes(refused, "C-c");

    // The earlier command ends on its own: the next run goes ahead.
    await fixture.tmux("wait-for", "-S", "gate-a");
    const next = await run(session, pane, "echo next");
    assertEquals([next.outcome, next.exitStatus, next.output.lines], ["completed", 0, ["next"]]);

    // Interrupted with C-c instead: the frame still records the end.
    const stuck = await run(session, pane, "sleep 300", { timeoutSeconds: 1 });
    assertEquals(stuck.outcome, "timed_out");
    await session.ok("send_keys", { paneId: pane, keys: ["C-c"] });
    const again = await run(session, pane, "echo again");
    assertEquals([again.outcome, again.exitStatus, again.output.lines], ["completed", 0, [
      "again",
    ]]);

    // A week is above the wait ceiling and any bound a schema had (a day): clamped, never refused.
    const clamped = await run(session, pane, "true", { timeoutSeconds: 604_800 });
    assertEquals(clamped.effectiveTimeoutSeconds, 30);
  });
});

Deno.test("run_shell_command: suppressHistory keeps the line out of bash history (HISTCONTROL=ignorespace)", async () => {
  const historyPane = (fixture: TmuxFixture) =>
    fixture.tmux(
      "new-window",
      "-P",
      "-F",
      "#{pane_id}",
      "-e",
      `HISTFILE=${fixture.dir}/hist`,
      "-e",
      "HISTCONTROL=ignorespace",
      "bash --norc --noprofile -i",
    );
  await withServer({ pane: historyPane }, async (fixture, session, pane) => {
    await run(session, pane, "echo secret-one");
    await run(session, pane, "echo visible-two", { suppressHistory: false });
    await fixture.runInPane(pane, "history -a");
    const written = await Deno.readTextFile(`${fixture.dir}/hist`);
    assertStringIncludes(written, "visible-two");
    assert(!written.includes("secret-one"), `suppressed line in history: ${written}`);
  });
});

Deno.test("run_shell_command waits for a new pane's shell to finish starting", async () => {
  await withServer({}, async (fx, s) => {
    // A shell whose start-up runs a program first, as a login shell's profile does.
    const pane = await fx.windowPane("sleep 0.5; exec bash --norc --noprofile");
    const result = await s.ok("run_shell_command", {
      paneId: pane,
      command: "echo ready",
      timeoutSeconds: 20,
    });
    assertEquals([result.outcome, result.exitStatus, result.output.lines], ["completed", 0, [
      "ready",
    ]]);
  });
});

Deno.test("run_shell_command on fresh windows: each run ends promptly, none waits on start-up", async () => {
  // Start-up files that run a command substitution (as `eval "$(pyenv init -)"`
  // does) keep the shell from its prompt while pane_current_command already
  // says bash: a line typed then waited in the terminal until they ended.
  await withServer({}, async (fx, s) => {
    const rc = `${fx.dir}/rc`;
    await Deno.writeTextFile(rc, "PS1='$ '\nx=$(sleep 0.3)\n");
    for (let i = 0; i < 8; i++) {
      const pane = await fx.windowPane(`bash --rcfile ${rc}`);
      const began = Date.now();
      const r = await s.ok<Run>("run_shell_command", {
        paneId: pane,
        command: 'printf "%s\\n" "$EPOCHREALTIME"',
      });
      const answered = Date.now();
      assertEquals([r.outcome, r.exitStatus], ["completed", 0], `window ${i}`);
      const finished = Number(r.output.lines[0]) * 1000;
      assert(finished - began < 3_000, `window ${i}: started within the start-up`);
      // Generous for a loaded machine; bench/run_bench.ts measures the real figure.
      assert(answered - finished < 1_000, `window ${i}: answered ${answered - finished} ms after`);
      await fx.tmux("kill-pane", "-t", pane);
    }
    // Start-up that does not end: refused after a few seconds, never typed.
    await Deno.writeTextFile(rc, "PS1='$ '\nx=$(tmux wait-for rc-gate)\n");
    const stuck = await fx.windowPane(`bash --rcfile ${rc}`);
    const began = Date.now();
    const refused = await s.fails("run_shell_command", {
      paneId: stuck,
      command: "echo typed",
      timeoutSeconds: 20,
    });
    assertStringIncludes(refused, "not waiting at its prompt");
    assert(Date.now() - began < 10_000, "refused within the grace, not after the timeout");
    await fx.tmux("wait-for", "-S", "rc-gate");
    assert(!(await fx.tmux("capture-pane", "-p", "-t", stuck)).includes("typed"));
  });
});

Deno.test("run_shell_command: works in sh (dash)", async () => {
  await withServer(setup({ shell: "sh" }), async (_fixture, session, pane) => {
    const r = await run(session, pane, 'cd /tmp; echo "in $(pwd)"\nexit 4');
    assertEquals([r.exitStatus, r.output.lines], [4, ["in /tmp"]]);
  });
});

Deno.test("run_shell_command: a shell replaced since the last run gets a line of its own", async () => {
  await withServer(setup(), async (fixture, session, pane) => {
    assertEquals((await run(session, pane, "echo one")).output.lines, ["one"]);
    // The same program with another pid: the last run's frame names the old shell.
    await fixture.tmux("respawn-pane", "-k", "-t", pane, "bash --norc --noprofile");
    assertEquals((await run(session, pane, "echo two")).output.lines, ["two"], "respawned");
    // The same pid with another program: the line is written for another shell.
    await fixture.typeLine(
      pane,
      `exec fish --no-config -C 'function fish_prompt; echo -n "\\$ "; end'`,
    );
    await fixture.untilForeground(pane, "fish");
    const fish = await run(session, pane, "echo three; set -l x 4; echo $x");
    assertEquals([fish.exitStatus, fish.output.lines], [0, ["three", "4"]], "fish");
  });
});

/** The shells run_shell_command runs commands in, each as a pane command without rc files. */
const SHELLS = [
  { name: "bash", command: "bash --norc --noprofile", binary: "bash" },
  { name: "dash", command: "dash", binary: "dash" },
  { name: "zsh", command: "zsh -f", binary: "zsh" },
  {
    name: "fish",
    command: `fish --no-config -C 'function fish_prompt; echo -n "\\$ "; end'`,
    binary: "fish",
  },
];

async function installed(binary: string): Promise<boolean> {
  const found = await new Deno.Command("sh", { args: ["-c", `command -v ${binary}`] }).output();
  return found.code === 0;
}

for (const shell of SHELLS) {
  Deno.test(`run_shell_command in ${shell.name}: status, output, isolation, a short line`, async (t) => {
    if (!(await installed(shell.binary))) {
      console.warn(`skipped: ${shell.name} is not installed (apt-get install ${shell.binary})`);
      return;
    }
    await withServer(
      setup({ shell: `env PS1='$ ' ${shell.command}` }),
      async (fixture, session, pane) => {
        await t.step("exit statuses and output", async () => {
          for (const [command, status] of [["true", 0], ["false", 1], ["exit 3", 3]] as const) {
            assertEquals((await run(session, pane, command)).exitStatus, status, command);
          }
          assertEquals((await run(session, pane, "echo hi")).output.lines, ["hi"]);
          assertEquals((await run(session, pane, "printf abc")).output.lines, ["abc"]);
          const two = await run(session, pane, "echo one\necho 'two  words'");
          assertEquals(two.output.lines, ["one", "two  words"]);
          // Carried in the body as octal escapes: it must stay printable ASCII.
          const utf = await run(session, pane, "printf '%s\\n' 'é 100% a\\b ü'\necho end");
          assertEquals(utf.output.lines, ["é 100% a\\b ü", "end"]);
        });
        await t.step("cd stays inside the command", async () => {
          const before = await run(session, pane, "pwd");
          assertEquals([before.outcome, before.output.lines.length], ["completed", 1]);
          assertEquals((await run(session, pane, "cd /; pwd")).output.lines, ["/"]);
          assertEquals((await run(session, pane, "pwd")).output.lines, before.output.lines);
        });
        await t.step("the typed line is the command and at most 60 bytes", async () => {
          const command = "echo short-line";
          await run(session, pane, command);
          const shown = (await fixture.tmux("capture-pane", "-p", "-J", "-t", pane)).split("\n");
          const echo = shown.findLast((line) => line.includes(command))!;
          const typed = echo.slice(echo.indexOf("$ ") + 2).trim();
          assert(typed.length <= command.length + 60, `${typed.length - command.length} bytes`);
          assert(!shown.some((line) => line.includes("__tmux_mcp")), "no frame on the screen");
        });
        await t.step("C-c ends a command that timed out; the pane takes the next run", async () => {
          // In a loop: the next look may see the frame's sh still in the
          // foreground, and the line must then not be typed in sh's syntax.
          for (let i = 0; i < 3; i++) {
            const slow = await run(session, pane, "sleep 300", { timeoutSeconds: 1 });
            assertEquals(slow.outcome, "timed_out");
            await session.ok("send_keys", { paneId: pane, keys: ["C-c"] });
            const next = await run(session, pane, "echo next", { timeoutSeconds: 5 });
            // outputIncomplete tells the frame's rows from the screen read after the end.
            assertEquals(
              [next.exitStatus, next.output.lines, next.outputIncomplete],
              [0, ["next"], false],
              `round ${i}`,
            );
          }
        });
      },
    );
  });
}

for (const transport of ["control", "process"]) {
  Deno.test(`run_shell_command: a person's hook that prints leaves the result alone [${transport}]`, async () => {
    await withServer(
      setup({ args: ["--transport", transport] }),
      async (fixture, session, pane) => {
        // tmux prints a hook's output to the client whose command ran it:
        // here the server's own (the run's waiter, a round trip's process).
        await fixture.tmux("set-hook", "-g", "after-set-option", "display-message -p hooked");
        const r = await run(session, pane, "echo hi");
        assertEquals([r.outcome, r.exitStatus, r.output.lines], ["completed", 0, ["hi"]]);
        assertEquals((await run(session, pane, "printf 'a\\nb'")).output.lines, ["a", "b"]);
      },
    );
  });
}
