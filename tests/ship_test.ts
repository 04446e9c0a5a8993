/**
 * Shipping: the one permission set every launcher uses (start, compile, the
 * test harness), proof that it is a sandbox, start-up with a minimal PATH or
 * a bad `--tmux`, the commands that never touch tmux, `--doctor`,
 * `deno task try`, and the compiled binary where `deno compile` can run.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import config from "../deno.json" with { type: "json" };
import { SERVER_ENV_NAMES } from "../server/doctor.ts";
import { SETTING_ENV_NAMES } from "../core/settings.ts";
import { TMUX_LOCATIONS } from "../tmux/locate.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { startCommand, startServer, TmuxFixture } from "./harness.ts";
import { smoke } from "./smoke.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
];
const HOST_TARGET = Deno.build.target;
const decoder = new TextDecoder();
const tasks = config.tasks as Record<string, string>;

/** The words of a task that decide permissions: -P, --allow-*, --deny-*, -A, --no-prompt. */
function permissionFlags(task: string): string[] {
  return task.split(/\s+/).filter((word) =>
    /^(-P|--permission-set|--allow-|--deny-|-A$|--no-prompt$|-[RWNESI]$)/.test(word)
  );
}

/** A task's runtime flags: the words after `deno <subcommand>`, less main.ts, --target, --output. */
function runtimeFlags(task: string): string[] {
  const words = task.split(/\s+/).filter((word) => word !== "");
  const flags: string[] = [];
  for (let i = 2; i < words.length; i++) {
    if (words[i] === "--target" || words[i] === "--output") i++;
    else if (words[i] !== "main.ts") flags.push(words[i]);
  }
  return flags;
}

/** The start task's argv with main.ts made absolute (what the harness spawns). */
function startArgv(main = `${ROOT}main.ts`): string[] {
  return startCommand().map((part) => (part === "main.ts" ? main : part));
}

/** The minimal environment a client gives the server, plus Deno's cache location. */
function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/",
  };
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs the start task's command line with `args`, stdin closed; resolves when it exits. */
async function runStart(
  args: string[],
  options: { env?: Record<string, string>; main?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [, ...rest] = startArgv(options.main);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...rest, ...args],
    cwd: options.cwd ?? ROOT,
    clearEnv: true,
    env: clientEnv(options.env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The argv of a running process, seen from outside it. */
async function processArgv(pid: number): Promise<string[]> {
  if (Deno.build.os === "linux") {
    // Deno guards /proc/<pid> behind --allow-all; cat reads it exactly (NUL-separated).
    const out = await new Deno.Command("cat", { args: [`/proc/${pid}/cmdline`] }).output();
    return decoder.decode(out.stdout).replace(/\0$/, "").split("\0");
  }
  // No /proc (macOS): ps prints the arguments joined by spaces.
  const out = await new Deno.Command("ps", { args: ["-ww", "-o", "args=", "-p", String(pid)] })
    .output();
  return decoder.decode(out.stdout).trim().split(" ");
}

/** The first baked tmux location that exists on this machine, if any. */
function firstBakedTmux(): string | null {
  for (const location of TMUX_LOCATIONS) {
    try {
      if (Deno.statSync(location).isFile) return location;
    } catch {
      // Not installed there: try the next location.
    }
  }
  return null;
}

Deno.test("deno.json: the server permission set allows tmux and named variables, nothing else", () => {
  const set = config.permissions.server as Record<string, unknown>;
  assertEquals(Object.keys(set).sort(), ["env", "run"], "kinds of permission in the set");
  assertEquals(set.run, ["tmux", ...TMUX_LOCATIONS], "run: tmux on PATH, then the baked locations");
  const env = set.env as string[];
  assertEquals(new Set(env).size, env.length, "env names are listed once");
  assertEquals([...env].sort(), [...SERVER_ENV_NAMES].sort(), "env: exactly what the server reads");
  // A variable read anywhere in the server but missing from the set would be
  // silently invisible under the sandbox: scan the sources for every name.
  const sources = [
    "main.ts",
    ...["server", "tools", "domain", "core", "tmux"].flatMap((dir) =>
      Array.from(Deno.readDirSync(`${ROOT}${dir}`))
        .filter((entry) => entry.name.endsWith(".ts"))
        .map((entry) => `${dir}/${entry.name}`)
    ),
  ];
  const seen = new Set<string>();
  for (const file of sources) {
    const text = Deno.readTextFileSync(`${ROOT}${file}`);
    const named = [
      ...text.matchAll(/(?:readEnv|Deno\.env\.get)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g),
      ...text.matchAll(/"(LIBTMUX_[A-Z_]+)"/g),
    ].map((match) => match[1]);
    for (const name of named) {
      seen.add(name);
      assert(env.includes(name), `${file} reads ${name}, which the permission set does not allow`);
    }
  }
  assert(seen.has("TMUX") && seen.has("LIBTMUX_SOCKET"), "the scan found the known reads");
});

Deno.test("deno.json: start and every compile task use the one permission set", () => {
  const start = permissionFlags(tasks.start);
  assertEquals(start, ["-P=server", "--no-prompt"], "start task permission flags");
  assert(tasks.start.includes("--quiet"), "start is --quiet: one stderr line at start");
  for (const target of TARGETS) {
    const task = tasks[`compile:${target}`];
    assert(task !== undefined, `task compile:${target} exists`);
    assertEquals(permissionFlags(task), start, `compile:${target} permission flags`);
    assertEquals(runtimeFlags(task), runtimeFlags(tasks.start), `compile:${target} runtime flags`);
    assertStringIncludes(task, `deno compile --quiet `);
    assertStringIncludes(task, ` --target ${target} `);
    assertStringIncludes(task, ` --output dist/tmux-mcp-${target} main.ts`);
    assertStringIncludes(tasks.compile, `deno task compile:${target}`);
  }
});

Deno.test("harness: the spawned server got exactly the start task's flags and runs tmux", async () => {
  await using fixture = await TmuxFixture.start();
  await using session = await startServer(fixture.socketPath);
  const pid = session.transport.pid;
  assert(pid !== null, "the transport knows the server's pid");
  const argv = await processArgv(pid);
  const expected = startArgv();
  assertEquals(
    argv.slice(1),
    [...expected.slice(1), "-S", fixture.socketPath],
    "the server's command line",
  );
  assert(/(^|\/)deno$/.test(argv[0]), `the server runs under deno, got ${argv[0]}`);
  const sessions = await session.ok("list_sessions");
  assertEquals(sessions.sessions.map((s) => s.name), ["main"], "it ran tmux");
  assertEquals(session.stderr().trim().split("\n").length, 1, "one stderr line at start");
});

Deno.test("sandbox: with the server's flags, reading, writing, network and sh are all denied", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-sandbox-" });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    await Deno.writeTextFile(`${dir}/secret.txt`, "secret");
    const probe = `${ROOT}tests/fixtures/sandbox_probe.ts`;
    const result = await runStart(
      [`${dir}/secret.txt`, `${dir}/out`, String(listener.addr.port)],
      { main: probe, env: { SANDBOX_PROBE_SECRET: "x" } },
    );
    assertEquals(result.code, 0, `the probe ran: ${result.stderr}`);
    const rows = result.stdout.trim().split("\n").map((line) =>
      JSON.parse(line) as { attempt: string; outcome: string; detail: string }
    );
    const attempts = rows.map((row) => row.attempt);
    for (
      const required of ["read file", "write file", "connect 127.0.0.1", "run sh", "run /bin/sh"]
    ) {
      assert(attempts.includes(required), `the probe tried: ${required}`);
    }
    for (const row of rows) {
      const expected = row.attempt.startsWith("control:") ? "allowed" : "denied";
      assertEquals(row.outcome, expected, `${row.attempt} (${row.detail})`);
    }
    assertEquals(connections, 0, "no connection reached the listener");
    const left = Array.from(Deno.readDirSync(dir)).map((entry) => entry.name);
    assertEquals(left, ["secret.txt"], "nothing was written");
  } finally {
    listener.close();
    await accepting.catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("start-up with PATH=/nonexistent finds tmux at a baked location", async () => {
  const baked = firstBakedTmux();
  await using fixture = await TmuxFixture.start();
  if (baked === null) {
    const result = await runStart(["-S", fixture.socketPath], { env: { PATH: "/nonexistent" } });
    assertEquals(result.code, 1, "no tmux anywhere: start-up fails");
    assertStringIncludes(result.stderr, "--tmux /path/to/tmux");
    return;
  }
  // As a GUI client does: an absolute command (as --doctor prints it) and
  // a PATH that leads nowhere.
  const [, ...args] = startArgv();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [...args, "-S", fixture.socketPath],
    cwd: ROOT,
    env: clientEnv({ PATH: "/nonexistent" }),
    stderr: "pipe",
  });
  const client = new Client({ name: "tmux-mcp-tests", version: "0" });
  await client.connect(transport);
  try {
    const read = await client.readResource({ uri: "tmux://capabilities" });
    const doc = JSON.parse((read.contents[0] as { text: string }).text);
    assertEquals(doc.tmux.binary, baked, "the tmux binary used");
    const listed = await client.callTool({ name: "list_sessions", arguments: {} });
    const sessions = (listed.structuredContent as { sessions: { name: string }[] }).sessions;
    assertEquals(sessions.map((s) => s.name), ["main"]);
  } finally {
    await client.close();
  }
});

Deno.test("a --tmux outside the permission set: one line naming the fix, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-ship-" });
  try {
    const real = firstBakedTmux();
    // A copy of the real tmux under another path is still refused: the
    // allow-list is of paths, not of programs that look like tmux.
    const paths = ["/nonexistent/tmux", "/bin/sh"];
    if (real) {
      await Deno.symlink(real, `${dir}/tmux`);
      paths.push(`${dir}/tmux`);
    }
    for (const path of paths) {
      const ways: { args: string[]; env: Record<string, string> }[] = [
        { args: ["--tmux", path], env: {} },
      ];
      // The environment variable takes the same path through start-up.
      if (path === paths[0]) ways.push({ args: [], env: { LIBTMUX_TMUX_BIN: path } });
      for (const how of ways) {
        const result = await runStart(["-S", `${dir}/sock`, ...how.args], { env: how.env });
        assertEquals(result.code, 1, `exit status with ${path}`);
        const lines = result.stderr.trim().split("\n");
        assertEquals(lines.length, 1, `one stderr line: ${result.stderr}`);
        assertStringIncludes(lines[0], `tmux-mcp: ${path} is not allowed`);
        assertStringIncludes(lines[0], "must also be allowed by --allow-run");
        assertStringIncludes(lines[0], "permission set in deno.json");
        // The fix names the setting the user wrote, not one they never used.
        const setting = how.args.length > 0 ? "--tmux" : "LIBTMUX_TMUX_BIN";
        assertStringIncludes(lines[0], `A ${setting} path`);
        assertStringIncludes(
          lines[0],
          setting === "--tmux" ? "drop --tmux" : "unset LIBTMUX_TMUX_BIN",
        );
        if (setting !== "--tmux") assert(!lines[0].includes("--tmux"), lines[0]);
        assertEquals(result.stdout, "", "nothing on stdout");
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tmux setting naming an allowed location where no tmux is: the line names that setting", async () => {
  const absent = TMUX_LOCATIONS.find((location) => {
    try {
      Deno.statSync(location);
      return false;
    } catch {
      return true;
    }
  });
  // Every baked location holds a tmux on this machine: nothing to name.
  if (absent === undefined) return;
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-ship-" });
  try {
    for (
      const [how, setting, fix] of [
        [{ args: ["--tmux", absent], env: {} }, "--tmux", "drop --tmux"],
        [
          { args: [], env: { LIBTMUX_TMUX_BIN: absent } },
          "LIBTMUX_TMUX_BIN",
          "unset LIBTMUX_TMUX_BIN",
        ],
      ] as const
    ) {
      const result = await runStart(["-S", `${dir}/sock`, ...how.args], { env: how.env });
      assertEquals(result.code, 1, result.stderr);
      const line = result.stderr.trim();
      assertStringIncludes(line, `tmux was not found (${absent})`);
      assertStringIncludes(line, `Set ${setting} to the path of an installed tmux`);
      assertStringIncludes(line, fix);
      if (setting !== "--tmux") assert(!line.includes("--tmux"), line);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tmux on PATH that answers -V with no tmux version: named as not tmux, not as too old", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-ship-" });
  try {
    await Deno.writeTextFile(`${dir}/tmux`, "#!/bin/sh\necho 'a wrapper, not tmux'\n");
    await Deno.chmod(`${dir}/tmux`, 0o755);
    const env = { PATH: `${dir}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}` };
    for (
      const [args, fix] of [
        [[], "--tmux /path/to/tmux"],
        [["--tmux", "tmux"], "--tmux /path/to/tmux"],
      ] as const
    ) {
      const result = await runStart(["-S", `${dir}/sock`, ...args], { env });
      assertEquals(result.code, 1, result.stderr);
      const line = result.stderr.trim();
      assertStringIncludes(
        line,
        'tmux on PATH is not tmux: asked for its version (-V), it answered "a wrapper, not tmux"',
      );
      assertStringIncludes(line, `Name the real tmux with ${fix}`);
      assert(!line.includes("older than"), line);
    }
    const viaEnv = await runStart(["-S", `${dir}/sock`], {
      env: { ...env, LIBTMUX_TMUX_BIN: "tmux" },
    });
    assertStringIncludes(viaEnv.stderr, "Name the real tmux with LIBTMUX_TMUX_BIN=/path/to/tmux");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--help, --version, --print-capabilities exit 0 without touching tmux", async () => {
  const noTmux = ["--tmux", "/nonexistent/tmux"];
  const help = await runStart(["--help", ...noTmux]);
  assertEquals([help.code, help.stderr], [0, ""], "--help");
  assertStringIncludes(help.stdout, "Usage: tmux-mcp");
  assertStringIncludes(help.stdout, "--doctor");
  // Every variable the settings read is in the help, the Python server's LIBTMUX_SAFETY too.
  for (const name of SETTING_ENV_NAMES) assertStringIncludes(help.stdout, name);
  const version = await runStart(["--version", ...noTmux]);
  assertEquals([version.code, version.stdout, version.stderr], [
    0,
    `tmux-mcp ${config.version}\n`,
    "",
  ]);
  const caps = await runStart(["--print-capabilities", ...noTmux]);
  assertEquals([caps.code, caps.stderr], [0, ""], "--print-capabilities");
  const doc = JSON.parse(caps.stdout);
  assertEquals(doc.server.version, config.version);
  assertEquals(doc.tmux.binary, null, "tmux was not looked up");
});

Deno.test("--help and --version print and exit 0 whatever the LIBTMUX_* variables hold", async () => {
  const bad: Record<string, string>[] = [
    { LIBTMUX_MCP_MAX_LINES: "abc" },
    { LIBTMUX_SAFETY: "bogus" },
    { LIBTMUX_SOCKET: "work", LIBTMUX_SOCKET_PATH: "/tmp/x.sock" },
    { LIBTMUX_TOOLS: "no_such_tool" },
    { LIBTMUX_SOCKET: "bad\u0001name" },
  ];
  for (const env of bad) {
    const help = await runStart(["--help"], { env });
    assertEquals([help.code, help.stderr], [0, ""], `--help with ${JSON.stringify(env)}`);
    assertStringIncludes(help.stdout, "Usage: tmux-mcp");
  }
  const version = await runStart(["--version"], { env: Object.assign({}, ...bad) });
  assertEquals([version.code, version.stdout, version.stderr], [
    0,
    `tmux-mcp ${config.version}\n`,
    "",
  ]);
});

Deno.test("--doctor: ready on a running server, names the caller, prints configs that work", async () => {
  await using fixture = await TmuxFixture.start();
  const [pane, pid] =
    (await fixture.tmux("display-message", "-p", "-t", "main", "#{pane_id} #{pid}"))
      .split(" ");
  const result = await runStart(["--doctor", "-S", fixture.socketPath], {
    env: { TMUX: `${fixture.socketPath},${pid},0`, TMUX_PANE: pane },
  });
  assertEquals(result.code, 0, `doctor exit status: ${result.stdout}${result.stderr}`);
  const out = result.stdout;
  // The version found, and whether the suite runs on it: this run's tmux is one.
  const version = (await new Deno.Command("tmux", { args: ["-V"] }).output()).stdout;
  assertStringIncludes(
    out,
    `ok    tmux: tmux on PATH (${
      new TextDecoder().decode(version).trim()
    }; a version the test suite runs on)`,
  );
  assertStringIncludes(out, `socket: socket ${fixture.socketPath}: tmux 3.`);
  assertStringIncludes(out, "(pid " + pid + ", 1 session)");
  assertStringIncludes(out, `caller: inside tmux, pane ${pane} on the driven server`);
  assertStringIncludes(out, "permission read, write, net, ffi, sys: not granted (sandboxed)");
  assertStringIncludes(out, `permission env: the ${SERVER_ENV_NAMES.length} variables`);
  assertStringIncludes(out, "Ready.");
  for (const client of ["Claude Code", "Claude Desktop", "Cursor", "Codex", "VS Code"]) {
    assertStringIncludes(out, `${client} (`);
  }
  assertStringIncludes(out, `claude mcp add tmux -- ${Deno.execPath()} `);
  // Every JSON snippet parses and names the same command as Codex's TOML.
  const snippets = [...out.matchAll(/^ {2}\{\n[\s\S]*?^ {2}\}$/gm)].map((m) =>
    JSON.parse(m[0]) as Record<string, Record<string, { command: string; args: string[] }>>
  );
  assertEquals(snippets.length, 4, "Claude Desktop, Cursor, VS Code, Gemini CLI");
  // The configuration must start this server from anywhere: take Codex's
  // (JSON-quoted) command and arguments and run them from /.
  const command = JSON.parse(out.match(/^ {2}command = (.*)$/m)![1]) as string;
  const args = JSON.parse(out.match(/^ {2}args = (.*)$/m)![1]) as string[];
  assertEquals(args.slice(-2), ["-S", fixture.socketPath], "the settings travel along");
  for (const snippet of snippets) {
    const entry = (snippet.mcpServers ?? snippet.servers).tmux;
    assertEquals([entry.command, entry.args], [command, args], "JSON and TOML agree");
  }
  const started = await new Deno.Command(command, {
    args: [...args, "--print-capabilities"],
    cwd: "/",
    clearEnv: true,
    env: clientEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(started.code, 0, decoder.decode(started.stderr));
  const doc = JSON.parse(decoder.decode(started.stdout));
  assertEquals(doc.tmux.socket.path, fixture.socketPath, "the pasted command drives that socket");
});

Deno.test("--doctor: no server on the socket is reported, and none is started", async () => {
  await using fixture = await TmuxFixture.empty();
  const result = await runStart(["--doctor", "-S", fixture.socketPath, "--max-bytes", "99"], {
    env: { LIBTMUX_SAFETY: "", LIBTMUX_MCP_MAX_LINES: "80" },
  });
  assertEquals(result.code, 0, result.stdout);
  assertStringIncludes(result.stdout, "no tmux server runs there now");
  // A clamped number is shown where the user checks the setup; it does not stop the server.
  assertStringIncludes(result.stdout, "warn  setting: --max-bytes clamped to 4000");
  // Variables that set something travel into the configuration; empty ones mean unset.
  assertStringIncludes(result.stdout, `"LIBTMUX_MCP_MAX_LINES": "80"`);
  assert(!result.stdout.includes("LIBTMUX_SAFETY"), "an empty variable is no setting");
  assertStringIncludes(result.stdout, "caller: not inside tmux");
  let running = true;
  try {
    await fixture.tmux("list-sessions");
  } catch (error) {
    running = !/no server running|error connecting/.test(String(error));
  }
  assertEquals(running, false, "the doctor did not start a tmux server");
});

Deno.test("--doctor: a socket path in a directory that does not exist, or that is a directory, is not ready (exit 1)", async () => {
  await using fixture = await TmuxFixture.empty();
  const dir = `${fixture.dir}/no such dir`;
  const result = await runStart(["--doctor", "-S", `${dir}/tmux.sock`]);
  assertEquals(result.code, 1, result.stdout);
  assertStringIncludes(
    result.stdout,
    `FAIL  socket: socket ${dir}/tmux.sock: its directory ${dir} does not exist`,
  );
  assertStringIncludes(result.stdout, `create it (mkdir -p '${dir}')`);
  assertStringIncludes(result.stdout, "Not ready");
  // An existing directory with no server in it is only a warning.
  const fine = await runStart(["--doctor", "-S", fixture.socketPath]);
  assertEquals(fine.code, 0, fine.stdout);
  assertStringIncludes(fine.stdout, "no tmux server runs there now");
  // The path itself a directory: tmux can never make a socket of it.
  const directory = await runStart(["--doctor", "-S", fixture.dir]);
  assertEquals(directory.code, 1, directory.stdout);
  assertStringIncludes(
    directory.stdout,
    `FAIL  socket: socket ${fixture.dir} is a directory, so tmux cannot create its socket there`,
  );
  assertStringIncludes(directory.stdout, `-S ${fixture.dir}/tmux.sock`);
});

Deno.test("--doctor: a tmux it may not run makes it not ready (exit 1)", async () => {
  const result = await runStart(["--doctor", "--tmux", "/bin/sh"]);
  assertEquals(result.code, 1, result.stdout);
  assertStringIncludes(result.stdout, "FAIL  tmux: /bin/sh is not allowed");
  assertStringIncludes(result.stdout, "Not ready");
});

Deno.test("deno task try: the guided run works and cleans up after itself", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "try"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  assertEquals(out.code, 0, `try failed:\n${stdout}\n${stderr}`);
  assertStringIncludes(stdout, "hello");
  assertStringIncludes(stdout, "initialize answered: tmux-mcp");
  const socket = stdout.match(/A private tmux socket: (\S+)/)?.[1];
  assert(socket, "try names its private socket");
  const dir = socket.slice(0, socket.lastIndexOf("/"));
  let exists = true;
  try {
    await Deno.stat(dir);
  } catch (error) {
    exists = !(error instanceof Deno.errors.NotFound);
  }
  assertEquals(exists, false, "the temporary directory is removed");
});

// `deno compile` fetches its runtime base (denort) on first use. Try once, at
// load: where it cannot (no internet), the compiled-binary test is ignored
// with the reason printed, never passed vacuously.
const compiled = await (async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-compile-" });
  const output = `${dir}/tmux-mcp-${HOST_TARGET}`;
  const task = tasks[`compile:${HOST_TARGET}`];
  if (!task) return { dir, binary: null, reason: `no compile task for ${HOST_TARGET}` };
  // The task's own words, with the output moved to a temporary directory.
  const words = task.split(/\s+/).slice(1).map((word) =>
    word === `dist/tmux-mcp-${HOST_TARGET}` ? output : word
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: words,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code === 0) return { dir, binary: Deno.realPathSync(output), reason: "" };
  const stderr = decoder.decode(out.stderr);
  if (/dns error|failed to lookup|error sending request|denort/i.test(stderr)) {
    const line = stderr.split("\n").find((l) => /error sending request/.test(l))?.trim() ??
      stderr.trim().split("\n")[0];
    return { dir, binary: null, reason: `deno compile cannot download its runtime here: ${line}` };
  }
  await Deno.remove(dir, { recursive: true });
  throw new Error(`deno compile failed:\n${stderr}`);
})();
if (!compiled.binary) {
  console.log(`ship_test: compiled-binary test ignored: ${compiled.reason}`);
  await Deno.remove(compiled.dir, { recursive: true });
}

Deno.test({
  name: "compiled binary: --version, initialize, tools/list, --doctor shows the baked sandbox",
  ignore: compiled.binary === null,
  async fn() {
    try {
      await smoke(compiled.binary!);
      const size = (await Deno.stat(compiled.binary!)).size;
      console.log(`compiled ${HOST_TARGET}: ${(size / 1024 / 1024).toFixed(1)} MiB`);
    } finally {
      await Deno.remove(compiled.dir, { recursive: true });
    }
  },
});
