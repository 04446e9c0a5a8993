/**
 * A seeded random walk over every tool of a server started with all four
 * toolsets, on a tmux server that also holds one session the walk never
 * targets. A wait_for_text and resource subscriptions stay live throughout,
 * and some steps make several calls at once. After every step the untouched
 * session must still exist and tmux must answer; a call may fail (tools
 * refuse much of what a random walk asks), but the server must answer it.
 * tests/chaos_test.ts runs a short walk with a fixed seed, bench/chaos_bench.ts
 * a longer one with a random seed.
 *
 * @module
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { mulberry32, type Schema } from "./hardening.ts";
import { ALL_TOOLSETS, type Session, startServer, TmuxFixture } from "./harness.ts";

/** The session the walk never targets (no generated name starts with z). */
export const BYSTANDER = "zz-bystander";
/** Bound of one call: a call that takes longer counts as a hang. */
const CALL_BOUND_MS = 20_000;

/** What a walk did. */
export interface WalkReport {
  seed: number;
  steps: number;
  calls: number;
  /** Calls answered with isError (refusals), by tool. */
  refusals: Record<string, number>;
  /** Calls by tool. */
  byTool: Record<string, number>;
  /** The last refusal of each tool, to see what a walk spends its calls on. */
  lastRefusal: Record<string, string>;
}

/** Options of {@link runWalk}. */
export interface WalkOptions {
  seed: number;
  steps: number;
  /** Called after each step with its number and the calls it made. */
  onStep?: (step: number, calls: string[]) => void;
}

/** The walk's own sessions, windows and panes, as tmux lists them now. */
interface Ours {
  sessions: { id: string; name: string }[];
  windows: string[];
  panes: string[];
}

/** Random choices of one walk. */
class Dice {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** A short word of a..y: never the bystander's name or a prefix of it. */
  word(): string {
    let w = "";
    for (let i = this.int(1, 8); i > 0; i--) w += "abcdefghijklmnopqrstuvwxy"[this.int(0, 24)];
    return w;
  }
}

// Commands typed into the walk's panes: quick, floods, a program that
// waits for input, and exit (which ends the pane).
const COMMANDS = [
  "echo chaos",
  "seq 1 3000",
  "yes | head -n 20000",
  "printf 'a\\tb\\n%.0s' 1 2 3",
  "sleep 0.3",
  "cat",
  "false",
  "exit",
  "clear",
  "printf '\\033[?1049h'",
];
const KEYS = ["Enter", "C-c", "C-d", "Up", "Escape", "q", "Tab", "F5", "BSpace", "NoSuchKey"];
const LAYOUTS = ["even-horizontal", "even-vertical", "main-vertical", "tiled", "bogus", "0000,1x1"];

/** Generated values of fields by name (or tool.field), before the schema's own type. */
function special(d: Dice, ours: Ours, tool: string, field: string): [boolean, unknown] {
  const bogus = (prefix: string) => `${prefix}${d.int(90_000, 99_999)}`;
  const pane = () => (ours.panes.length > 0 && d.chance(0.9) ? d.pick(ours.panes) : bogus("%"));
  const window =
    () => (ours.windows.length > 0 && d.chance(0.9) ? d.pick(ours.windows) : bogus("@"));
  const session = () => {
    if (ours.sessions.length === 0 || d.chance(0.1)) return d.chance(0.5) ? bogus("$") : d.word();
    const s = d.pick(ours.sessions);
    return d.chance(0.5) ? s.id : s.name;
  };
  const values: Record<string, () => unknown> = {
    paneId: pane,
    targetPaneId: pane,
    windowId: window,
    session,
    destinationSession: session,
    text: () => d.pick(COMMANDS),
    command: () => d.pick(COMMANDS),
    keys: () => Array.from({ length: d.int(1, 3) }, () => d.pick(KEYS)),
    layout: () => d.pick(LAYOUTS),
    pattern: () => d.pick(["chaos", "^\\$", "[0-9]+", d.word()]),
    patterns: () => [d.pick(["chaos", "^\\$", "3000", d.word()])],
    stopPatterns: () => [d.word()],
    channel: () => `chaos-${d.int(1, 3)}`,
    cursor: () => d.word(),
    startDirectory: () => d.pick(["/tmp", "/nonexistent-chaos"]),
    environment: () => ({ CHAOS: d.word() }),
    timeoutSeconds: () => d.pick([0, 0.2, 1]),
    delayMs: () => d.int(0, 20),
    // Respawning a pane that prints is what crashed tmux 3.3a and 3.5a.
    killFirst: () => d.chance(0.8),
    width: () => d.int(2, 200),
    height: () => d.int(2, 60),
    percentage: () => d.int(1, 99),
    lines: () => d.int(0, 5000),
    maxLines: () => d.int(1, 60),
    start: () => d.int(-80, 30),
    end: () => d.int(-40, 40),
    name: () => `w${d.word()}`,
    newName: () => `w${d.word()}`,
    windowName: () => d.word(),
    title: () => d.word(),
    "show_option.name": () => d.pick(["mouse", "history-limit", "status", "nosuch"]),
    "show_environment.name": () => d.pick(["PATH", "CHAOS", "NOPE"]),
    names: () => [d.pick(["pane_id", "session_name", "window_width", "nosuch"])],
  };
  const make = values[`${tool}.${field}`] ?? values[field];
  return make ? [true, make()] : [false, undefined];
}

/** A value for `schema`, with fields named as in {@link special} generated their way. */
function valueFor(d: Dice, ours: Ours, tool: string, schema: Schema, depth = 0): unknown {
  const branches = schema.anyOf as Schema[] | undefined;
  if (branches) {
    const real = branches.filter((b) => b.type !== "null");
    return valueFor(d, ours, tool, d.pick(real.length > 0 ? real : branches), depth);
  }
  if (schema.enum) return d.pick(schema.enum as unknown[]);
  if ("const" in schema) return schema.const;
  const types = Array.isArray(schema.type) ? schema.type as string[] : [schema.type as string];
  const real = types.filter((t) => t !== "null");
  if (real.length === 0) return null;
  switch (d.pick(real)) {
    case "boolean":
      return d.chance(0.5);
    case "integer":
    case "number": {
      const min = (schema.minimum as number | undefined) ?? -5;
      const max = Math.min((schema.maximum as number | undefined) ?? 100, min + 100);
      return d.int(min, max);
    }
    case "array": {
      if (depth > 2) return [];
      const items = (schema.items ?? {}) as Schema;
      const count = d.int((schema.minItems as number | undefined) ?? 0, 3);
      return Array.from({ length: count }, () => valueFor(d, ours, tool, items, depth + 1));
    }
    case "object":
      return depth > 2 ? {} : objectFor(d, ours, tool, schema, depth + 1);
    default:
      return d.word();
  }
}

/** Arguments for an object schema: required fields always, targets almost always, others often. */
function objectFor(d: Dice, ours: Ours, tool: string, schema: Schema, depth = 0): unknown {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const args: Record<string, unknown> = {};
  for (const [field, sub] of Object.entries(props)) {
    // Targets are given (a default target could be the bystander's pane);
    // other optional fields are left to their defaults a third of the time.
    const target = /^(paneId|windowId|session|destinationSession)$/.test(field);
    // A wait's default timeout would outlast the bound of a call.
    const given = required.has(field) || field === "timeoutSeconds" || (target && d.chance(0.95));
    if (!given && d.chance(field === "cursor" ? 0.85 : 0.35)) continue;
    const [known, value] = special(d, ours, tool, field);
    args[field] = known ? value : valueFor(d, ours, tool, sub, depth);
  }
  return args;
}

/** Read tools a batch may run (call_read_tools_batch refuses others by name). */
const BATCH_READS = ["list_sessions", "list_panes", "capture_pane", "get_pane_info", "show_hooks"];

/** Arguments for one call of `tool`. */
function argumentsFor(d: Dice, ours: Ours, tool: Tool, tools: Map<string, Tool>): unknown {
  if (tool.name === "call_read_tools_batch") {
    return {
      operations: Array.from({ length: d.int(1, 4) }, () => {
        const read = tools.get(d.pick(BATCH_READS))!;
        return { tool: read.name, arguments: objectFor(d, ours, read.name, read.inputSchema) };
      }),
      onError: d.pick(["stop", "continue"]),
    };
  }
  return objectFor(d, ours, tool.name, tool.inputSchema as Schema);
}

/** The walk's sessions, windows and panes: everything but the bystander's. */
async function readOurs(fx: TmuxFixture, bystander: string): Promise<Ours> {
  const rows = (await fx.tmux(
    "list-panes",
    "-a",
    "-F",
    "#{session_id}\t#{session_name}\t#{window_id}\t#{pane_id}",
  )).split("\n").map((line) => line.split("\t")).filter(([id]) => id && id !== bystander);
  const sessions = new Map(rows.map(([id, name]) => [id, name]));
  return {
    sessions: [...sessions].map(([id, name]) => ({ id, name })),
    windows: [...new Set(rows.map((r) => r[2]))],
    panes: rows.map((r) => r[3]),
  };
}

/** Fails unless the bystander session exists (tmux answering is part of that). */
async function checkBystander(fx: TmuxFixture, bystander: string, where: string): Promise<void> {
  const names = await fx.tmux("list-sessions", "-F", "#{session_id} #{session_name}").catch(
    (error) => {
      throw failure(`${where}: tmux does not answer: ${error}`);
    },
  );
  if (!names.split("\n").includes(`${bystander} ${BYSTANDER}`)) {
    throw failure(`${where}: the untouched session is gone; sessions: ${names}`);
  }
}

/** The last calls made, with how each ended, for a failure to show what led to it. */
const trail: string[] = [];
const TRAIL_LENGTH = 12;

function remember(line: string): void {
  trail.push(line);
  if (trail.length > TRAIL_LENGTH) trail.shift();
}

/** `message` followed by the last calls. */
function failure(message: string): Error {
  return new Error(`${message}\nlast calls:\n  ${trail.join("\n  ")}`);
}

/** One call, bounded; a rejection (no answer, connection closed) is a failure. */
async function callTool(s: Session, name: string, args: unknown, where: string) {
  const call = `${name} ${JSON.stringify(args)}`;
  try {
    const result = await s.client.callTool(
      { name, arguments: args as Record<string, unknown> },
      undefined,
      { timeout: CALL_BOUND_MS },
    ) as CallToolResult;
    const text = (result.content as { text?: string }[])[0]?.text ?? "";
    remember(`${call} -> ${result.isError ? text.slice(0, 100) : "ok"}`);
    return result;
  } catch (error) {
    remember(`${call} -> no answer`);
    throw failure(`${where}: ${call} got no answer: ${error}`);
  }
}

/** Runs a walk of `options.steps` steps; throws at the first crash or hang, saying where. */
export async function runWalk(options: WalkOptions): Promise<WalkReport> {
  trail.length = 0;
  const fx = await TmuxFixture.start({ session: "wmain" });
  const s0 = await fx.tmux("new-session", "-d", "-P", "-F", "#{session_id}", "-s", BYSTANDER);
  const bystander = s0.trim();
  const server = await startServer(fx.socketPath, { args: ALL_TOOLSETS });
  const live = new LiveWatchers(server);
  try {
    return await walk(fx, server, bystander, live, options);
  } finally {
    // Closing the client ends the live wait too.
    await server.close();
    await live.stop();
    await fx.close();
  }
}

async function walk(
  fx: TmuxFixture,
  s: Session,
  bystander: string,
  live: LiveWatchers,
  options: WalkOptions,
): Promise<WalkReport> {
  const d = new Dice(mulberry32(options.seed));
  const listed: Tool[] = (await s.client.listTools()).tools;
  const tools = new Map(listed.map((t) => [t.name, t]));
  const report: WalkReport = {
    seed: options.seed,
    steps: 0,
    calls: 0,
    refusals: {},
    byTool: {},
    lastRefusal: {},
  };
  for (let step = 1; step <= options.steps; step++) {
    const where = `seed ${options.seed}, step ${step}`;
    let ours = await readOurs(fx, bystander);
    if (ours.sessions.length === 0) {
      await callTool(s, "create_session", { name: `w${d.word()}` }, where);
      ours = await readOurs(fx, bystander);
    }
    await live.refresh(d, ours, where);
    const [chosen, results] = d.chance(0.05) && live.watched
      ? await floodAndRespawn(s, live.watched, where)
      : await randomCalls(d, s, ours, tools, where);
    results.forEach((result, i) => {
      const name = chosen[i];
      report.calls++;
      report.byTool[name] = (report.byTool[name] ?? 0) + 1;
      if (!result.isError) return;
      report.refusals[name] = (report.refusals[name] ?? 0) + 1;
      report.lastRefusal[name] = (result.content as { text?: string }[])[0]?.text ?? "";
    });
    await checkBystander(fx, bystander, `${where} (${chosen.join(", ")})`);
    await live.check(where);
    report.steps = step;
    options.onStep?.(step, chosen);
  }
  return report;
}

/** One to three calls of random tools with random arguments, made at once. */
async function randomCalls(
  d: Dice,
  s: Session,
  ours: Ours,
  tools: Map<string, Tool>,
  where: string,
): Promise<[string[], CallToolResult[]]> {
  const names = [...tools.keys()].sort();
  const chosen = Array.from({ length: d.pick([1, 1, 1, 2, 3]) }, () => d.pick(names));
  const results = await Promise.all(
    chosen.map((name) => callTool(s, name, argumentsFor(d, ours, tools.get(name)!, tools), where)),
  );
  return [chosen, results];
}

/**
 * Floods a pane a watch client of ours receives and respawns it while it
 * prints (what crashed tmux before 3.8 with such a client lagging): `yes`,
 * a wait until output flows, then respawn_pane killFirst.
 */
async function floodAndRespawn(
  s: Session,
  paneId: string,
  where: string,
): Promise<[string[], CallToolResult[]]> {
  const calls: [string, Record<string, unknown>][] = [
    ["send_keys", { paneId, text: "yes", enter: true }],
    ["wait_for_text", { paneId, timeoutSeconds: 1 }],
    ["respawn_pane", { paneId, killFirst: true }],
  ];
  const results: CallToolResult[] = [];
  for (const [name, args] of calls) results.push(await callTool(s, name, args, where));
  return [calls.map(([name]) => name), results];
}

/** A wait_for_text and subscriptions kept live on the walk's panes. */
class LiveWatchers {
  #wait: Promise<unknown> | undefined;
  #waitFailure: Error | undefined;
  #subscribed: string | undefined;
  #sessions = false;
  /** The pane the live wait watches (its session has a watch client of ours). */
  watched: string | undefined;

  constructor(readonly s: Session) {}

  /** Starts a wait when none runs, and moves the content subscription now and then. */
  async refresh(d: Dice, ours: Ours, where: string): Promise<void> {
    if (ours.panes.length === 0) return;
    if (!this.#wait) {
      const paneId = d.pick(ours.panes);
      this.watched = paneId;
      this.#wait = callTool(this.s, "wait_for_text", {
        paneId,
        patterns: ["^never-printed$"],
        timeoutSeconds: 15,
      }, `${where} (live wait)`).catch((error: Error) => (this.#waitFailure = error))
        .finally(() => (this.#wait = undefined));
    }
    // A refused subscription (a pane killed meanwhile) is tried again later;
    // a server that stopped answering fails the step's calls.
    const bounded = { timeout: CALL_BOUND_MS };
    if (!this.#sessions) {
      this.#sessions = await this.s.client.subscribeResource({ uri: "tmux://sessions" }, bounded)
        .then(() => true, () => false);
    }
    if (!this.#subscribed || d.chance(0.1)) {
      if (this.#subscribed) {
        await this.s.client.unsubscribeResource({ uri: this.#subscribed }, bounded).catch(() => {});
      }
      const uri = `tmux://panes/${encodeURIComponent(d.pick(ours.panes))}/content`;
      this.#subscribed = await this.s.client.subscribeResource({ uri }, bounded)
        .then(() => uri, () => "");
    }
  }

  /** Throws what the live wait met if it got no answer. */
  check(where: string): Promise<void> {
    if (this.#waitFailure) {
      return Promise.reject(failure(`${where}: the live wait failed: ${this.#waitFailure}`));
    }
    return Promise.resolve();
  }

  /** Resolves once the live wait has ended (close the client first). */
  async stop(): Promise<void> {
    await this.#wait;
  }
}
