/**
 * Test harness: a private tmux server per test, and the MCP server spawned
 * over stdio exactly as `deno task start` runs it, driven by the SDK client.
 *
 * A test gets its fixture and server from {@link withServer} or
 * {@link serverTest}. One that must ready tmux before its server starts in
 * ways the options do not cover, or needs a second server, holds them with
 * `await using` ({@link TmuxFixture}, {@link Session} and
 * {@link OwnSocketDir} are disposable): everything is closed even when the
 * test fails.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import config from "../deno.json" with { type: "json" };
import type { ToolResults } from "./results.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The argv of `deno task start`, read from deno.json: the one place the flags live. */
export function startCommand(): string[] {
  return config.tasks.start.split(/\s+/).filter((part) => part !== "");
}

/**
 * The start task's argv with main.ts made absolute and `denoFlags` (an extra
 * --allow-run, --v8-flags) put before it: what tests and benchmarks spawn.
 */
export function serverArgv(denoFlags: string[] = []): string[] {
  const argv = startCommand();
  const at = argv.indexOf("main.ts");
  return [...argv.slice(0, at), ...denoFlags, `${ROOT}main.ts`, ...argv.slice(at + 1)];
}

/** The minimal environment a server is spawned with (a client passes little more). */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...extra,
  };
}

/**
 * Spawns the server process itself (no client): `args` after main.ts, stdin
 * and stdout piped, for tests that speak the wire or watch the process.
 */
export function spawnServerProcess(
  args: string[],
  options: { env?: Record<string, string>; stderr?: "piped" | "null" } = {},
): Deno.ChildProcess {
  const [command, ...flags] = serverArgv();
  return new Deno.Command(command, {
    args: [...flags, ...args],
    cwd: ROOT,
    env: serverEnv(options.env),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr ?? "piped",
  }).spawn();
}

/** A server spoken to on the raw wire: bytes in, JSON-RPC answers out by id. */
export interface RawServer {
  /** The server process. */
  child: Deno.ChildProcess;
  /** Writes `text` to stdin, `pieceSize` bytes per write. */
  write(text: string, pieceSize?: number): Promise<void>;
  /** Writes one JSON-RPC message (`jsonrpc` added) as a line. */
  send(message: Record<string, unknown>): Promise<void>;
  /** The answer to request `id` (null: the next answer sent with id null), once it arrives. */
  answer(id: number | string | null): Promise<Record<string, unknown>>;
  /** The MCP handshake as a client makes it: `initialize` (id 1), its answer, `initialized`. */
  initialize(): Promise<void>;
  /** Closes stdin (the client going away) and stops reading stdout. */
  hangUp(): Promise<void>;
}

/** Spawns the server (as {@link spawnServerProcess}) for a test that speaks the wire itself. */
export function rawServer(
  args: string[],
  options: { stderr?: "piped" | "null" } = {},
): RawServer {
  const child = spawnServerProcess(args, options);
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const encoder = new TextEncoder();
  let pending = "";
  const answers = new Map<number | string, Record<string, unknown>>();
  // Answers to messages whose id could not be read (JSON-RPC sends them with id null).
  const unaddressed: Record<string, unknown>[] = [];
  const write = async (text: string, pieceSize = Infinity) => {
    const bytes = encoder.encode(text);
    for (let at = 0; at < bytes.length; at += pieceSize) {
      await writer.write(bytes.subarray(at, Math.min(at + pieceSize, bytes.length)));
    }
  };
  return {
    child,
    write,
    send: (message) => write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"),
    async answer(id) {
      const has = () => id === null ? unaddressed.length > 0 : answers.has(id);
      while (!has()) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`stdout ended before the answer to ${id}`);
        pending += value;
        let at;
        while ((at = pending.indexOf("\n")) >= 0) {
          const message = JSON.parse(pending.slice(0, at));
          pending = pending.slice(at + 1);
          if (typeof message.id === "number" || typeof message.id === "string") {
            answers.set(message.id, message);
          }
          if (message.id === null) unaddressed.push(message);
        }
      }
      return id === null ? unaddressed.shift()! : answers.get(id)!;
    },
    async initialize() {
      await this.send({
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "0" },
        },
      });
      await this.answer(1);
      await this.send({ method: "notifications/initialized" });
    },
    async hangUp() {
      await writer.close();
      await lines.cancel();
    },
  };
}

/**
 * How long a test's own tmux command may take. Only a `wait-for` for a signal
 * that never comes gets near it: the test then fails instead of hanging.
 */
const FIXTURE_TMUX_BOUND_MS = 60_000;

/**
 * Resolves once `check` holds, polled every `paceMs`; fails after `ms` (a
 * failure bound, not a pace).
 */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  ms = 20_000,
  paceMs = 50,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, paceMs));
  }
}

/** Runs tmux against `socketPath`; resolves with stdout, throws with stderr on failure. */
export async function tmuxAt(socketPath: string, ...args: string[]): Promise<string> {
  const bound = AbortSignal.timeout(FIXTURE_TMUX_BOUND_MS);
  const out = await new Deno.Command("tmux", {
    args: ["-S", socketPath, "-f", "/dev/null", ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    signal: bound,
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (bound.aborted) {
    throw new Error(`tmux ${args.join(" ")} did not finish within ${FIXTURE_TMUX_BOUND_MS} ms`);
  }
  if (out.code !== 0) {
    throw new Error(
      `tmux ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
  return stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
}

/** The command every fixture pane runs: bash without rc files, with a plain prompt. */
export const FIXTURE_SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile";

/**
 * The tmux commands that start a fixture server whose panes run
 * {@link FIXTURE_SHELL}; follow them with `";"` and the commands that make
 * its sessions.
 */
export const START_FIXTURE_SERVER = [
  "start-server",
  ";",
  "set-option",
  "-g",
  "default-command",
  FIXTURE_SHELL,
] as const;

/** A private tmux server on a socket in a fresh temporary directory. */
export class TmuxFixture {
  private constructor(readonly dir: string, readonly socketPath: string) {}

  /** Starts a server with one detached session `main` (sized `width`x`height`). */
  static async start(
    options: { session?: string; width?: number; height?: number } = {},
  ): Promise<TmuxFixture> {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-" });
    const fixture = new TmuxFixture(dir, `${dir}/tmux.sock`);
    if (options.session !== "") {
      // Panes run a shell without rc files: a machine's ~/.bashrc (pyenv
      // rehash locks, slow prompts) must not decide whether a test passes.
      await fixture.tmux(
        ...START_FIXTURE_SERVER,
        ";",
        "new-session",
        "-d",
        "-s",
        options.session ?? "main",
        "-x",
        String(options.width ?? 100),
        "-y",
        String(options.height ?? 30),
      );
    }
    return fixture;
  }

  /** Creates a fixture directory without starting any tmux server. */
  static async empty(): Promise<TmuxFixture> {
    return await TmuxFixture.start({ session: "" });
  }

  /** Runs a tmux command on this server. */
  tmux(...args: string[]): Promise<string> {
    return tmuxAt(this.socketPath, ...args);
  }

  /** Types `command` and Enter into `pane` and waits until the shell has run it and prompts again. */
  async runInPane(pane: string, command: string): Promise<void> {
    const channel = `t${crypto.randomUUID().slice(0, 8)}`;
    const waiting = this.tmux("wait-for", channel);
    await this.typeLine(pane, `${command}; tmux -S '${this.socketPath}' wait-for -S ${channel}`);
    await waiting;
    // The signal comes before the shell draws its next prompt: wait for the
    // prompt too, or a read right after would race it.
    await eventually(
      async () => (await this.tmux("display-message", "-p", "-t", pane, "#{cursor_x}")) !== "0",
      `the prompt in ${pane} after ${command}`,
    );
  }

  /** Types `line` and Enter into `pane`, without waiting for what it starts. */
  async typeLine(pane: string, line: string): Promise<void> {
    await this.tmux("send-keys", "-t", pane, "-l", line);
    await this.tmux("send-keys", "-t", pane, "Enter");
  }

  /** Resolves once `program` runs in the foreground of `pane` (polled, bounded). */
  async untilForeground(pane: string, program: string): Promise<void> {
    await eventually(
      async () =>
        (await this.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")) ===
          program,
      `${program} runs in ${pane}`,
    );
  }

  /**
   * Resolves once a process whose command line is `args` runs below `pane`'s
   * shell: a run's command is no foreground job of its own, so
   * {@link untilForeground} does not see it.
   */
  async untilRunning(pane: string, args: string): Promise<void> {
    const shell = Number(await this.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"));
    await eventually(
      async () => (await descendants(shell)).some((p) => p.args === args),
      `${args} runs in ${pane}`,
    );
  }

  /** Opens a window in `main` running `command` (else the fixture shell); resolves with its pane. */
  windowPane(command?: string): Promise<string> {
    const args = ["new-window", "-P", "-F", "#{pane_id}", "-t", "main:"];
    return this.tmux(...args, ...(command === undefined ? [] : [command]));
  }

  /** Opens a window in `main` running the fixture shell; resolves with its pane once the shell answers. */
  async shellPane(): Promise<string> {
    const pane = await this.windowPane();
    await this.runInPane(pane, "true");
    return pane;
  }

  /** Kills the server (if any) and removes the directory. */
  async close(): Promise<void> {
    try {
      await this.tmux("kill-server");
    } catch {
      // No server running: nothing to kill.
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }

  /** {@link TmuxFixture.close}, for `await using`: a fixture a test makes besides its own. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * A private TMUX_TMPDIR for tests of the server's own socket (`-L
 * libtmux-mcp`), so the machine's real one is never touched. Disposing kills
 * every own server started under it and removes it.
 */
export class OwnSocketDir {
  private constructor(readonly dir: string) {}

  /** Makes the directory. */
  static async create(): Promise<OwnSocketDir> {
    return new OwnSocketDir(await Deno.makeTempDir({ prefix: "tmux-mcp-own-" }));
  }

  /** Kills the own servers under the directory and removes it. */
  async [Symbol.asyncDispose](): Promise<void> {
    for await (const entry of Deno.readDir(this.dir)) {
      if (!entry.name.startsWith("tmux-")) continue;
      await tmuxAt(`${this.dir}/${entry.name}/libtmux-mcp`, "kill-server").catch(() => {});
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/**
 * A tmux wrapper that logs one line (its arguments) per process started and
 * execs the real tmux: a server given `--tmux <binary>` and
 * `--allow-run=<binary>` in process mode starts one per round trip.
 */
export interface CountingTmux {
  /** The wrapper script's path. */
  binary: string;
  /** The lines logged since the last {@link CountingTmux.reset}, one per process. */
  started(): Promise<string[]>;
  /** Forgets what was logged. */
  reset(): Promise<void>;
}

/** The absolute path of the tmux on PATH, for a wrapper script to exec. */
export async function realTmux(): Promise<string> {
  const found = await new Deno.Command("sh", { args: ["-c", "command -v tmux"], stdout: "piped" })
    .output();
  const real = new TextDecoder().decode(found.stdout).trim();
  if (!real.startsWith("/")) throw new Error("tmux not found on PATH");
  return real;
}

let versionLine: Promise<string> | undefined;

/** The `tmux -V` line of the tmux on PATH (the one every test's server runs), such as `tmux 3.5a`. */
export function tmuxVersion(): Promise<string> {
  versionLine ??= new Deno.Command("tmux", { args: ["-V"], stdout: "piped" }).output()
    .then((out) => new TextDecoder().decode(out.stdout).trim());
  return versionLine;
}

/** Writes a {@link CountingTmux} into `dir`. */
export async function countingTmux(dir: string): Promise<CountingTmux> {
  const real = await realTmux();
  const binary = `${dir}/tmux-counting`;
  const log = `${dir}/tmux-processes`;
  await Deno.writeTextFile(log, "");
  // One line per process, appended in one write: newlines inside arguments become spaces.
  await Deno.writeTextFile(
    binary,
    `#!/bin/sh\nline=$(printf '%s' "$*" | tr '\\n' ' ')\nprintf '%s\\n' "$line" >> '${log}'\n` +
      `exec '${real}' "$@"\n`,
  );
  await Deno.chmod(binary, 0o755);
  return {
    binary,
    started: async () => (await Deno.readTextFile(log)).split("\n").filter((l) => l !== ""),
    reset: () => Deno.writeTextFile(log, ""),
  };
}

/** A running MCP server and its client. */
export interface Session {
  /** The SDK client connected over stdio. */
  client: Client;
  /** The transport (for its pid and stderr). */
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Calls a tool; returns the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool; returns its structuredContent, typed by its output schema; fails on an error. */
  ok<N extends keyof ToolResults>(name: N, args?: Record<string, unknown>): Promise<ToolResults[N]>;
  /** Calls a tool and returns its structuredContent as `T`, failing on an error result. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool and returns its error text, failing on success. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Closes the client and waits for the server to exit; later calls wait for the same close. */
  close(): Promise<void>;
  /** {@link Session.close}, for `await using`: a server a test starts besides its own. */
  [Symbol.asyncDispose](): Promise<void>;
  /** The tmux processes the server started, when it runs tmux through a {@link CountingTmux}. */
  counter?: CountingTmux;
}

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** Extra command-line arguments after main.ts. */
  args?: string[];
  /** Extra Deno flags before main.ts (an --allow-run for a test tmux, --v8-flags for a benchmark). */
  denoFlags?: string[];
  /** Environment variables for the server (on top of a minimal PATH/HOME). */
  env?: Record<string, string>;
}

/**
 * Waits until the server's control client has attached (when the fixture has
 * a session). Tests change the topology as a person would, and tmux 3.3a
 * crashes when a control client is sent a notification while it is still
 * attaching; the server keeps its own commands out of that window, a test
 * must do the same.
 */
async function controlClientAttached(socketPath: string): Promise<void> {
  const sessions = await tmuxAt(socketPath, "list-sessions", "-F", "#{session_id}").catch(() => "");
  if (sessions === "") return;
  // Every server start waits here, so the pace is short: attaching takes a
  // few tens of milliseconds.
  await eventually(
    async () =>
      (await tmuxAt(socketPath, "list-clients", "-F", "#{client_control_mode}:#{client_session}"))
        .split("\n").some((line) => /^1:./.test(line)),
    "the server's control client has attached",
    20_000,
    10,
  );
}

/**
 * Whether a server started with `options` attaches a control client to the
 * fixture's tmux: the control transport (the default, or chosen by flag or
 * environment) with the fixture's own tmux binary (a `--tmux` wrapper may
 * count or refuse processes; such a test does its own waiting).
 */
function attachesControlClient(options: ServerOptions): boolean {
  const args = options.args ?? [];
  const flag = (name: string): string | undefined => {
    const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
    if (at < 0) return undefined;
    return args[at].startsWith(`${name}=`) ? args[at].slice(name.length + 1) : args[at + 1];
  };
  const transport = flag("--transport") ?? options.env?.LIBTMUX_MCP_TRANSPORT ?? "control";
  return transport === "control" && flag("--tmux") === undefined;
}

/** Spawns the server with the shipped flags against `socketPath` and connects a client. */
export async function startServer(
  socketPath: string | null,
  options: ServerOptions = {},
): Promise<Session> {
  const [command, ...flags] = serverArgv(options.denoFlags);
  const socketArgs = socketPath ? ["-S", socketPath] : [];
  const transport = new StdioClientTransport({
    command,
    args: [...flags, ...socketArgs, ...(options.args ?? [])],
    cwd: ROOT,
    env: serverEnv({ DENO_DIR: Deno.env.get("DENO_DIR") ?? "", ...options.env }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "tmux-mcp-tests", version: "0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the server did not start: ${error}\n${stderr}`);
  }
  if (socketPath && attachesControlClient(options)) await controlClientAttached(socketPath);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    await client.callTool({ name, arguments: args }) as CallToolResult;
  // Once: a test may close its server mid-test, and disposal closes it again.
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= client.close());
  return {
    client,
    transport,
    stderr: () => stderr,
    call,
    async ok(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (result.isError) {
        throw new Error(`${name} failed unexpectedly: ${JSON.stringify(result.content)}`);
      }
      return result.structuredContent as never;
    },
    async fails(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (!result.isError) {
        throw new Error(
          `${name} succeeded unexpectedly: ${JSON.stringify(result.structuredContent)}`,
        );
      }
      if (result.structuredContent !== undefined) {
        throw new Error(`${name} error carried structuredContent`);
      }
      return (result.content[0] as { text: string }).text;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Starts a second server on `socketPath` at the budget an over-budget
 * refusal names (`error`'s "needs at least N"), runs `body` with it and N,
 * and closes it: the named budget must return the whole result. Fails when
 * the refusal names no budget.
 */
export async function atNamedBudget(
  socketPath: string,
  error: string,
  body: (wider: Session, budget: number) => Promise<void>,
): Promise<void> {
  const needed = /needs at least (\d+)/.exec(error)?.[1];
  if (needed === undefined) throw new Error(`the needed budget is named: ${error}`);
  const wider = await startServer(socketPath, { args: ["--max-bytes", needed] });
  try {
    await body(wider, Number(needed));
  } finally {
    await wider.close();
  }
}

/** Sessions (by name) that the server's pane-watching clients are attached to, one entry per client. */
export async function watchedSessions(fx: TmuxFixture, session: Session): Promise<string[]> {
  const watchers = new Set(
    (await childProcesses(session.transport.pid!))
      .filter((p) =>
        p.args.includes(fx.socketPath) && p.args.includes("-f ignore-size,read-only -t")
      )
      .map((p) => String(p.pid)),
  );
  return (await fx.tmux("list-clients", "-F", "#{client_pid} #{session_name}")).split("\n")
    .map((line) => line.split(" ")).filter(([pid]) => watchers.has(pid)).map(([, name]) => name)
    .sort();
}

/**
 * Runs `body` with process `pid` stopped (SIGSTOP), and lets it run on
 * (SIGCONT) afterwards, even when `body` throws.
 */
export async function whileStopped(pid: number, body: () => Promise<void>): Promise<void> {
  Deno.kill(pid, "SIGSTOP");
  try {
    await body();
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
}

/** A row of the process table. */
export interface ProcessRow {
  /** Process id. */
  pid: number;
  /** Parent process id. */
  ppid: number;
  /** The command line, arguments joined by spaces. */
  args: string;
}

/**
 * The process table, read with `ps` (Deno lets only --allow-all read
 * /proc/<pid>, which the test task does not grant).
 */
export async function processTable(): Promise<ProcessRow[]> {
  const out = await new Deno.Command("ps", {
    args: ["-A", "-ww", "-o", "pid=,ppid=,args="],
    stdout: "piped",
  })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").flatMap((line) => {
    const match = line.match(/^\s*(\d+)\s+(\d+)\s+(.*)$/);
    return match ? [{ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] }] : [];
  });
}

/** Every living or unreaped descendant of `root` (not `root` itself). */
export async function descendants(root: number): Promise<ProcessRow[]> {
  const table = await processTable();
  const parents = new Map(table.map((p) => [p.pid, p.ppid]));
  return table.filter((p) => {
    for (let at = parents.get(p.pid); at !== undefined && at > 1; at = parents.get(at)) {
      if (at === root) return true;
    }
    return false;
  });
}

/** The processes whose parent is `parent`. */
export async function childProcesses(parent: number): Promise<ProcessRow[]> {
  return (await processTable()).filter((p) => p.ppid === parent);
}

/** The transports a server can run with. */
export const TRANSPORTS = ["control", "process"] as const;

/** The arguments that switch every toolset on (a `-S` fixture is a user's server: no teardown by default). */
export const ALL_TOOLSETS = ["--toolsets", "inspect,manage,execute,teardown"];

/** Options of {@link withServer} and {@link serverTest}. */
export interface ServerTestOptions {
  /** Extra server arguments. */
  args?: string[];
  /** The server's environment, built from the fixture and its first pane. */
  env?: (fx: TmuxFixture, pane: string) => Record<string, string> | Promise<Record<string, string>>;
  /** The fixture's first window size. */
  fixture?: { width?: number; height?: number };
  /**
   * Readies the fixture before the server starts (options, a pane running a
   * program) and resolves with the pane the body gets; else the first pane.
   */
  pane?: (fx: TmuxFixture) => Promise<string>;
  /**
   * The server runs tmux through a {@link CountingTmux} in the fixture's
   * directory (`--tmux`, and its --allow-run): `s.counter`.
   */
  counted?: boolean;
}

/** The body of a server test: the fixture, the connected server, and the fixture's first pane. */
export type ServerTestBody = (fx: TmuxFixture, s: Session, pane: string) => Promise<void>;

/** Runs `body` with a fresh fixture and a server on it, and closes both afterwards. */
export async function withServer(options: ServerTestOptions, body: ServerTestBody): Promise<void> {
  // Disposed in reverse order whether the body passes or throws: the
  // server's client, then the tmux server and its directory.
  await using fx = await TmuxFixture.start(options.fixture);
  const pane = options.pane
    ? await options.pane(fx)
    : (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n")[0];
  const counter = options.counted ? await countingTmux(fx.dir) : undefined;
  await using s = await startServer(fx.socketPath, {
    args: [...(options.args ?? []), ...(counter ? ["--tmux", counter.binary] : [])],
    denoFlags: counter ? [`--allow-run=${counter.binary}`] : undefined,
    env: await options.env?.(fx, pane),
  });
  s.counter = counter;
  await body(fx, s, pane);
}

/** Registers `name` once per transport, each run with its own fixture and server. */
export function serverTest(
  name: string,
  body: ServerTestBody,
  options: ServerTestOptions & { transports?: readonly (typeof TRANSPORTS)[number][] } = {},
): void {
  for (const transport of options.transports ?? TRANSPORTS) {
    Deno.test(
      `${name} [${transport}]`,
      () =>
        withServer({ ...options, args: ["--transport", transport, ...(options.args ?? [])] }, body),
    );
  }
}
