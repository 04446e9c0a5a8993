/**
 * The settings (README.md#settings): every setting is a flag and an environment
 * variable, the flag wins. Parsing is pure: the environment comes in as a
 * function and problems come back as a {@link SettingsError}.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  isOwnSocket,
  OWN_SOCKET_NAME,
  type SocketChoice,
  type TransportMode,
} from "../tmux/client.ts";
import { defaultToolsets, SAFETY_LEVELS, type Toolset, TOOLSETS } from "./toolsets.ts";

/** The resolved settings of one server process. */
export interface Settings {
  /** The driven tmux server. */
  socket: SocketChoice;
  /** The tmux executable named by the user, or null to search the usual places. */
  tmuxBinary: string | null;
  /** The setting a message tells the user to change to name tmux: the one that named it. */
  tmuxSetting: "--tmux" | "LIBTMUX_TMUX_BIN";
  /** Selected toolsets and where the choice came from. */
  toolsets: Toolset[];
  /** How the toolsets were chosen. */
  toolsetsSource: "default" | "flag" | "env" | "safety";
  /** Tools added after toolsets. */
  tools: string[];
  /** Tools removed last. */
  excludeTools: string[];
  /** Line budget of text results. */
  maxLines: number;
  /** Byte budget of any single result. */
  maxBytes: number;
  /** Ceiling of every wait, in seconds. */
  waitMaxSeconds: number;
  /** How commands reach tmux. */
  transport: TransportMode;
}

/** What the command line asks for. */
export type Action = "serve" | "help" | "version" | "print-capabilities" | "doctor";

/** A setting that stops start-up, with a message fit for one stderr line. */
export class SettingsError extends Error {
  /** `message` says what is wrong and how to fix it. */
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

/** Result of {@link parseSettings}. */
export interface Parsed {
  /** What to do. */
  action: Action;
  /** The settings (also for help/version, with defaults). */
  settings: Settings;
  /** Notes for stderr, such as clamped numbers. */
  notes: string[];
}

/** Every environment variable the settings read. */
export const SETTING_ENV_NAMES = [
  "LIBTMUX_SOCKET",
  "LIBTMUX_SOCKET_PATH",
  "LIBTMUX_TMUX_BIN",
  "LIBTMUX_TOOLSETS",
  "LIBTMUX_TOOLS",
  "LIBTMUX_EXCLUDE_TOOLS",
  "LIBTMUX_MCP_MAX_LINES",
  "LIBTMUX_MCP_MAX_BYTES",
  "LIBTMUX_MCP_WAIT_MAX_SECONDS",
  "LIBTMUX_MCP_TRANSPORT",
  "LIBTMUX_SAFETY",
] as const;

const NUMBERS = {
  "max-lines": { env: "LIBTMUX_MCP_MAX_LINES", fallback: 500, min: 10, max: 100_000 },
  "max-bytes": { env: "LIBTMUX_MCP_MAX_BYTES", fallback: 128_000, min: 4_000, max: 4_000_000 },
  "wait-max-seconds": { env: "LIBTMUX_MCP_WAIT_MAX_SECONDS", fallback: 30, min: 1, max: 600 },
} as const;

/** The usage text of `--help`. */
export const USAGE = `Usage: tmux-mcp [options]

An MCP server (stdio) that lets an AI agent work inside tmux.

Options (each also an environment variable; the flag wins):
  -L, --socket NAME          tmux socket name (LIBTMUX_SOCKET; default libtmux-mcp)
  -S, --socket-path PATH     absolute tmux socket path (LIBTMUX_SOCKET_PATH)
      --tmux PATH            the tmux executable (LIBTMUX_TMUX_BIN)
      --toolsets LIST        inspect,manage,execute,teardown (LIBTMUX_TOOLSETS; or
                             the Python server's LIBTMUX_SAFETY: readonly = inspect,
                             mutating = inspect,manage,execute, destructive = all)
      --tools LIST           tools added after toolsets (LIBTMUX_TOOLS)
      --exclude-tools LIST   tools removed last (LIBTMUX_EXCLUDE_TOOLS)
      --max-lines N          line budget, 10-100000 (LIBTMUX_MCP_MAX_LINES; 500)
      --max-bytes N          byte budget, 4000-4000000 (LIBTMUX_MCP_MAX_BYTES; 128000)
      --wait-max-seconds N   wait ceiling, 1-600 (LIBTMUX_MCP_WAIT_MAX_SECONDS; 30)
      --transport MODE       control or process (LIBTMUX_MCP_TRANSPORT; control)
      --print-capabilities   print the tmux://capabilities document and exit
      --doctor               check tmux, the socket and permissions, print client
                             configuration, and exit (1 when not ready)
  -h, --help                 show this help
  -V, --version              show the version

Watch the agent's work with: tmux -L libtmux-mcp attach
`;

/**
 * Parses `argv` and the environment (read through `env`) into settings;
 * with `knownTools`, tool names in the lists must be among them.
 */
export function parseSettings(
  argv: string[],
  env: (name: string) => string | undefined,
  knownTools?: readonly string[],
): Parsed {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: joinNegativeNumbers(argv),
      strict: true,
      allowPositionals: false,
      options: {
        socket: { type: "string", short: "L" },
        "socket-path": { type: "string", short: "S" },
        tmux: { type: "string" },
        toolsets: { type: "string" },
        tools: { type: "string" },
        "exclude-tools": { type: "string" },
        "max-lines": { type: "string" },
        "max-bytes": { type: "string" },
        "wait-max-seconds": { type: "string" },
        transport: { type: "string" },
        "print-capabilities": { type: "boolean" },
        doctor: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    }));
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new SettingsError(`${detail.replace(/\.$/, "")}. Run with --help for the options.`);
  }
  const action: Action = values.help
    ? "help"
    : values.version
    ? "version"
    : values["print-capabilities"]
    ? "print-capabilities"
    : values.doctor
    ? "doctor"
    : "serve";
  // --help and --version answer whatever the settings hold, never touching tmux: a
  // bad variable must not hide the help that would explain it.
  if (action === "help" || action === "version") {
    return { action, ...resolveSettings({}, () => undefined, undefined) };
  }
  return { action, ...resolveSettings(values, env, knownTools) };
}

/**
 * The value of the settings variable `name`, or undefined when it is unset or
 * empty: client configuration templates write "" for a variable they have no
 * value for, so an empty value means unset, for every variable alike.
 */
export function settingFromEnv(
  env: (name: string) => string | undefined,
  name: string,
): string | undefined {
  const value = env(name);
  return value === "" ? undefined : value;
}

/** A setting's value and where it came from. */
interface Picked {
  value?: string;
  from: "flag" | "env";
  /** Where the value came from: that is where the user must change it. */
  setting: string;
}

/** Reads one setting: its flag when given, else its variable. */
type Picker = (flag: string, envName: string) => Picked;

/** The {@link Picker} over the flag `values` and the environment `env`. */
function pickerOf(
  values: Record<string, string | boolean | undefined>,
  env: (name: string) => string | undefined,
): Picker {
  return (flag, envName) => {
    const flagValue = values[flag];
    if (typeof flagValue === "string") {
      return { value: checkText(flagValue, `--${flag}`), from: "flag", setting: `--${flag}` };
    }
    const envValue = settingFromEnv(env, envName);
    return {
      value: envValue === undefined ? undefined : checkText(envValue, envName),
      from: "env",
      setting: envName,
    };
  };
}

/** Resolves the flag `values` and the environment (read through `env`) into settings. */
function resolveSettings(
  values: Record<string, string | boolean | undefined>,
  env: (name: string) => string | undefined,
  knownTools: readonly string[] | undefined,
): Omit<Parsed, "action"> {
  const notes: string[] = [];
  const pick = pickerOf(values, env);
  const socket = resolveSocket(pick);
  const { toolsets, toolsetsSource } = resolveToolsets(
    pick,
    settingFromEnv(env, "LIBTMUX_SAFETY"),
    isOwnSocket(socket),
    knownTools,
  );
  const numbers = resolveNumbers(pick, notes);

  const transportPick = pick("transport", "LIBTMUX_MCP_TRANSPORT");
  const transportRaw = transportPick.value ?? "control";
  if (transportRaw !== "control" && transportRaw !== "process") {
    throw new SettingsError(`${transportPick.setting} must be control or process.`);
  }

  const toolsPick = pick("tools", "LIBTMUX_TOOLS");
  const excludePick = pick("exclude-tools", "LIBTMUX_EXCLUDE_TOOLS");
  const tools = parseList(toolsPick.value);
  const excludeTools = parseList(excludePick.value);
  if (knownTools) {
    checkToolNames(tools, toolsPick.setting, knownTools);
    checkToolNames(excludeTools, excludePick.setting, knownTools);
  }

  const tmuxPick = pick("tmux", "LIBTMUX_TMUX_BIN");
  return {
    notes,
    settings: {
      socket,
      tmuxBinary: tmuxPick.value || null,
      tmuxSetting: tmuxPick.value && tmuxPick.from === "env" ? "LIBTMUX_TMUX_BIN" : "--tmux",
      toolsets,
      toolsetsSource,
      tools,
      excludeTools,
      maxLines: numbers["max-lines"],
      maxBytes: numbers["max-bytes"],
      waitMaxSeconds: numbers["wait-max-seconds"],
      transport: transportRaw,
    },
  };
}

/** The socket the settings name: -L/-S, their variables, or the own socket. */
function resolveSocket(pick: Picker): SocketChoice {
  let name = pick("socket", "LIBTMUX_SOCKET");
  let path = pick("socket-path", "LIBTMUX_SOCKET_PATH");
  // The flag wins also across kinds: a user who passes -S means that socket
  // even when a client's configuration still sets LIBTMUX_SOCKET, and -L
  // likewise overrides LIBTMUX_SOCKET_PATH.
  if (name.from === "flag" && path.from === "env") path = { from: "env", setting: path.setting };
  if (path.from === "flag" && name.from === "env") name = { from: "env", setting: name.setting };
  if (name.value !== undefined && path.value !== undefined) {
    throw new SettingsError(
      name.from === "flag"
        ? "both -L/--socket and -S/--socket-path are given; keep one."
        : "both LIBTMUX_SOCKET and LIBTMUX_SOCKET_PATH are set; keep one, or pass -L or -S, which overrides both.",
    );
  }
  if (path.value !== undefined) {
    if (!path.value.startsWith("/")) {
      throw new SettingsError(`${path.setting} must be an absolute socket path (start with /).`);
    }
    return { kind: "path", path: path.value, source: path.from };
  }
  if (name.value !== undefined) {
    if (name.value === "" || name.value.includes("/")) {
      throw new SettingsError(
        `${name.setting} must be a socket name, non-empty and without '/'; ` +
          "name a path with --socket-path (LIBTMUX_SOCKET_PATH).",
      );
    }
    return { kind: "name", name: name.value, source: name.from };
  }
  return { kind: "name", name: OWN_SOCKET_NAME, source: "default" };
}

/** The toolsets: --toolsets or its variable, else LIBTMUX_SAFETY (`safety`), else the default. */
function resolveToolsets(
  pick: Picker,
  safety: string | undefined,
  own: boolean,
  knownTools: readonly string[] | undefined,
): Pick<Settings, "toolsets" | "toolsetsSource"> {
  const toolsetsArg = pick("toolsets", "LIBTMUX_TOOLSETS");
  if (toolsetsArg.value !== undefined) {
    if (toolsetsArg.from === "env" && safety !== undefined) {
      throw new SettingsError(
        "LIBTMUX_SAFETY and LIBTMUX_TOOLSETS are both set; keep LIBTMUX_TOOLSETS.",
      );
    }
    return {
      toolsets: parseToolsets(toolsetsArg.value, toolsetsArg.setting, knownTools ?? []),
      toolsetsSource: toolsetsArg.from,
    };
  }
  if (safety !== undefined) {
    const name = checkText(safety, "LIBTMUX_SAFETY").trim();
    // hasOwn: a name every object has ("constructor") is no level.
    const level = Object.hasOwn(SAFETY_LEVELS, name) ? SAFETY_LEVELS[name] : undefined;
    if (!level) {
      throw new SettingsError(
        `LIBTMUX_SAFETY must be one of ${Object.keys(SAFETY_LEVELS).join(", ")}.`,
      );
    }
    return { toolsets: [...level], toolsetsSource: "safety" };
  }
  return { toolsets: defaultToolsets(own), toolsetsSource: "default" };
}

/** The numeric settings, clamped and rounded; each change adds a line to `notes`. */
function resolveNumbers(pick: Picker, notes: string[]): Record<keyof typeof NUMBERS, number> {
  const numbers = {} as Record<keyof typeof NUMBERS, number>;
  for (
    const [flag, spec] of Object.entries(NUMBERS) as [
      keyof typeof NUMBERS,
      typeof NUMBERS[keyof typeof NUMBERS],
    ][]
  ) {
    const { value: raw, setting: source } = pick(flag, spec.env);
    if (raw === undefined) {
      numbers[flag] = spec.fallback;
      continue;
    }
    // Only a non-number stops start-up. A number out of range
    // (0.5 too) is clamped; one within it that is not whole (2.5) is rounded.
    if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw)) {
      throw new SettingsError(
        `${source} must be a number: a whole number from ${spec.min} to ${spec.max}.`,
      );
    }
    const n = Number(raw);
    const clamped = Math.min(spec.max, Math.max(spec.min, n));
    const whole = Math.round(clamped);
    if (clamped !== n) {
      notes.push(`${source} clamped to ${whole} (allowed ${spec.min}-${spec.max})`);
    } else if (whole !== n) {
      notes.push(`${source} rounded to ${whole} (whole numbers only)`);
    }
    numbers[flag] = whole;
  }
  return numbers;
}

/**
 * `settings` once a `-S` path is known to be the own socket's full path: the
 * own server's defaults apply to it (all toolsets, unless chosen otherwise).
 */
export function withOwnSocketPath(settings: Settings): Settings {
  if (settings.socket.kind !== "path") return settings;
  return {
    ...settings,
    socket: { ...settings.socket, own: true },
    toolsets: settings.toolsetsSource === "default" ? defaultToolsets(true) : settings.toolsets,
  };
}

/**
 * Checks that the tools `setting` names exist; throws a SettingsError that
 * lists the valid names and says when a name is a toolset instead.
 */
function checkToolNames(names: string[], setting: string, known: readonly string[]): void {
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const toolsetHint = otherKind(
    unknown.filter((name) => (TOOLSETS as readonly string[]).includes(name)),
    "toolset",
    "list the toolsets you want with --toolsets (LIBTMUX_TOOLSETS)",
  );
  throw new SettingsError(
    `${setting} names unknown tools (${unknown.join(", ")})${toolsetHint}; ` +
      `valid tools: ${known.join(", ")}.`,
  );
}

/**
 * The clause of a refusal saying that `names`, given in the wrong list, are
 * each a `kind` (a tool, a toolset), then `fix`; empty when there are none.
 */
function otherKind(names: string[], kind: string, fix: string): string {
  if (names.length === 0) return "";
  return `; ${names.join(", ")} ${names.length === 1 ? `is a ${kind}` : `are ${kind}s`}: ${fix}`;
}

/**
 * Writes `--max-lines -5` as `--max-lines=-5`: parseArgs refuses a value that
 * starts with a dash as ambiguous, and an out-of-range number deserves the
 * same clamp as any other.
 */
function joinNegativeNumbers(argv: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (
      argv[i].startsWith("--") && Object.hasOwn(NUMBERS, argv[i].slice(2)) &&
      next !== undefined && /^-\.?\d/.test(next)
    ) {
      joined.push(`${argv[i]}=${next}`);
      i++;
    } else {
      joined.push(argv[i]);
    }
  }
  return joined;
}

function parseToolsets(raw: string, setting: string, knownTools: readonly string[]): Toolset[] {
  const names = parseList(raw);
  const unknown = names.filter((name) => !(TOOLSETS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const toolHint = otherKind(
      unknown.filter((name) => knownTools.includes(name)),
      "tool",
      "add tools with --tools (LIBTMUX_TOOLS)",
    );
    throw new SettingsError(
      `${setting} names unknown toolsets (${unknown.join(", ")})${toolHint}; ` +
        `valid toolsets: ${TOOLSETS.join(", ")}.`,
    );
  }
  return names as Toolset[];
}

function parseList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return [...new Set(raw.split(",").map((s) => s.trim()).filter((s) => s !== ""))];
}

function checkText(value: string, label: string): string {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new SettingsError(`${label} contains control characters; remove them.`);
  }
  return value;
}
