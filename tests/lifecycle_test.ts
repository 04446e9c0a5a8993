/** The process rules: one stderr line, clean exit on stdin EOF, start-up failures. */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  descendants,
  eventually,
  processTable,
  rawServer,
  spawnServerProcess,
  startServer,
  TmuxFixture,
} from "./harness.ts";
import { settled, socketProcesses, within } from "./hardening.ts";
import { CATALOG } from "../server/catalog.ts";

const INSPECT_TOOLS = CATALOG.filter((tool) => tool.capability.toolset === "inspect")
  .map((tool) => tool.name);

/** Processes whose command line mentions `needle`. */
async function processesMentioning(needle: string): Promise<string[]> {
  return (await processTable()).filter((p) => p.args.includes(needle)).map((p) =>
    `${p.pid}: ${p.args}`
  );
}

Deno.test("start-up writes one stderr line; stdin EOF exits 0 promptly and leaves no child", async () => {
  await using fx = await TmuxFixture.start();
  const child = spawnServerProcess(["-S", fx.socketPath]);
  const reader = child.stderr.getReader();
  let stderr = "";
  while (!stderr.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr += new TextDecoder().decode(value);
  }
  assertStringIncludes(stderr, "tmux-mcp ");
  assertStringIncludes(stderr, fx.socketPath);
  assertStringIncludes(stderr, "list_panes");
  // The control client attaches lazily or at start; either way it must go with the server.
  const started = performance.now();
  await child.stdin.close();
  const status = await child.status;
  const elapsed = performance.now() - started;
  let rest = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    rest += new TextDecoder().decode(chunk.value);
  }
  await child.stdout.cancel();
  assertEquals(status.code, 0);
  assertEquals((stderr + rest).trim().split("\n").length, 1, "exactly one stderr line");
  // A generous bound for a loaded machine; the contract's one second is measured in bench/.
  assert(elapsed < 10_000, `exit took ${elapsed} ms`);
  const left = (await processesMentioning(fx.socketPath)).filter((p) => !p.includes("new-session"));
  assertEquals(left, [], "no tmux client or wait-for left behind");
});

/**
 * Runs the server with `args`, expecting a start-up failure; returns its
 * stderr. tmux's directory for named sockets does not exist, so a start-up
 * that wrongly succeeds cannot reach (or start) a server on a real socket,
 * the own `libtmux-mcp` one included.
 */
async function startupFailure(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawnServerProcess(args, {
    env: { TMUX_TMPDIR: "/nonexistent-tmux-mcp-test", ...env },
  });
  await child.stdin.close();
  const output = await child.output();
  assertEquals(output.code, 1, "exit status 1");
  const stderr = new TextDecoder().decode(output.stderr).trim();
  assertEquals(stderr.split("\n").length, 1, `one line: ${stderr}`);
  assertEquals(output.stdout.length, 0, "nothing on stdout");
  return stderr;
}

Deno.test("start-up failures print one clear line and exit 1", async () => {
  assertStringIncludes(await startupFailure(["-L", "a", "-S", "/tmp/b"]), "keep one");
  assertStringIncludes(await startupFailure(["--max-lines", "lots"]), "whole number");
  assertStringIncludes(await startupFailure(["--tools", "no_such_tool"]), "valid tools");
  assertStringIncludes(await startupFailure(["--toolsets", "everything"]), "valid toolsets");
  assertStringIncludes(
    await startupFailure([], { LIBTMUX_SOCKET: "bad\u0001name" }),
    "control characters",
  );
  assertStringIncludes(
    await startupFailure([], { LIBTMUX_SAFETY: "readonly", LIBTMUX_TOOLSETS: "inspect" }),
    "LIBTMUX_SAFETY",
  );
  assertStringIncludes(await startupFailure([], { LIBTMUX_SAFETY: "constructor" }), "one of");
  // An empty list (a configuration template's blank) would serve a server with nothing to call.
  assertStringIncludes(await startupFailure(["--toolsets", ","]), "select no tools");
  assertStringIncludes(
    await startupFailure(["--toolsets", "inspect", "--exclude-tools", INSPECT_TOOLS.join(",")]),
    "select no tools",
  );
  // The read batch with nothing it could run would fail every call.
  for (
    const args of [
      ["--toolsets", "manage", "--tools", "call_read_tools_batch"],
      [
        "--toolsets",
        "inspect",
        "--exclude-tools",
        INSPECT_TOOLS.filter((t) => t !== "call_read_tools_batch").join(","),
      ],
    ]
  ) {
    // A socket in no directory: should start-up wrongly succeed, no tmux server can start there.
    const line = await startupFailure([...args, "-S", "/nonexistent-tmux-mcp-test/unused.sock"]);
    assertStringIncludes(line, "call_read_tools_batch runs other selected inspect tools");
    assertStringIncludes(line, "--toolsets inspect");
  }
  const missing = await startupFailure(["--tmux", "/nonexistent/tmux", "-S", "/tmp/unused.sock"]);
  assertStringIncludes(missing, "--tmux");
});

/** Failure bound of one step that must end at once when nothing is left behind. */
const STEP_BOUND_MS = 30_000;

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  Deno.test(`${signal} to the server while a wait and a run are pending leaves nothing behind`, async () => {
    await using fx = await TmuxFixture.start();
    const pane = await fx.shellPane();
    const tmuxPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
    const s = await startServer(fx.socketPath);
    const pid = s.transport.pid!;
    const closed = new Promise<void>((resolve) => (s.client.onclose = resolve));
    void s.call("wait_for_channel", { channel: "never-signalled", timeoutSeconds: 30 })
      .catch(() => undefined);
    const begun = fx.tmux("wait-for", "signal-run-begun");
    // The pane's tmux finds the server through $TMUX: no process names the socket.
    void s.call("run_shell_command", {
      paneId: pane,
      command: "tmux wait-for -S signal-run-begun; tmux wait-for signal-run-finish",
    }).catch(() => undefined);
    await within(STEP_BOUND_MS, "the command began", begun);
    const id = (await fx.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running"))
      .split(".")[0];
    await within(
      STEP_BOUND_MS,
      "both waiters run",
      eventually(async () => {
        const waiters = (await descendants(pid)).map((p) => p.args);
        return waiters.some((a) => a.includes("wait-for -- never-signalled")) &&
          waiters.some((a) => a.includes(`wait-for -- tmux-mcp-run-${id}`));
      }, "both waiters run"),
    );
    // A round trip after the waiters connected: tmux has registered them.
    await fx.tmux("display-message", "-p", "#{pid}");
    Deno.kill(pid, signal);
    await within(STEP_BOUND_MS, "the server exits", closed);
    const left = await settled(async () =>
      (await socketProcesses(fx.socketPath, tmuxPid)).map((p) => `${p.pid}: ${p.args}`)
    );
    assertEquals(left, [], "no tmux wait-for or control client outlives the server");
    // tmux drops a client once it has read the end of its connection.
    const clients = await settled(async () =>
      (await fx.tmux("list-clients")).split("\n").filter((line) => line !== "")
    );
    assertEquals(clients, [], "no control client left in tmux");
    // The run's waiter was released, not killed: tmux keeps a killed waiter
    // registered, and it would swallow the run's end signal.
    await fx.tmux("wait-for", "-S", "signal-run-finish");
    await eventually(
      async () => (await fx.tmux("show-options", "-pqv", "-t", pane, "@tmux_mcp_running")) === "",
      "the run ended",
    );
    await within(
      STEP_BOUND_MS,
      "the run's end signal reaches a new waiter (a waiter left in tmux swallowed it)",
      fx.tmux("wait-for", `tmux-mcp-run-${id}`),
    );
  });
}

Deno.test("the own socket's directory refused by tmux: one line naming TMUX_TMPDIR, not the ids of a call", async () => {
  await using fx = await TmuxFixture.empty();
  // tmux puts -L sockets in $TMUX_TMPDIR/tmux-UID: under a regular file it
  // can never make that directory, so the own server can never start.
  const file = `${fx.dir}/not-a-directory`;
  await Deno.writeTextFile(file, "");
  const line = await startupFailure([], { TMUX_TMPDIR: file });
  assertStringIncludes(line, `its directory ${file}/tmux-`);
  assertStringIncludes(line, "TMUX_TMPDIR");
  assert(!line.includes("ids and values"), line);
});

Deno.test("the server attaches its control client as it starts, before the client initializes", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath], { stderr: "null" });
  // No initialize at all: a client's first calls follow its handshake at once.
  await eventually(
    async () => /^1$/m.test(await fx.tmux("list-clients", "-F", "#{client_control_mode}")),
    "a control client attached",
  );
  await server.hangUp();
  assertEquals((await server.child.status).code, 0);
  assertEquals(await fx.tmux("list-clients"), "", "the control client left with the server");
});
