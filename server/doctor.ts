/**
 * `tmux-mcp --doctor`: checks, before any client starts the server, what it
 * needs (a tmux of 3.2 or newer, the driven socket, the caller's pane, its
 * permissions) and prints ready-to-paste client configuration naming this
 * executable's real path. It never starts a tmux server.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import config from "../deno.json" with { type: "json" };
import { Caller, parseTmuxVariable } from "../tmux/caller.ts";
import { createTransport, isOwnSocket, Tmux } from "../tmux/client.ts";
import { CHILD_ENV_NAMES, readEnv } from "../tmux/environment.ts";
import { isNoServer, TmuxError } from "../tmux/errors.ts";
import { formatOf, int, parseRows, text } from "../tmux/format.ts";
import { type FoundTmux, locateTmux, TMUX_LOCATIONS } from "../tmux/locate.ts";
import { isTestedVersion, TESTED_VERSIONS } from "../tmux/version.ts";
import { isDirectoryPath, missingSocketDirectory } from "../tmux/socket_probe.ts";

import { SETTING_ENV_NAMES, settingFromEnv, type Settings } from "../core/settings.ts";
import { SERVER_NAME, SERVER_VERSION } from "./version.ts";
import { attachCommand } from "./capabilities.ts";
import { shellQuote } from "../domain/shell_frame.ts";
import { counted } from "../core/words.ts";

type Verdict = "ok" | "warn" | "FAIL" | "info";

/** Every environment variable the server reads: settings, caller, child environment. */
export const SERVER_ENV_NAMES: readonly string[] = [
  ...SETTING_ENV_NAMES,
  "TMUX",
  "TMUX_PANE",
  ...CHILD_ENV_NAMES,
];

/** Permissions the server must not have: anything beyond tmux and named variables. */
const FORBIDDEN = ["read", "write", "net", "ffi", "sys"] as const;

const SERVER_FORMAT = {
  socketPath: text("socket_path"),
  pid: int("pid"),
  version: text("version"),
};

/** How an MCP client starts this server: an executable and its arguments. */
export interface Launch {
  /** Absolute path of the executable. */
  command: string;
  /** Arguments after it. */
  args: string[];
}

/**
 * The command a client runs to start this server with `args`: the compiled
 * binary itself, or `deno run` with the start task's flags and the absolute
 * path of main.ts (so it works from any working directory).
 */
export function launchCommand(args: string[]): Launch {
  if (Deno.build.standalone) return { command: Deno.execPath(), args };
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  const [, ...flags] = config.tasks.start.split(/\s+/).filter((part) => part !== "");
  return {
    command: Deno.execPath(),
    args: [...flags.map((flag) => (flag === "main.ts" ? main : flag)), ...args],
  };
}

/** Ready-to-paste configuration for each supported client, as printable lines. */
export function clientConfigs(launch: Launch, env: Record<string, string>): string[] {
  const hasEnv = Object.keys(env).length > 0;
  const entry = { command: launch.command, args: launch.args, ...(hasEnv ? { env } : {}) };
  // Arrays of arguments on one line each keep the snippets short enough to read.
  const json = (value: unknown) =>
    JSON.stringify(value, null, 2)
      .replace(/\[\n\s+([^\]]*?)\n\s+\]/g, (_, inner: string) =>
        `[${inner.split(/,\n\s+/).join(", ")}]`)
      .split("\n");
  const toml = (value: unknown) => JSON.stringify(value);
  const envFlags = Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  return [
    "Claude Code (run in a shell):",
    "  " + ["claude", "mcp", "add", "tmux", ...envFlags, "--", launch.command, ...launch.args]
      .map(shellQuote).join(" "),
    "",
    "Claude Desktop (claude_desktop_config.json; on macOS in ~/Library/Application Support/Claude/):",
    ...json({ mcpServers: { tmux: entry } }).map((line) => "  " + line),
    "",
    "Cursor (~/.cursor/mcp.json, or .cursor/mcp.json in a project):",
    ...json({ mcpServers: { tmux: entry } }).map((line) => "  " + line),
    "",
    "Codex (~/.codex/config.toml):",
    "  [mcp_servers.tmux]",
    `  command = ${toml(launch.command)}`,
    `  args = ${toml(launch.args)}`,
    ...(hasEnv
      ? [`  env = { ${Object.entries(env).map(([k, v]) => `${k} = ${toml(v)}`).join(", ")} }`]
      : []),
    "",
    "VS Code (.vscode/mcp.json in a workspace, or MCP: Open User Configuration):",
    ...json({ servers: { tmux: { type: "stdio", ...entry } } }).map((line) => "  " + line),
    "",
    "Gemini CLI (~/.gemini/settings.json):",
    ...json({ mcpServers: { tmux: entry } }).map((line) => "  " + line),
  ];
}

/**
 * Runs every check, printing one line each through `print`, then the client
 * configuration. `argv` is the command line (its settings are carried into
 * the configuration); `selected` the tools the settings select; `notes` what
 * parsing them changed (a clamped number). Resolves with true when a client
 * could start the server as configured.
 */
export async function runDoctor(
  settings: Settings,
  argv: readonly string[],
  selected: readonly string[],
  print: (line: string) => void,
  notes: readonly string[] = [],
): Promise<boolean> {
  let ready = true;
  const report = (verdict: Verdict, line: string) => {
    if (verdict === "FAIL") ready = false;
    print(`${verdict.padEnd(4)}  ${line}`);
  };
  const kind = Deno.build.standalone ? "compiled binary" : "deno run";
  print(`${SERVER_NAME} ${SERVER_VERSION} doctor (${kind}: ${Deno.execPath()})`);
  print("");

  const found = await checkTmux(settings, report);
  if (found) await checkServer(found, settings, report);
  else report("info", "socket and caller: not checked (no usable tmux)");

  await checkPermissions(found, report);
  // The server would start, but not with the value written: say so here,
  // where the user checks the configuration, not only in a client's log.
  for (const note of notes) report("warn", `setting: ${note}`);
  report(
    selected.length > 0 ? "ok" : "FAIL",
    `tools: ${selected.length} offered (toolsets ${settings.toolsets.join(", ") || "none"}` +
      `${settings.tools.length ? `; plus ${settings.tools.join(", ")}` : ""}` +
      `${settings.excludeTools.length ? `; minus ${settings.excludeTools.join(", ")}` : ""})`,
  );

  printConfiguration(argv, ready, print);
  return ready;
}

/** Reports the tmux the settings find; null when there is none to use. */
async function checkTmux(settings: Settings, report: Report): Promise<FoundTmux | null> {
  try {
    const found = await locateTmux(settings.tmuxBinary, settings.tmuxSetting);
    const tested = isTestedVersion(found.version);
    report(
      tested ? "ok" : "warn",
      `tmux: ${found.binary.includes("/") ? found.binary : `${found.binary} on PATH`} ` +
        `(${found.version}; ${
          tested ? "a version the test suite runs on" : "the test suite runs on " +
            TESTED_VERSIONS.join(", ") + ": this one may work, untested"
        })`,
    );
    if (!found.binary.includes("/")) await checkWithoutPath(report);
    return found;
  } catch (error) {
    if (!(error instanceof TmuxError)) throw error;
    report("FAIL", `tmux: ${error.message.replace(/\.$/, "")}. ${error.hint}`);
    return null;
  }
}

/** Prints the client configuration, carrying the settings made with variables here. */
function printConfiguration(
  argv: readonly string[],
  ready: boolean,
  print: (line: string) => void,
): void {
  // A client does not inherit this shell's environment: settings made with
  // variables here must travel in the configuration to take effect there.
  const env: Record<string, string> = {};
  for (const name of SETTING_ENV_NAMES) {
    const value = settingFromEnv(readEnv, name);
    if (value !== undefined) env[name] = value;
  }
  const launch = launchCommand(argv.filter((arg) => arg !== "--doctor"));
  print("");
  print(
    ready
      ? "Ready. Add the server to your MCP client with one of these:"
      : "Not ready: fix the FAIL lines above and run --doctor again. The configuration, for later:",
  );
  print("");
  for (const line of clientConfigs(launch, env)) print(line);
}

/** GUI clients start servers with a minimal PATH: tmux must also be at a baked location. */
async function checkWithoutPath(report: (verdict: Verdict, line: string) => void): Promise<void> {
  for (const location of TMUX_LOCATIONS) {
    try {
      await locateTmux(location);
      report("ok", `tmux without PATH (as GUI clients start servers): ${location}`);
      return;
    } catch (error) {
      if (!(error instanceof TmuxError)) throw error;
    }
  }
  report(
    "warn",
    `tmux without PATH: none of ${TMUX_LOCATIONS.join(", ")} works, so a client started ` +
      "with a minimal PATH will not find tmux; pass --tmux /absolute/path/to/tmux (it must also " +
      "be in the run list of the server permission set in deno.json)",
  );
}

type Report = (verdict: Verdict, line: string) => void;

async function checkServer(found: FoundTmux, settings: Settings, report: Report): Promise<void> {
  const tmux = new Tmux(
    found.binary,
    settings.socket,
    createTransport(found.binary, settings.socket, "process"),
  );
  const attach = attachCommand(settings.socket);
  let state: "running" | "absent" | "failed";
  try {
    state = await checkSocket(tmux, found, settings, report);
  } finally {
    await tmux.close();
  }
  if (state === "failed") return;
  report("info", `watch or join the agent's work: ${attach}`);
  await checkCaller(tmux, state === "running", report);
}

/** Reports the driven socket: a server runs there, none yet, or none can. */
async function checkSocket(
  tmux: Tmux,
  found: FoundTmux,
  settings: Settings,
  report: Report,
): Promise<"running" | "absent" | "failed"> {
  const own = isOwnSocket(settings.socket);
  try {
    // Commands that only read: none of them starts a tmux server.
    const [server, sessions] = await tmux.run([
      ["display-message", "-p", formatOf(SERVER_FORMAT)],
      ["list-sessions", "-F", "."],
    ]);
    const info = parseRows(SERVER_FORMAT, server)[0];
    const count = sessions === "" ? 0 : sessions.split("\n").length;
    report(
      "ok",
      `socket: ${tmux.label}${own ? " (the server's own)" : ""}` +
        `${settings.socket.kind === "name" ? ` at ${info.socketPath}` : ""}: ` +
        `tmux ${info.version} runs there (pid ${info.pid}, ${counted(count, "session")})`,
    );
    return "running";
  } catch (error) {
    if (!isNoServer(error)) {
      if (!(error instanceof TmuxError)) throw error;
      report("FAIL", `socket: ${tmux.label}: ${error.message.replace(/\.$/, "")}. ${error.hint}`);
      return "failed";
    }
    if (!await socketCanStart(tmux, found, settings, report)) return "failed";
    report(
      own ? "ok" : "warn",
      own
        ? `socket: ${tmux.label} (the server's own): not running yet; it is started on demand without your tmux configuration`
        : `socket: ${tmux.label}: no tmux server runs there now; list tools will show nothing until one starts`,
    );
    return "absent";
  }
}

/** With no server running: false (and reported) when none can ever start at the socket path. */
async function socketCanStart(
  tmux: Tmux,
  found: FoundTmux,
  settings: Settings,
  report: Report,
): Promise<boolean> {
  // No server also answers for a path whose directory is missing, where
  // none can ever start: create_session would fail there.
  const dir = settings.socket.kind === "path"
    ? await missingSocketDirectory(found.binary, settings.socket.path)
    : null;
  if (dir !== null) {
    report(
      "FAIL",
      `socket: ${tmux.label}: its directory ${dir} does not exist, so tmux cannot create the ` +
        `socket there; create it (mkdir -p ${shellQuote(dir)}) or choose a socket path in a ` +
        "directory that exists",
    );
    return false;
  }
  if (
    settings.socket.kind === "path" && await isDirectoryPath(found.binary, settings.socket.path)
  ) {
    report(
      "FAIL",
      `socket: ${tmux.label} is a directory, so tmux cannot create its socket there; choose ` +
        `a socket file in it (for example -S ${
          shellQuote(`${settings.socket.path.replace(/\/+$/, "")}/tmux.sock`)
        })`,
    );
    return false;
  }
  return true;
}

/** Reports whether the server runs inside tmux, and whether its pane is on the driven server. */
async function checkCaller(tmux: Tmux, running: boolean, report: Report): Promise<void> {
  const env = { tmux: readEnv("TMUX"), pane: readEnv("TMUX_PANE") };
  if (env.tmux === undefined && env.pane === undefined) {
    report("ok", "caller: not inside tmux; no pane is this server's own");
    return;
  }
  if (env.tmux !== undefined && parseTmuxVariable(env.tmux) === null) {
    report(
      "warn",
      `caller: TMUX is malformed; pane ${
        env.pane ?? "(none)"
      } is treated as possibly the caller and refused as a target`,
    );
    return;
  }
  const pane = running ? await new Caller(env).verifiedPane(tmux) : null;
  if (pane) {
    report(
      "ok",
      `caller: inside tmux, pane ${pane} on the driven server; tools refuse to type into or kill it`,
    );
  } else {
    report(
      "ok",
      `caller: inside tmux (pane ${env.pane ?? "unknown"}) but on ${
        running ? "another tmux server" : "a server that is not the driven one"
      }, so no driven pane is the caller`,
    );
  }
}

async function checkPermissions(
  found: FoundTmux | null,
  report: (verdict: Verdict, line: string) => void,
): Promise<void> {
  const granted = async (descriptor: Deno.PermissionDescriptor) =>
    (await Deno.permissions.query(descriptor)).state === "granted";

  if (await granted({ name: "run" })) {
    report("warn", "permission run: any program (the server needs only tmux; use -P=server)");
  } else if (found) {
    report(
      (await granted({ name: "run", command: found.binary })) ? "ok" : "FAIL",
      `permission run: ${found.binary} allowed, other programs not`,
    );
  } else {
    report("info", "permission run: only the tmux locations of the permission set");
  }

  if (await granted({ name: "env" })) {
    report("warn", "permission env: every variable (the server needs only the ones it names)");
  } else {
    const missing = [];
    for (const variable of SERVER_ENV_NAMES) {
      if (!(await granted({ name: "env", variable }))) missing.push(variable);
    }
    report(
      missing.length ? "warn" : "ok",
      missing.length
        ? `permission env: cannot read ${missing.join(", ")}; those settings are ignored`
        : `permission env: the ${SERVER_ENV_NAMES.length} variables the server reads, no others`,
    );
  }

  const broad = [];
  for (const name of FORBIDDEN) {
    if (await granted({ name })) broad.push(name);
  }
  report(
    broad.length ? "warn" : "ok",
    broad.length
      ? `permission ${
        broad.join(", ")
      }: granted, which the server never needs; run it with -P=server (deno task start) or use the release binary`
      : `permission read, write, net, ffi, sys: not granted (sandboxed)`,
  );
}
