/**
 * Schema-driven sweep: every tool the server lists is called with arguments
 * generated from its own `inputSchema` (valid, boundary and invalid), over
 * stdio against a private multi-session tmux topology. Every answer must be
 * either structuredContent that validates against the tool's `outputSchema`,
 * or a clean `isError` result (`<tool> failed: …`, no structuredContent, no
 * echo of the generated values), and the server must answer `tools/list`
 * after every call.
 *
 * Replay or lengthen a run with `SWEEP_SEED=<n> SWEEP_CALLS=<n>` (calls per
 * transport). Destructive tools act only on the sweep's own fixture; the
 * topology is replenished between calls.
 *
 * @module
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, wireBytes } from "./assert.ts";
import { descendants, startServer, type TmuxFixture } from "./harness.ts";
import { outputJsonSchema } from "../server/json_schema.ts";
import { captureSince } from "../tools/capture_since.ts";
import {
  mulberry32,
  readTopology,
  type Schema,
  settled,
  startTopology,
  type Topology,
  validate,
  within,
} from "./hardening.ts";

const SEED = Number(Deno.env.get("SWEEP_SEED") ?? 20261129);
/** Calls per run, shared by the two transports (two thirds on control, the default). */
const CALLS = Number(Deno.env.get("SWEEP_CALLS") ?? 300);
/** Failure bound of one call: waits are capped at 1 s, tmux round trips at 10 s. */
const CALL_BOUND_MS = 30_000;
const MAX_BYTES = 128_000;
/** SWEEP_VERBOSE=1 prints every call and the start of its answer. */
const VERBOSE = Deno.env.get("SWEEP_VERBOSE") === "1";

/** True when a tool may change the topology or what runs in it (by its capability record). */
function changes(tool: Tool): boolean {
  const capability = tool._meta?.["com.git-pull.libtmux-mcp/capability"] as
    | { tmuxEffects: string[]; processReach: string }
    | undefined;
  return !capability || capability.processReach !== "none" ||
    capability.tmuxEffects.some((effect) => effect !== "observe");
}

/** Arguments shortened for a report line. */
function brief(args: unknown): string {
  return JSON.stringify(
    args,
    (_k, v) => typeof v === "string" && v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v,
  );
}

type Mode = "valid" | "boundary" | "invalid";

/** One generated call and what came back. */
interface Outcome {
  tool: string;
  mode: Mode;
  args: Record<string, unknown>;
  kind: "ok" | "error" | "defect" | "cancelled";
  detail?: string;
  /** Milliseconds the call took. */
  ms?: number;
}

class Generator {
  readonly tokens = new Set<string>();
  /** The field the last invalid call gave a wrong type, if any. */
  wrongTypeField: string | undefined;
  constructor(readonly random: () => number, readonly dir: string) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  /** A distinctive value that must never come back in an error text. */
  token(): string {
    const t = `Zq${Math.floor(this.random() * 36 ** 6).toString(36).padStart(6, "0")}`;
    this.tokens.add(t);
    return t;
  }

  /** Hostile strings that ignore the schema's constraints. */
  boundaryString(): string {
    const t = this.token();
    return this.pick([
      () => "",
      () => " ",
      () => `${t}${"x".repeat(65_536)}`,
      () => `${"é".repeat(40_000)}${t}`,
      () => `\x01\x1b[31m${t}\x7f`,
      () => `${t}\0nul`,
      () => `\n${t}\r\n`,
      () => `#{pane_id}${t}`,
      () => `#(touch ${this.dir}/pwned-${t})`,
      () => `%${t}`,
      () => `$${t}`,
      () => `@${t}`,
      () => "%999999",
      () => "@999999",
      () => "$999999",
      () => "%-1",
      () => `-t${t}`,
      () => `${t};`,
      () => `${t}\\;`,
      () => `~${t}`,
      () => `'${t}"`,
      () => `日本語 ${t} 👩‍👩‍👧 \u202e`,
      () => `\ud800${t}`,
      () => `(a+)+$${t}`,
      () => `(?=${t})`,
      () => `\\1${t}`,
      () => `[${t}`,
    ])();
  }

  /** Strings a careful caller might send that still test escaping. */
  niceString(): string {
    const t = this.token();
    return this.pick([
      () => t,
      () => `name-${t}`,
      () => `#{session_name}${t}`,
      () => `#(touch ${this.dir}/pwned-${t})`,
      () => `héllo ✓ ${t} 日本`,
      () => `${t} with spaces`,
      () => `'${t}" \\ $HOME`,
      () => `${t};`,
      () => `-${t}`,
      () => `%1${t}`,
      () => `$1${t}`,
    ])();
  }

  /** A value for a property the schema describes, using real ids where ids are expected. */
  value(schema: Schema, name: string, mode: Mode, topo: Topology): unknown {
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf as Schema[];
      if (mode === "valid" && this.chance(0.5)) {
        const nonNull = branches.filter((b) => b.type !== "null");
        if (nonNull.length > 0) return this.value(this.pick(nonNull), name, mode, topo);
      }
      return this.value(this.pick(branches), name, mode, topo);
    }
    if (Array.isArray(schema.oneOf)) {
      return this.value(this.pick(schema.oneOf as Schema[]), name, mode, topo);
    }
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum)) {
      if (mode === "boundary" && this.chance(0.3)) {
        return this.pick([String(schema.enum[0]).toLowerCase() + "x", "", this.token()]);
      }
      return this.pick(schema.enum as unknown[]);
    }
    const types = Array.isArray(schema.type) ? schema.type as string[] : [schema.type as string];
    const type = this.pick(types);
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return this.chance(0.5);
      case "integer":
      case "number":
        return this.number(schema, type, mode);
      case "array":
        return this.array(schema, name, mode, topo);
      case "object":
        return this.object(schema, mode, topo);
      case "string":
        return this.string(schema, name, mode, topo);
      default:
        return this.niceString();
    }
  }

  number(schema: Schema, type: string, mode: Mode): number {
    const min = typeof schema.minimum === "number" ? schema.minimum : -1_000_000;
    const max = typeof schema.maximum === "number" ? schema.maximum : 1_000_000;
    if (mode === "boundary") {
      return this.pick([
        min,
        max,
        min - 1,
        max + 1,
        0,
        -1,
        2 ** 53,
        -(2 ** 53),
        1e308,
        type === "integer" ? 1.5 : 0.001,
      ]);
    }
    // Valid numbers stay small where a large one only costs time (timeouts, sizes).
    const hi = Math.min(max, Math.max(min, 5));
    const value = this.chance(0.2)
      ? this.pick([min, max])
      : this.int(Math.ceil(min), Math.floor(hi));
    return Math.max(min, Math.min(max, value));
  }

  array(schema: Schema, name: string, mode: Mode, topo: Topology): unknown[] {
    const min = typeof schema.minItems === "number" ? schema.minItems : 0;
    const max = typeof schema.maxItems === "number" ? schema.maxItems : 8;
    let length: number;
    if (mode === "boundary") {
      length = this.pick([0, min, max, max + 1]);
    } else {
      length = this.int(min, Math.min(max, min + 3));
    }
    const items = (schema.items ?? {}) as Schema;
    // Nested ids inside boundary arrays stay valid more often than not, so
    // the array bounds themselves are what gets tested.
    const itemMode: Mode = mode === "boundary" && this.chance(0.7) ? "valid" : mode;
    return Array.from({ length }, () => this.value(items, name, itemMode, topo));
  }

  object(schema: Schema, mode: Mode, topo: Topology): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(properties)) {
      if (required.has(name) || this.chance(0.5)) out[name] = this.value(sub, name, mode, topo);
    }
    if (typeof schema.additionalProperties === "object" && this.chance(0.7)) {
      // A free-form map (environment): keys and values from the palettes.
      const count = this.int(1, 3);
      for (let i = 0; i < count; i++) {
        const key = mode === "valid" ? `V_${this.token()}` : this.boundaryString().slice(0, 300);
        out[key] = mode === "valid" ? this.niceString() : this.boundaryString();
      }
    }
    return out;
  }

  string(schema: Schema, name: string, mode: Mode, topo: Topology): string {
    const id = this.idFor(name, mode, topo);
    if (id !== undefined) return id;
    if (mode === "boundary") return this.boundaryString();
    const special = this.special(schema, name);
    if (special !== undefined) return special;
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : 100_000;
    const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern, "u") : null;
    for (let i = 0; i < 20; i++) {
      const candidate = this.niceString();
      const length = [...candidate].length;
      if (length >= min && length <= max && (!pattern || pattern.test(candidate))) {
        return candidate;
      }
    }
    return this.token();
  }

  /** Ids for id-shaped fields: mostly real, sometimes absent or malformed. */
  idFor(name: string, mode: Mode, topo: Topology): string | undefined {
    const real = (list: string[], fallback: string) => list.length ? this.pick(list) : fallback;
    const missing = mode === "boundary" && this.chance(0.5);
    // Ids carry no pattern in the listed schemas (the server checks them): go by name.
    if (/paneId$/i.test(name)) return missing ? "%999999" : real(topo.panes, "%0");
    if (/windowId$/i.test(name)) return missing ? "@999999" : real(topo.windows, "@0");
    if (/session/i.test(name) && !/^new/i.test(name)) {
      if (missing) return this.pick(["$999999", `gone-${this.token()}`, "$", "=alpha"]);
      if (mode === "valid") {
        return this.chance(0.6) ? real(topo.sessions, "$0") : real(topo.names, "alpha");
      }
    }
    return undefined;
  }

  /** Valid values for fields whose meaning a generic string would miss. */
  special(schema: Schema, name: string): string | undefined {
    const t = this.token();
    const pattern = String(schema.pattern ?? "");
    if (name === "channel") return this.pick([`ch.${t}`, `-${t}`, `${t}:x-y`]);
    if (name === "startDirectory") {
      return this.pick(["/tmp", "/", this.dir, `/nonexistent/${t}`]);
    }
    if (name === "command") {
      return this.pick([
        `echo ${t}`,
        `printf '%s\\n' ${t} ${t}`,
        "false",
        `cd /tmp && echo ${t}`,
        `export ${t}=1; echo $${t}`,
        `seq 1 3000`,
        `echo '${t}`,
        `exit 3`,
        `cat <<'EOF'\n${t}\nEOF`,
      ]);
    }
    if (name === "layout") {
      return this.pick([
        "even-horizontal",
        "tiled",
        "main-vertical",
        `bogus-${t}`,
        "b25d,80x24,0,0,1",
      ]);
    }
    if (name === "name" && pattern.startsWith("^@?")) {
      return this.pick(["history-limit", "status", "mouse", `@${t}`, "pane-border-format"]);
    }
    if (pattern.startsWith("^[A-Za-z")) {
      return this.pick(["pane_id", "session_name", "window_layout", "HOME", "PATH", t, "MY_TOKEN"]);
    }
    if (name === "keys" || (name === "" && schema.maxLength === 32)) {
      return this.pick(["Enter", "C-c", "Up", "F5", "M-x", "Escape", "q", "C-l", `bogus-${t}`]);
    }
    if (name === "pattern" || name === "patterns" || name === "stopPatterns") {
      return this.pick([t, `${t}|\\d+`, "(a+)+$", "[", "(?=x)", "\\1(a)", "^\\$ $", `${t}.*`]);
    }
    if (name === "cursor") return this.pick([t, "", "v1.AAAA.BBBB"]);
    return undefined;
  }

  /** Arguments for `tool` in `mode`. */
  args(tool: Tool, mode: Mode, topo: Topology): Record<string, unknown> {
    const schema = tool.inputSchema as Schema;
    const base = this.object(schema, mode === "invalid" ? "valid" : mode, topo);
    this.wrongTypeField = undefined;
    if (mode !== "invalid") return base;
    const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
    const required = (schema.required ?? []) as string[];
    const mutation = this.pick(["unknown", "wrongType", "missing", "empty"] as const);
    if (mutation === "missing" && required.length > 0) {
      delete base[this.pick(required)];
    } else if (mutation === "wrongType" && properties.length > 0) {
      const name = this.pick(properties);
      const current = base[name];
      this.wrongTypeField = name;
      base[name] = typeof current === "string"
        ? this.pick([42, true, [this.token()], { x: this.token() }])
        : typeof current === "number"
        ? this.pick([this.token(), "12", false])
        : typeof current === "boolean"
        ? this.pick(["true", 1, this.token()])
        : this.pick([this.token(), 7, { nested: true }]);
    } else if (mutation === "empty") {
      return {};
    } else {
      // Gemini CLI adds this one; the key name itself may be named back.
      base[this.pick(["wait_for_previous", "extraArgument", "paneid"])] = this.token();
    }
    return base;
  }
}

/** Tokens of `args` that show up in `text`. */
function echoed(text: string, args: unknown, tokens: Set<string>): string[] {
  const json = JSON.stringify(args);
  return [...tokens].filter((t) => json.includes(t) && text.includes(t));
}

/**
 * A title or session name that a success says was set must read back as
 * given (tmux stores ':' and '.' in session names as '_'); window names are
 * left out: tmux itself stores them escaped (`\` → `\\`), as rename_window says.
 */
function storedLiterally(
  tool: string,
  args: Record<string, unknown>,
  structured: Record<string, unknown>,
): string | undefined {
  if (tool === "set_pane_title") {
    const title = (structured.pane as { title: string | null }).title ?? "";
    if (title !== args.title) return `the title reads back as ${JSON.stringify(title)}`;
  }
  // tmux stores session names vis-escaped (`\`, `$`, control characters); compare the rest.
  // deno-lint-ignore no-control-regex
  if (tool === "rename_session" && !/[\\$\x00-\x1f\x7f]/.test(String(args.newName))) {
    const name = (structured.session as { name: string }).name;
    const wanted = String(args.newName).replace(/[:.]/g, "_");
    if (name !== wanted) return `the session name reads back as ${JSON.stringify(name)}`;
  }
  return undefined;
}

/**
 * A `#{session_name}<token>` argument whose token comes back without the
 * literal `#{session_name}` in front of it was format-expanded by tmux.
 */
function formatExpanded(args: unknown, resultJson: string): string | undefined {
  const literal = JSON.stringify(args).match(/#\{session_name\}(Zq[0-9a-z]{6})/g) ?? [];
  for (const found of literal) {
    const token = found.slice("#{session_name}".length);
    if (resultJson.includes(token) && !resultJson.includes(found)) return found;
  }
  return undefined;
}

/** Checks one answer against the contract; returns what is wrong, or undefined. */
function judge(
  tool: Tool,
  args: Record<string, unknown>,
  result: CallToolResult,
  tokens: Set<string>,
  wrongTypeField: string | undefined,
): { kind: "ok" | "error"; problem?: string } {
  const text = result.content?.[0]?.type === "text" ? result.content[0].text : undefined;
  if (result.isError) {
    if (result.structuredContent !== undefined) {
      return { kind: "error", problem: "error result carries structuredContent" };
    }
    if (text === undefined) return { kind: "error", problem: "error result without text" };
    if (!text.startsWith(`${tool.name} failed: `)) {
      return {
        kind: "error",
        problem: `error text does not start with the tool name: ${text.slice(0, 200)}`,
      };
    }
    if (text.includes("an internal error occurred")) {
      return { kind: "error", problem: `internal error: ${text.slice(0, 200)}` };
    }
    if (wrongTypeField !== undefined && text.includes(`'${wrongTypeField}' is required`)) {
      return {
        kind: "error",
        problem: `a value of the wrong type is reported as missing: ${text.slice(0, 200)}`,
      };
    }
    const leaked = echoed(text, args, tokens);
    if (leaked.length > 0) {
      return { kind: "error", problem: `error echoes a rejected value: ${text.slice(0, 300)}` };
    }
    return { kind: "error" };
  }
  if (result.structuredContent === undefined) {
    return { kind: "ok", problem: "success without structuredContent" };
  }
  const problems = validate(tool.outputSchema as Schema, result.structuredContent);
  if (problems.length > 0) {
    return {
      kind: "ok",
      problem: `output does not match outputSchema: ${problems.slice(0, 3).join("; ")}`,
    };
  }
  if (text === undefined) return { kind: "ok", problem: "success without a text block" };
  const stored = storedLiterally(tool.name, args, result.structuredContent);
  if (stored) return { kind: "ok", problem: stored };
  const expanded = formatExpanded(args, JSON.stringify(result.structuredContent));
  if (expanded) {
    return { kind: "ok", problem: `tmux expanded a format in an argument: ${expanded}` };
  }
  if (tool.name !== "call_read_tools_batch") {
    const bytes = wireBytes(result);
    if (bytes > MAX_BYTES) {
      return { kind: "ok", problem: `result of ${bytes} bytes exceeds --max-bytes` };
    }
  }
  return { kind: "ok" };
}

/** Keeps at least two sessions and five panes, and at most eight sessions. */
async function replenish(fx: TmuxFixture): Promise<Topology> {
  let topo = await readTopology(fx);
  const commands: string[] = [];
  if (topo.sessions.length < 2) {
    commands.push("new-session", "-d", "-x", "120", "-y", "40", ";");
    commands.push("new-session", "-d", "-x", "120", "-y", "40", ";");
  }
  if (topo.panes.length < 5) {
    commands.push("new-session", "-d", "-x", "120", "-y", "40", ";");
    commands.push("split-window", "-d", ";", "new-window", "-d", ";");
  }
  for (const extra of topo.sessions.slice(8)) commands.push("kill-session", "-t", extra, ";");
  if (commands.length > 0) {
    await fx.tmux(...commands.slice(0, -1));
    topo = await readTopology(fx);
  }
  return topo;
}

async function sweep(transport: "control" | "process", seed: number, calls: number) {
  await using fx = await startTopology();
  const outcomes: Outcome[] = [];
  await using session = await startServer(fx.socketPath, {
    args: [
      ...["--transport", transport, "--toolsets", "inspect,manage,execute,teardown"],
      ...["--wait-max-seconds", "1", "--max-bytes", String(MAX_BYTES)],
    ],
  });
  const { tools } = await session.client.listTools();
  const gen = new Generator(mulberry32(seed), fx.dir);
  let topo = await readTopology(fx);
  for (let i = 0; i < calls; i++) {
    // Round-robin over tools so every tool gets its share; the mode is random.
    const tool = tools[i % tools.length];
    const roll = gen.random();
    const mode: Mode = roll < 0.5 ? "valid" : roll < 0.8 ? "boundary" : "invalid";
    const args = gen.args(tool, mode, topo);
    const outcome: Outcome = { tool: tool.name, mode, args, kind: "ok" };
    const started = performance.now();
    if (gen.chance(0.05)) {
      // A cancelled call: the client gives up at once (any moment is a
      // valid one); the server must stay healthy and leave nothing behind.
      const controller = new AbortController();
      const call = session.client.callTool({ name: tool.name, arguments: args }, undefined, {
        signal: controller.signal,
      }).catch(() => undefined);
      controller.abort();
      await call;
      outcome.kind = "cancelled";
      outcomes.push(outcome);
      if (changes(tool)) topo = await replenish(fx);
      continue;
    }
    try {
      const result = await within(
        CALL_BOUND_MS,
        `${tool.name} call`,
        session.client.callTool({ name: tool.name, arguments: args }, undefined, {
          timeout: CALL_BOUND_MS,
        }),
      ) as CallToolResult;
      const verdict = judge(tool, args, result, gen.tokens, gen.wrongTypeField);
      outcome.kind = verdict.problem ? "defect" : verdict.kind;
      outcome.detail = verdict.problem;
      if (VERBOSE) {
        const text = result.content?.[0]?.type === "text" ? result.content[0].text : "";
        console.log(
          `${i} ${tool.name} [${mode}] ${outcome.kind}: ${brief(args)} -> ${text.slice(0, 160)}`,
        );
      }
    } catch (error) {
      // The SDK client throws when structuredContent fails the outputSchema.
      outcome.kind = "defect";
      outcome.detail = `call threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    outcome.ms = performance.now() - started;
    outcomes.push(outcome);
    try {
      const listed = await within(10_000, "tools/list", session.client.listTools()) as {
        tools: Tool[];
      };
      if (listed.tools.length !== tools.length) throw new Error("tools/list changed length");
    } catch (error) {
      outcomes.push({
        tool: tool.name,
        mode,
        args,
        kind: "defect",
        detail: `tools/list after the call failed: ${(error as Error).message}`,
      });
      break;
    }
    if (changes(tool)) topo = await replenish(fx);
  }
  // Nothing the calls started may outlive them: no child but the control
  // client, no tmux buffer (paste_text names its own and must delete it).
  const leftovers = await settled(async () =>
    (await descendants(session!.transport.pid!)).filter((p) =>
      !p.args.includes(" -C attach-session ")
    )
  );
  for (const p of leftovers) {
    outcomes.push({
      tool: "(leak)",
      mode: "valid",
      args: {},
      kind: "defect",
      detail: `child process left behind: ${p.args}`,
    });
  }
  const buffers = await fx.tmux("list-buffers", "-F", "#{buffer_name}").catch(() => "");
  if (buffers !== "") {
    outcomes.push({
      tool: "(leak)",
      mode: "valid",
      args: {},
      kind: "defect",
      detail: `tmux buffers left behind: ${buffers.split("\n").join(", ")}`,
    });
  }
  const pwned = [...Deno.readDirSync(fx.dir)].filter((e) => e.name.startsWith("pwned-"));
  if (pwned.length > 0) {
    outcomes.push({
      tool: "(any)",
      mode: "boundary",
      args: {},
      kind: "defect",
      detail: `a #() in an argument ran a shell command: ${pwned.map((e) => e.name).join(", ")}`,
    });
  }
  const logged = session.stderr().split("\n").filter((l) => l.includes("unexpected error"));
  for (const line of logged.slice(0, 5)) {
    outcomes.push({ tool: "(log)", mode: "valid", args: {}, kind: "defect", detail: line });
  }
  report(transport, seed, tools.length, outcomes);
  return outcomes;
}

function report(transport: string, seed: number, toolCount: number, outcomes: Outcome[]) {
  const count = (kind: string) => outcomes.filter((o) => o.kind === kind).length;
  const byMode = (mode: Mode) => outcomes.filter((o) => o.mode === mode).length;
  console.log(
    `sweep [${transport}] seed ${seed}: ${toolCount} tools swept, ${outcomes.length} calls ` +
      `(valid ${byMode("valid")}, boundary ${byMode("boundary")}, invalid ${byMode("invalid")}); ` +
      `structured ${count("ok")}, clean errors ${count("error")}, cancelled ${
        count("cancelled")
      }, ` +
      `defects ${count("defect")}`,
  );
  const slow = outcomes.filter((o) => (o.ms ?? 0) > 1500).map((o) =>
    `${o.tool} ${Math.round(o.ms ?? 0)} ms`
  );
  if (slow.length > 0) console.log(`  slowest: ${slow.slice(0, 20).join(", ")}`);
  for (const o of outcomes.filter((o) => o.kind === "defect")) {
    console.log(`  DEFECT ${o.tool} [${o.mode}] ${brief(o.args)}\n    ${o.detail}`);
  }
}

for (const transport of ["control", "process"] as const) {
  Deno.test(`schema sweep: every tool answers cleanly [${transport}]`, async () => {
    const calls = transport === "control" ? Math.ceil(CALLS * 2 / 3) : Math.floor(CALLS / 3);
    const outcomes = await sweep(transport, SEED + (transport === "process" ? 1 : 0), calls);
    const defects = outcomes.filter((o) => o.kind === "defect");
    assert(outcomes.length >= calls, `only ${outcomes.length} of ${calls} calls were made`);
    assert(defects.length === 0, `${defects.length} defects (listed above)`);
  });
}

Deno.test("the sweep's validator refuses a result that breaks its listed outputSchema", () => {
  // The schema as tools/list sends it: no `required`, nullable as a type array.
  const schema = outputJsonSchema(captureSince.output) as Schema;
  const good = {
    paneId: "%1",
    content: { lines: ["a"], truncated: false, droppedLines: 0 },
    cursor: "c",
    linesMissed: null,
    anchorLost: false,
  };
  assertEquals(validate(schema, good), []);
  const broken = { ...good, linesMissed: "0", content: { ...good.content, lines: [1] } };
  assertEquals(validate(schema, broken), [
    "$/content/lines/0: must be string",
    "$/linesMissed: must be integer,null",
  ]);
});

Deno.test("a session name with ':' or '.' never reaches another session", async () => {
  await using fx = await startTopology();
  await using s = await startServer(fx.socketPath, {
    args: ["--toolsets", "inspect,manage,execute,teardown"],
  });
  // tmux stores ':' and '.' in names as '_': these name no session, but as
  // targets they would select alpha or a window of beta.
  for (const name of ["alpha.", "beta:1", "beta:0.1", "alpha:"]) {
    const calls: [string, Record<string, unknown>][] = [
      ["list_windows", { session: name }],
      ["list_panes", { session: name }],
      ["get_session_info", { session: name }],
      ["search_panes", { pattern: "x", session: name }],
      ["show_environment", { session: name }],
      ["set_history_limit", { session: name, lines: 5 }],
      ["set_mouse_enabled", { session: name, enabled: true }],
      ["rename_session", { session: name, newName: "renamed" }],
      ["create_window", { session: name }],
      ["move_window", { windowId: "@0", destinationSession: name }],
      ["kill_session", { session: name }],
    ];
    for (const [tool, args] of calls) {
      const text = await s.fails(tool, args);
      assert(text.includes("no such session"), `${tool} with "${name}": ${text}`);
    }
  }
  const sessions = (await readTopology(fx)).names.sort();
  assert(sessions.join(",") === "alpha,beta", `sessions now: ${sessions.join(",")}`);
});

Deno.test("values that look like flags or carry control characters are taken literally or refused", async () => {
  await using fx = await startTopology();
  await using s = await startServer(fx.socketPath, { args: ["--wait-max-seconds", "2"] });
  const topo = await readTopology(fx);
  // A leading "-" must not reach tmux as a flag.
  const session = await s.ok("rename_session", {
    session: "beta",
    newName: "-b",
  });
  assertEquals(session.session.name, "-b");
  const window = await s.ok("rename_window", {
    windowId: topo.windows[0],
    newName: "-w",
  });
  assertEquals(window.window.name, "-w");
  const waiting = s.ok("wait_for_channel", {
    channel: "-c",
    timeoutSeconds: 2,
  });
  await s.ok("signal_channel", { channel: "-c" });
  assertEquals((await waiting).signalled, true);
  // tmux silently keeps the old title for one with a control character.
  for (const title of ["a\nb", "tab\there", "\x1b[31mred"]) {
    const text = await s.fails("set_pane_title", { paneId: topo.panes[0], title });
    assert(text.includes("control character"), text);
  }
});
