/**
 * `deno task try`: a ten-second guided run for a newcomer. Starts the server
 * over stdio as an MCP client would, on a private tmux socket in a fresh
 * temporary directory, creates a session, runs `echo hello` (with
 * `run_shell_command` when the server offers it, else by typing it and
 * reading the pane with `capture_pane`), prints every call and its answer,
 * and cleans up: the client, the server, that tmux server and the directory.
 * Your own tmux is never touched.
 *
 * @module
 */

import { serverArgv, type Session, startServer, TmuxFixture } from "./harness.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const started = performance.now();

function say(line = ""): void {
  console.log(line);
}

/** Prints a value as indented JSON, long text arrays shortened to their last lines. */
function show(prefix: string, value: unknown): void {
  const shortened = JSON.stringify(
    value,
    (
      _key,
      v,
    ) => (Array.isArray(v) && v.length > 8 && v.every((x) => typeof x === "string")
      ? [`(${v.length - 6} earlier lines not shown)`, ...v.slice(-6)]
      : v),
    2,
  );
  say(shortened.split("\n").map((line, i) => (i === 0 ? prefix : "    ") + line).join("\n"));
}

async function call(
  session: Session,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  show(`  → ${tool} `, args);
  const result = await session.call(tool, args);
  if (result.isError) {
    const text = (result.content[0] as { text?: string } | undefined)?.text ?? "";
    throw new Error(`${tool} answered with an error: ${text}`);
  }
  show("  ← ", result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

async function tour(fixture: TmuxFixture): Promise<void> {
  say(`1. A private tmux socket: ${fixture.socketPath}`);
  say("   (your own tmux server and the default socket are left alone)");
  // Panes run /bin/sh without rc files: a heavy ~/.bashrc must not decide
  // how long a ten-second tour takes.
  await fixture.tmux(
    "start-server",
    ";",
    "set-option",
    "-s",
    "exit-empty",
    "off",
    ";",
    "set-option",
    "-g",
    "default-shell",
    "/bin/sh",
  );
  say("   its panes run /bin/sh, so your shell's start-up files do not slow the tour");
  const command = serverArgv();
  say(`2. Starting the server the way an MCP client does, over stdio:`);
  say(`   ${[...command, "-S", fixture.socketPath].join(" ")}`);
  const session = await startServer(fixture.socketPath);
  try {
    const server = session.client.getServerVersion();
    say(`   initialize answered: ${server?.name} ${server?.version}`);
    say(`   its one line on stderr: ${session.stderr().trim()}`);
    const { tools } = await session.client.listTools();
    const names = tools.map((tool: { name: string }) => tool.name);
    say(`3. tools/list offers ${names.length} tools: ${names.join(", ")}`);

    let paneId: string;
    say("4. A session to work in:");
    if (names.includes("create_session")) {
      const created = await call(session, "create_session", { name: "try" });
      paneId = (created.pane as { paneId: string }).paneId;
    } else {
      say("   (this build has no create_session yet; creating it with tmux directly)");
      await fixture.tmux("new-session", "-d", "-s", "try", "-x", "100", "-y", "30");
      const listed = await call(session, "list_panes", { session: "try" });
      paneId = (listed.panes as { paneId: string }[])[0].paneId;
    }

    say("5. Running a command in it:");
    if (names.includes("run_shell_command")) {
      const ran = await call(session, "run_shell_command", {
        paneId,
        command: "echo hello",
        timeoutSeconds: 20,
      });
      if (!JSON.stringify(ran.output ?? "").includes("hello")) {
        throw new Error("run_shell_command did not report the output hello");
      }
    } else {
      say("   (this build has no run_shell_command yet; typing `echo hello` with tmux send-keys");
      say("    and reading the pane back with capture_pane)");
      await fixture.runInPane(paneId, "echo hello");
      const captured = await call(session, "capture_pane", { paneId });
      const lines = (captured.content as { lines: string[] }).lines;
      if (!lines.some((line) => line.trim() === "hello")) {
        throw new Error("capture_pane did not show the line hello");
      }
    }
    say(
      `   While a server like this runs, watch it live with: tmux -S ${fixture.socketPath} attach`,
    );
  } finally {
    await session.close();
  }
}

const fixture = await TmuxFixture.empty();
let failed = false;
say("tmux-mcp try: a short guided run.");
say();
try {
  await tour(fixture);
} catch (error) {
  failed = true;
  console.error(`try failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await fixture.close();
  say(
    `6. Cleaned up: server closed, tmux server on the private socket killed, ${fixture.dir} removed.`,
  );
}
say();
say(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
say("Next: check your setup and get client configuration with");
say(`   deno run --quiet -P=server --no-prompt ${ROOT}main.ts --doctor`);
Deno.exit(failed ? 1 : 0);
