/**
 * The shell frame run_shell_command types into a pane, without the MCP
 * server: a frame's end against real tmux (its busy mark, a line run by
 * another program than the pane's shell) and its pure parts (the typed line
 * and body, reading the output, status and marks, telling shells apart).
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { TmuxFixture } from "./harness.ts";
import {
  buildFrame,
  fishQuote,
  parseFramedOutput,
  parseFrameStatus,
  parseRunningMark,
  runningMark,
  shellKind,
  shellQuote,
  typedInline,
  widenOutput,
} from "../domain/shell_frame.ts";

/** A POSIX frame of `command` for `pane` of the fixture, its body already in tmux. */
async function stagedFrame(fixture: TmuxFixture, pane: string, owner: string, command: string) {
  const frame = buildFrame({
    paneId: pane,
    tmuxBinary: "tmux",
    socketPath: fixture.socketPath,
    suppressHistory: false,
    owner,
    kind: "posix",
  }, command);
  await fixture.tmux("set-option", "-p", "-t", pane, frame.bodyOption, frame.body);
  return frame;
}

Deno.test("shell frame: its end removes its own busy mark and leaves another run's", async () => {
  await using fixture = await TmuxFixture.start();
  const pane = await fixture.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  const owner = await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_pid}");
  const runFrame = async (mark: (id: string) => string) => {
    const frame = await stagedFrame(fixture, pane, owner, "true");
    await fixture.tmux("set-option", "-p", "-t", pane, "@tmux_mcp_running", mark(frame.id));
    const ended = fixture.tmux("wait-for", frame.channel);
    await fixture.typeLine(pane, frame.line);
    await ended;
    return await fixture.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running");
  };
  // A later run took the pane.
  assertEquals(await runFrame(() => "0badc0de.1"), "0badc0de.1");
  assertEquals(await runFrame((id) => `${id}.1`), "");
});

Deno.test("shell frame: a line run by another program than the pane's shell runs nothing", async () => {
  // As less runs a line given to its `!` command: through `sh -c`.
  await using fixture = await TmuxFixture.start();
  const pane = await fixture.shellPane();
  const owner = await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_pid}");
  const frame = await stagedFrame(fixture, pane, owner, "echo RAN-$((6*7))");
  const ended = fixture.tmux("wait-for", frame.channel);
  await fixture.typeLine(pane, `sh -c ${shellQuote(frame.line)}`);
  await ended;
  const status = await fixture.tmux("show-options", "-pqv", "-t", pane, frame.statusOption);
  assertEquals(parseFrameStatus(status).refused, true);
  assert(!(await fixture.tmux("capture-pane", "-p", "-t", pane)).includes("RAN-42"));
});

Deno.test("shell frame: pure parts", () => {
  const target = {
    paneId: "%7",
    tmuxBinary: "/usr/bin/tmux",
    socketPath: "/tmp/a b/s",
    suppressHistory: true,
    owner: "42",
    kind: "posix" as const,
  };
  const frame = buildFrame(target, "echo hi", "ab12cd");
  assertEquals(frame.line, ` (__m='echo hi';eval "$(tmux show -pvt%7 @tmux_mcp_body_ab12cd)")`);
  assertStringIncludes(frame.body, "'/tmp/a b/s'");
  assert(frame.line.includes(frame.echoMark));
  // The typed line is the command word plus at most 60 bytes.
  for (const command of ["true", "make -j4 test", "x".repeat(2000), "echo 'it''s'"]) {
    for (const kind of ["posix", "fish"] as const) {
      const line = buildFrame({ ...target, kind }, command).line;
      const word = kind === "posix" ? shellQuote(command) : fishQuote(command);
      assert(
        line.length <= word.length + 60,
        `${kind}: ${line.length - word.length} bytes of frame`,
      );
      // deno-lint-ignore no-control-regex
      assert(!/[\x00-\x1f\x7f-\uffff]/.test(line), "one printable ASCII line");
    }
  }
  const plain = buildFrame({ ...target, suppressHistory: false }, "x\n".repeat(3));
  assert(!plain.line.startsWith(" "));
  assertEquals(
    plain.line,
    `(eval "$(tmux show -pvt%7 @tmux_mcp_body_${plain.id})")`,
    "a multi-line command rides in the body",
  );
  assertStringIncludes(plain.body, `__tmux_mcp_c=$(printf 'x\\012x\\012x\\012x')`);
  // deno-lint-ignore no-control-regex
  assert(!/[\x00-\x1f\x7f-\uffff]/.test(plain.body), "the body is printable ASCII");
  const fish = buildFrame({ ...target, kind: "fish" }, "echo 'a\\b'", "ab12cd");
  assertEquals(
    fish.line,
    ` set __m 'echo \\'a\\\\b\\'';eval (tmux show -pvt%7 @tmux_mcp_body_ab12cd)`,
  );
  assert(typedInline("ls -l") && !typedInline("a\nb") && !typedInline("é"));

  // Rows below the cursor and the cursor's empty row are not output.
  const rows = ["$ old", `$  (__m=x;eval "$(${frame.echoMark})")`, "one", "two", "", "", ""];
  assertEquals(parseFramedOutput(rows, { x: 0, y: 4, height: 7 }, frame.echoMark), {
    lines: ["one", "two"],
    startFound: true,
  });
  // An echo that filled its last row exactly is joined with the output's first line.
  const joined = [`$  (__m=x;eval "$(${frame.echoMark}${frame.echoTail}one`, "two", ""];
  assertEquals(
    parseFramedOutput(joined, { x: 0, y: 2, height: 3 }, frame.echoMark, frame.echoTail),
    { lines: ["one", "two"], startFound: true },
  );
  assertEquals(
    parseFramedOutput(["tail", "part", ""], { x: 4, y: 1, height: 3 }, frame.echoMark),
    { lines: ["tail", "part"], startFound: false },
  );
  assertEquals(
    widenOutput(["a", `> ${frame.echoMark}`, "1", "2", "3", "$ "], ["2", "3"], frame.echoMark),
    ["1", "2", "3"],
  );
  assertEquals(widenOutput(["1", "2"], ["2"], frame.echoMark), null);

  assertEquals(parseFrameStatus("3 0 5 24"), {
    exitStatus: 3,
    refused: false,
    end: { x: 0, y: 5, height: 24 },
  });
  assertEquals(parseFrameStatus("137"), { exitStatus: 137, refused: false, end: null });
  assertEquals(parseFrameStatus("refused").refused, true);
  assertEquals(parseFrameStatus("").exitStatus, null);
  const typed = { id: "00ff", owner: "42" };
  assertEquals(runningMark(typed), "00ff.42");
  assertEquals(parseRunningMark('"00ff.42"'), typed);
  assertEquals(parseRunningMark("junk"), null);
  assert(shellKind("-bash") === "posix" && shellKind("/bin/sh") === "posix");
  assert(shellKind("zsh") === "posix" && shellKind("fish") === "fish");
  assert(shellKind("python3") === null && shellKind("vim") === null && shellKind(null) === null);
});
