/**
 * Unit tests of the pure parts (settings, budgets, result fitting, format parsing, caller parsing),
 * and of the socket probe's rule, which a counting tmux wrapper checks without starting a server.
 */

import { renderPanes, renderSessions, word } from "../core/render_views.ts";
import { countingTmux } from "./harness.ts";
import { isNamedSocketPath } from "../tmux/socket_probe.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "./assert.ts";
import {
  budgetLines,
  type Content,
  contentText,
  longestFitting,
  utf8Length,
} from "../core/budget.ts";
import { keepTailBytes } from "../tmux/utf8.ts";
import {
  messageJson,
  renderJson,
  resultBytes,
  serializedResult,
  successResult,
} from "../core/results.ts";
import {
  parseSettings,
  SETTING_ENV_NAMES,
  SettingsError,
  withOwnSocketPath,
} from "../core/settings.ts";
import { isOwnSocket } from "../tmux/client.ts";
import { selectTools } from "../core/toolsets.ts";
import { parseTmuxVariable } from "../tmux/caller.ts";
import { encodeArgument } from "../tmux/process_transport.ts";
import { classifyTmuxFailure } from "../tmux/errors.ts";
import { layoutPanes } from "../tools/select_layout.ts";
import { flag, FormatError, formatOf, int, parseRows, splitRecords, text } from "../tmux/format.ts";
import { isSupportedVersion, isTestedVersion } from "../tmux/version.ts";
import { z } from "zod";
import { parseArguments } from "../server/arguments.ts";
import { CATALOG } from "../server/catalog.ts";
import { ToolError } from "../core/errors.ts";
import { trimRow } from "../core/panes.ts";
import { compareUris } from "../server/resources.ts";
import { counted } from "../core/words.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("settings: defaults drive the own server with all four toolsets", () => {
  const { settings, action } = parseSettings([], env({}));
  assertEquals(action, "serve");
  assertEquals(settings.socket, { kind: "name", name: "libtmux-mcp", source: "default" });
  assertEquals(settings.toolsets, ["inspect", "manage", "execute", "teardown"]);
  assertEquals([settings.maxLines, settings.maxBytes, settings.waitMaxSeconds], [500, 128000, 30]);
});

Deno.test("settings: a named socket leaves teardown off by default; the flag beats the environment", () => {
  const { settings } = parseSettings(["-L", "work"], env({ LIBTMUX_SOCKET: "other" }));
  assertEquals(settings.socket, { kind: "name", name: "work", source: "flag" });
  assertEquals(settings.toolsets, ["inspect", "manage", "execute"]);
  const fromEnv = parseSettings([], env({ LIBTMUX_SOCKET_PATH: "/tmp/s" })).settings;
  assertEquals(fromEnv.socket, { kind: "path", path: "/tmp/s", source: "env" });
});

Deno.test("settings: the own socket named explicitly keeps every toolset", () => {
  for (
    const [args, vars] of [[["-L", "libtmux-mcp"], {}], [[], { LIBTMUX_SOCKET: "libtmux-mcp" }]]
  ) {
    const { settings } = parseSettings(args as string[], env(vars as Record<string, string>));
    assertEquals(settings.toolsets, ["inspect", "manage", "execute", "teardown"]);
  }
});

Deno.test("settings: a -S path found to be the own socket gets its defaults, not over chosen toolsets", () => {
  const own = withOwnSocketPath(parseSettings(["-S", "/tmp/tmux-1/libtmux-mcp"], env({})).settings);
  assert(isOwnSocket(own.socket), "the own server");
  assertEquals(own.toolsets, ["inspect", "manage", "execute", "teardown"]);
  const chosen = parseSettings(["-S", "/tmp/tmux-1/libtmux-mcp", "--toolsets", "inspect"], env({}));
  assertEquals(withOwnSocketPath(chosen.settings).toolsets, ["inspect"]);
});

Deno.test("settings: a socket flag of either kind overrides both socket variables", () => {
  const path = parseSettings(["-S", "/tmp/s"], env({ LIBTMUX_SOCKET: "work" })).settings;
  assertEquals(path.socket, { kind: "path", path: "/tmp/s", source: "flag" });
  const name = parseSettings(["-L", "work"], env({ LIBTMUX_SOCKET_PATH: "/tmp/s" })).settings;
  assertEquals(name.socket, { kind: "name", name: "work", source: "flag" });
  const both = env({ LIBTMUX_SOCKET: "a", LIBTMUX_SOCKET_PATH: "/tmp/b" });
  assertEquals(parseSettings(["-L", "work"], both).settings.socket.source, "flag");
  // Two variables and no flag stay ambiguous: the message says how to settle it.
  assertThrows(() => parseSettings([], both), SettingsError, "pass -L or -S");
});

Deno.test("settings: an empty variable means unset, for every variable", () => {
  const defaults = parseSettings([], env({}));
  for (const name of SETTING_ENV_NAMES) {
    assertEquals(parseSettings([], env({ [name]: "" })), defaults, name);
  }
  const blank = Object.fromEntries(SETTING_ENV_NAMES.map((name) => [name, ""]));
  assertEquals(parseSettings([], env(blank)), defaults, "all of them at once");
  // An empty variable does not clash with, nor take over from, a set one.
  assertEquals(
    parseSettings([], env({ LIBTMUX_SAFETY: "", LIBTMUX_TOOLSETS: "inspect" })).settings.toolsets,
    ["inspect"],
  );
  assertEquals(
    parseSettings([], env({ LIBTMUX_SAFETY: "readonly", LIBTMUX_TOOLSETS: "" })).settings.toolsets,
    ["inspect"],
  );
  assertEquals(
    parseSettings([], env({ LIBTMUX_SOCKET: "", LIBTMUX_SOCKET_PATH: "/tmp/s" })).settings.socket,
    { kind: "path", path: "/tmp/s", source: "env" },
  );
});

Deno.test("settings: numbers are clamped with a note; a non-number is an error", () => {
  const parsed = parseSettings(["--max-lines", "5", "--max-bytes", "99999999"], env({}));
  assertEquals(parsed.settings.maxLines, 10);
  assertEquals(parsed.settings.maxBytes, 4_000_000);
  assertEquals(parsed.notes.length, 2);
  // Notes and refusals name where the value came from: there it must change.
  assertEquals(
    parseSettings([], env({ LIBTMUX_MCP_MAX_LINES: "5" })).notes,
    ["LIBTMUX_MCP_MAX_LINES clamped to 10 (allowed 10-100000)"],
  );
  assertEquals(parseSettings(["--max-lines", "5"], env({})).notes, [
    "--max-lines clamped to 10 (allowed 10-100000)",
  ]);
  assertThrows(
    () => parseSettings([], env({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "ten" })),
    SettingsError,
    "LIBTMUX_MCP_WAIT_MAX_SECONDS must be",
  );
  assertThrows(
    () => parseSettings([], env({ LIBTMUX_MCP_TRANSPORT: "pipes" })),
    SettingsError,
    "LIBTMUX_MCP_TRANSPORT must be",
  );
  assertThrows(
    () => parseSettings(["--transport", "pipes"], env({})),
    SettingsError,
    "--transport must be",
  );
  // A negative value is a number out of range, not an option.
  const negative = parseSettings(["--max-lines", "-5", "--wait-max-seconds", "-1"], env({}));
  assertEquals([negative.settings.maxLines, negative.settings.waitMaxSeconds], [10, 1]);
  assertThrows(
    () => parseSettings(["--wait-max-seconds", "ten"], env({})),
    SettingsError,
    "whole number",
  );
});

Deno.test("settings: a number that is not whole is a number: rounded, then clamped, with a note", () => {
  // A number out of range is clamped and logged; only a non-number stops start-up.
  const out = parseSettings(
    ["--max-lines", "-.5", "--max-bytes", "-1.5"],
    env({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "0.5" }),
  );
  assertEquals([out.settings.maxLines, out.settings.maxBytes, out.settings.waitMaxSeconds], [
    10,
    4_000,
    1,
  ]);
  assertEquals(out.notes, [
    "--max-lines clamped to 10 (allowed 10-100000)",
    "--max-bytes clamped to 4000 (allowed 4000-4000000)",
    "LIBTMUX_MCP_WAIT_MAX_SECONDS clamped to 1 (allowed 1-600)",
  ]);
  const inRange = parseSettings(["--wait-max-seconds", "2.5", "--max-lines", "1e3"], env({}));
  assertEquals([inRange.settings.waitMaxSeconds, inRange.settings.maxLines], [3, 1000]);
  assertEquals(inRange.notes, ["--wait-max-seconds rounded to 3 (whole numbers only)"]);
  for (const notNumber of ["1.2.3", "0x10", "Infinity", "", "5s"]) {
    assertThrows(
      () => parseSettings(["--max-lines", notNumber], env({})),
      SettingsError,
      "--max-lines must be a number",
    );
  }
});

Deno.test("settings: refusals name the fix", () => {
  assertThrows(() => parseSettings(["-L", "a", "-S", "/b"], env({})), SettingsError, "keep one");
  assertThrows(() => parseSettings(["-S", "relative"], env({})), SettingsError, "absolute");
  assertThrows(
    () => parseSettings(["--toolsets", "inspect,bogus"], env({})),
    SettingsError,
    "valid toolsets",
  );
  assertThrows(
    () => parseSettings([], env({ LIBTMUX_SOCKET: "a\u0007b" })),
    SettingsError,
    "control characters",
  );
  assertThrows(() => parseSettings(["--frobnicate"], env({})), SettingsError, "--help");
  assertThrows(
    () => parseSettings([], env({ LIBTMUX_SAFETY: "readonly", LIBTMUX_TOOLSETS: "inspect" })),
    SettingsError,
    "LIBTMUX_SAFETY",
  );
});

Deno.test("settings: a refusal names the setting that holds the value, and a toolset given as a tool", () => {
  const tools = ["list_panes", "kill_pane"];
  const refusal = (argv: string[], vars: Record<string, string>) => {
    try {
      parseSettings(argv, env(vars), tools);
    } catch (error) {
      if (error instanceof SettingsError) return error.message;
      throw error;
    }
    throw new Error(`accepted ${JSON.stringify([argv, vars])}`);
  };
  for (
    const [argv, vars, starts] of [
      [[], { LIBTMUX_SOCKET_PATH: "relative.sock" }, "LIBTMUX_SOCKET_PATH must be an absolute"],
      [["-S", "relative.sock"], {}, "--socket-path must be an absolute"],
      [[], { LIBTMUX_SOCKET: "a/b" }, "LIBTMUX_SOCKET must be a socket name"],
      [
        [],
        { LIBTMUX_TOOLSETS: "inspect,bogus" },
        "LIBTMUX_TOOLSETS names unknown toolsets (bogus)",
      ],
      [["--toolsets", "bogus"], {}, "--toolsets names unknown toolsets (bogus)"],
      [[], { LIBTMUX_TOOLS: "bogus" }, "LIBTMUX_TOOLS names unknown tools (bogus)"],
      [[], { LIBTMUX_EXCLUDE_TOOLS: "bogus" }, "LIBTMUX_EXCLUDE_TOOLS names unknown tools (bogus)"],
      [["--exclude-tools", "bogus"], {}, "--exclude-tools names unknown tools (bogus)"],
    ] as const
  ) {
    assert(refusal([...argv], vars).startsWith(starts), refusal([...argv], vars));
  }
  assertStringIncludes(
    refusal(["--exclude-tools", "teardown"], {}),
    "teardown is a toolset: list the toolsets you want with --toolsets",
  );
  assertStringIncludes(
    refusal(["--toolsets", "inspect,kill_pane"], {}),
    "kill_pane is a tool: add tools with --tools",
  );
});

Deno.test("settings: LIBTMUX_SAFETY maps to toolsets", () => {
  assertEquals(parseSettings([], env({ LIBTMUX_SAFETY: "readonly" })).settings.toolsets, [
    "inspect",
  ]);
  assertEquals(parseSettings([], env({ LIBTMUX_SAFETY: "mutating" })).settings.toolsets, [
    "inspect",
    "manage",
    "execute",
  ]);
  assertEquals(
    parseSettings([], env({ LIBTMUX_SAFETY: "destructive" })).settings.toolsets.length,
    4,
  );
  // Names every JavaScript object answers to are no levels.
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assertThrows(
      () => parseSettings([], env({ LIBTMUX_SAFETY: name })),
      SettingsError,
      "must be one of readonly, mutating, destructive",
    );
  }
});

Deno.test("selection: toolsets, then added tools, then exclusions which always win", () => {
  const catalog = [
    { name: "a", capability: { toolset: "inspect" as const } },
    { name: "b", capability: { toolset: "teardown" as const } },
    { name: "c", capability: { toolset: "inspect" as const } },
  ];
  assertEquals(selectTools(catalog, ["inspect"], ["b"], ["c"]).map((t) => t.name), ["a", "b"]);
  assertEquals(selectTools(catalog, ["inspect"], ["b"], ["b"]).map((t) => t.name), ["a", "c"]);
});

Deno.test("budget: newest lines kept, then bytes, with counts", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
  const byLines = budgetLines(lines, 3, 1000);
  assertEquals(byLines.lines, ["line 7", "line 8", "line 9"]);
  assertEquals([byLines.truncated, byLines.droppedLines], [true, 7]);
  assertEquals(byLines.droppedBytes, 7 * 7);
  const byBytes = budgetLines(lines, 100, 14);
  assertEquals(byBytes.lines, ["line 8", "line 9"]);
  const whole = budgetLines(lines, 100, 1000);
  assertEquals([whole.truncated, whole.droppedLines, whole.droppedBytes], [false, 0, 0]);
});

Deno.test("budget: a long multibyte line is cut on a character boundary, keeping its end", () => {
  const line = "é".repeat(10) + "日本語";
  const cut = budgetLines([line], 10, 8);
  assertEquals(cut.lines.length, 1);
  assert(utf8Length(cut.lines[0]) + 1 <= 8);
  assert(!cut.lines[0].includes("\ufffd"), "no broken character");
  assert(line.endsWith(cut.lines[0]));
  assertEquals(keepTailBytes("aé", 1), "");
  assertEquals(keepTailBytes("aé", 2), "é");
});

Deno.test("results: the serialized result is shrunk to the byte budget, oldest lines first", () => {
  const lines = Array.from({ length: 2000 }, (_, i) => `${i} ${"ü".repeat(40)}`);
  const value = { paneId: "%1", content: budgetLines(lines, 100000, 10_000_000) };
  const result = successResult(value, (v) => JSON.stringify(v), 20_000);
  assert(resultBytes(result) <= 20_000);
  const content = value.content;
  assert(content.truncated && content.droppedLines > 0);
  assertEquals(content.lines.at(-1), lines.at(-1));
  assertEquals(content.droppedLines + content.lines.length, 2000);
});

Deno.test("results: escape-heavy text keeps as many newest lines as the serialized budget holds", () => {
  for (const line of ["\\".repeat(150), 'a\\"'.repeat(100)]) {
    for (
      const render of [
        renderJson,
        (v: Record<string, unknown>) => contentText("pane", v.content as Content),
      ]
    ) {
      const lines = Array.from({ length: 600 }, (_, i) => `${i}${line}`);
      const value = { paneId: "%1", content: budgetLines(lines, 100000, 128_000) };
      const result = successResult(value, render, 128_000);
      assert(resultBytes(result) <= 128_000);
      const kept = value.content.lines.length;
      assert(kept > 0, "lines that fit are kept");
      assertEquals(value.content.lines, lines.slice(600 - kept));
      assertEquals(value.content.droppedLines, 600 - kept);
      // One line more would not have fitted.
      const more = { paneId: "%1", content: budgetLines(lines, kept + 1, 10_000_000) };
      assert(
        resultBytes({ content: [{ type: "text", text: render(more) }], structuredContent: more }) >
          128_000,
      );
    }
  }
  // Not even the newest line fits: its end is kept, up to the budget.
  const huge = { paneId: "%1", content: budgetLines(['x\\"'.repeat(20_000)], 10, 128_000) };
  const cut = successResult(huge, renderJson, 4000);
  assert(resultBytes(cut) <= 4000 && resultBytes(cut) > 3000, `${resultBytes(cut)} bytes`);
  assertEquals(huge.content.lines.length, 1);
  assert('x\\"'.repeat(20_000).endsWith(huge.content.lines[0]));
});

Deno.test("budget: utf8Length counts long texts as TextEncoder does, past the scratch buffer", () => {
  const encoder = new TextEncoder();
  // Long enough to take several scratch buffers; pairs and lone surrogates straddle their ends.
  const pieces = ["a", "é", "日", "😀", "\ud800", "\udc00", "\n"];
  for (let seed = 1; seed <= 40; seed++) {
    let text = "";
    for (let i = 0; i < 30_000 + seed * 997; i++) text += pieces[(i * seed * 7919 + i) % 7];
    assertEquals(utf8Length(text), encoder.encode(text).length, `seed ${seed}`);
  }
  assertEquals(utf8Length("x".repeat(200_000)), 200_000);
});

Deno.test("budget: lines budgeted with their source text render as when joined", () => {
  const cases = [
    ["a", "", "bb", "ccc", "", "dddd"],
    ["é日", "x", "😀 y", "", "z"],
    ["only"],
    ["", ""],
    ["x".repeat(50)],
  ];
  for (const lines of cases) {
    const text = `${lines.join("\n")}\n\n`;
    const ascii = new TextEncoder().encode(text).length === text.length;
    for (const [maxLines, maxBytes] of [[100, 1000], [3, 1000], [100, 9], [1, 20], [0, 100]]) {
      const plain = budgetLines(lines, maxLines, maxBytes);
      const sourced = budgetLines(lines, maxLines, maxBytes, { ascii, text });
      const label = `${JSON.stringify(lines)} ${maxLines}/${maxBytes}`;
      assertEquals(sourced, plain, label);
      assertEquals(contentText("pane", sourced), contentText("pane", plain), label);
    }
  }
});

Deno.test("results: a measured result is written from the JSON it was measured as", () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `${i} "é" \\ ${"\t".repeat(i % 3)}`);
  const value = { paneId: "%1", content: budgetLines(lines, 100000, 10_000_000) };
  const result = successResult(value, (v) => contentText("pane", v.content as Content), 50_000);
  assert(value.content.droppedLines > 0, "the block was cut to fit");
  assertEquals(serializedResult(result), JSON.stringify(result));
  const message = { result, jsonrpc: "2.0", id: 'a"b' };
  assertEquals(JSON.parse(messageJson(message)), JSON.parse(JSON.stringify(message)));
  // A message without a measured result is serialized as usual.
  const plain = { jsonrpc: "2.0", id: 3, result: { content: [] } };
  assertEquals(messageJson(plain), JSON.stringify(plain));
});

/** What tmux's `q:` modifier prints for a value. */
function shellQuoted(value: string): string {
  return value.replace(/[|&;<>()$`\\"'*?[# =%]/g, "\\$&");
}

/** What tmux 3.4+ prints for output text: control characters as escapes, backslashes as they are. */
function visEscaped(text: string): string {
  const named: Record<string, string> = { "\r": "r", "\b": "b", "\x07": "a", "\v": "v", "\f": "f" };
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\x00-\x08\x0b-\x1f\x7f]/g,
    (c) => named[c] ? `\\${named[c]}` : `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`,
  );
}

Deno.test("format: values with separators, escapes and control characters read back on 3.3a and 3.4+", () => {
  const schema = {
    id: text("pane_id"),
    path: text("pane_current_path"),
    n: int("pane_index"),
    on: flag("pane_active"),
  };
  const format = formatOf(schema);
  assertEquals(format, "<#{q:pane_id}|#{q:pane_current_path}|#{pane_index}|#{pane_active}>");
  const values = ["a\tb\nc; d\u001f\u001e|e", "\\036<x|y>", "\\n\\\\ \r\x07\x1b[0m", "é🙂", ""];
  const record = (path: string) => `<%1|${shellQuoted(path)}|3|1>`;
  for (const value of values) {
    const printed = `${record(value)}\n${record("/tmp")}\n`;
    for (const output of [printed, visEscaped(printed)]) {
      assertEquals(parseRows(schema, output), [
        { id: "%1", path: value, n: 3, on: true },
        { id: "%1", path: "/tmp", n: 3, on: true },
      ]);
    }
  }
  assertEquals(parseRows(schema, ""), []);
});

Deno.test("format: bytes that are not UTF-8 read the same raw (3.3a) or escaped (3.4+)", () => {
  const raw = new Uint8Array([
    0x3c,
    0x25,
    0x31,
    0x7c,
    0x61,
    0xff,
    0xe2,
    0x82,
    0x62,
    0x7c,
    0x31,
    0x7c,
    0x30,
    0x3e,
  ]);
  const schema = {
    id: text("pane_id"),
    path: text("pane_current_path"),
    n: int("pane_index"),
    on: flag("pane_active"),
  };
  const fromRaw = parseRows(schema, new TextDecoder().decode(raw));
  const fromEscaped = parseRows(schema, "<%1|a\\377\\342\\202b|1|0>");
  assertEquals(fromRaw, fromEscaped);
  assertEquals(fromRaw[0].path, "a\ufffd\ufffdb");
});

Deno.test("format: a record tmux did not print as asked is refused without echoing it", () => {
  const schema = { id: text("pane_id"), n: int("pane_index") };
  const bad = ["secret text<%1|2>", "<%1|2|3>", "<%1|2", "<%1<|2>", "<%1|2>secret"];
  for (const output of bad) {
    let error: unknown = null;
    try {
      parseRows(schema, output);
    } catch (thrown) {
      error = thrown;
    }
    assert(error instanceof FormatError, `${output}: ${error}`);
    assert(!error.message.includes("secret"), error.message);
    assert(!/version/.test(error.hint ?? ""), error.hint);
  }
  assertEquals(splitRecords("<a|b\\>><c\\<|d>\n"), ["<a|b\\>>", "<c\\<|d>"]);
});

Deno.test("caller: TMUX is parsed as path,pid,index; paths may contain commas", () => {
  assertEquals(parseTmuxVariable("/tmp/tmux-0/default,123,0"), {
    socketPath: "/tmp/tmux-0/default",
    pid: 123,
  });
  assertEquals(parseTmuxVariable("/tmp/a,b/s,9,1"), { socketPath: "/tmp/a,b/s", pid: 9 });
  assertEquals(parseTmuxVariable("garbage"), null);
});

Deno.test("argv: a trailing ';' is escaped so tmux does not end the command there", () => {
  assertEquals(encodeArgument("ls;"), "ls\\;");
  assertEquals(encodeArgument("a;b"), "a;b");
});

Deno.test("tmux versions: 3.2 and newer are supported; the suite's own are named as tested", () => {
  assert(isSupportedVersion("tmux 3.3a"));
  assert(isSupportedVersion("tmux 3.2"));
  assert(isSupportedVersion("tmux next-3.6"));
  assert(isSupportedVersion("tmux openbsd-7.6"));
  assert(!isSupportedVersion("tmux 3.1c"));
  assert(!isSupportedVersion("tmux 2.9"));
  for (const version of ["tmux 3.3a", "tmux 3.4", "tmux 3.5a"]) assert(isTestedVersion(version));
  for (const version of ["tmux 3.3", "tmux 3.5", "tmux next-3.6", "tmux 3.2a"]) {
    assert(!isTestedVersion(version), version);
  }
});

Deno.test("arguments: a wrong type is not 'required'; one bound is reported, the schema's", () => {
  const schema = z.strictObject({
    id: z.string(),
    flag: z.boolean().nullish(),
    end: z.int().max(100).nullish(),
  });
  assertThrows(() => parseArguments(schema, { id: 42 }), ToolError, "'id' must be a string");
  assertThrows(
    () => parseArguments(schema, { id: "x", flag: 1 }),
    ToolError,
    "'flag' must be a boolean",
  );
  assertThrows(() => parseArguments(schema, {}), ToolError, "'id' is required");
  let message = "";
  try {
    parseArguments(schema, { id: "x", end: 1e308 });
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(message, "invalid arguments: 'end' must be at most 100");
});

Deno.test("arguments: parsed by zod's interpreter, never by code compiled at a first parse", () => {
  // Built while zod's global jit is on, as the tools' schemas are: they load
  // before the server's modules.
  const before = z.config().jitless;
  z.config({ jitless: false });
  const schema = z.strictObject({ id: z.string(), count: z.int().nullish() });
  z.config({ jitless: before });
  let compiled = 0;
  const original = globalThis.Function;
  globalThis.Function = new Proxy(original, {
    construct(target, args) {
      compiled++;
      return Reflect.construct(target, args);
    },
  });
  try {
    assertEquals(parseArguments(schema, { id: "x" }), { id: "x" });
  } finally {
    globalThis.Function = original;
  }
  assertEquals(compiled, 0, "zod compiled a parser");
});

Deno.test("arguments: bounds and integers read as English ('1 item', 'an integer')", () => {
  const schema = z.strictObject({
    list: z.array(z.string()).min(1).max(2).nullish(),
    name: z.string().min(1).nullish(),
    count: z.int().nullish(),
  });
  const message = (args: Record<string, unknown>) => {
    try {
      parseArguments(schema, args);
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };
  assertEquals(message({ list: [] }), "invalid arguments: 'list' must be at least 1 item");
  assertEquals(
    message({ list: ["a", "b", "c"] }),
    "invalid arguments: 'list' must be at most 2 items",
  );
  assertEquals(
    message({ name: "" }),
    "invalid arguments: 'name' must be at least 1 character long",
  );
  assertEquals(message({ count: 1.5 }), "invalid arguments: 'count' must be an integer");
});

Deno.test("arguments: every timeoutSeconds takes any finite non-negative number; others are refused", () => {
  const timed = CATALOG.filter((tool) =>
    tool.input instanceof z.ZodObject && "timeoutSeconds" in tool.input.shape
  );
  assertEquals(timed.map((tool) => tool.name).sort(), [
    "run_shell_command",
    "wait_for_channel",
    "wait_for_text",
  ]);
  for (const tool of timed) {
    // Only the timeout is under test: the tool's own schema, reduced to it.
    const schema = z.strictObject({
      timeoutSeconds: (tool.input as z.ZodObject).shape.timeoutSeconds as z.ZodType,
    });
    for (const value of [0, 0.5, 86_400, 86_401, 604_800, 1e6, 1e300]) {
      assertEquals(parseArguments(schema, { timeoutSeconds: value }), { timeoutSeconds: value });
    }
    assertThrows(
      () => parseArguments(schema, { timeoutSeconds: -1 }),
      ToolError,
      "'timeoutSeconds' must be at least 0",
    );
    // JSON.parse reads 1e400 as Infinity.
    for (const value of [JSON.parse("1e400"), -Infinity, NaN]) {
      assertThrows(
        () => parseArguments(schema, { timeoutSeconds: value }),
        ToolError,
        "'timeoutSeconds' must be a finite number",
      );
    }
  }
});

Deno.test("list text: one line per item, every known field, flags only when set, odd text quoted", () => {
  const pane = {
    paneId: "%3",
    windowId: "@1",
    sessionId: "$0",
    index: 1,
    width: 80,
    height: 24,
    title: 'a "quoted"\nnew line',
    active: true,
    dead: false,
    zoomed: false,
    inMode: true,
    currentCommand: "bash",
    currentPath: "/home/u/my dir",
    pid: null,
    historySize: 12,
    historyLimit: 2000,
    isCaller: false,
  };
  const text = renderPanes([pane, { ...pane, paneId: "%4", active: false, currentCommand: null }]);
  const lines = text.split("\n");
  assertEquals(lines.length, 3, "a heading and one line per pane");
  assertEquals(lines[0], "2 panes:");
  assertEquals(
    lines[1],
    '%3 window=@1 session=$0 index=1 size=80x24 command=bash path="/home/u/my dir" ' +
      'title="a \\"quoted\\"\\nnew line" history=12 historyLimit=2000 active inMode',
  );
  assert(!lines[2].includes("command=") && !lines[2].includes("pid="), "unknown values left out");
  assert(!/ active\b/.test(lines[2]), "a flag that is not set is not named");
  assertEquals(renderPanes([]), "0 panes");
  // The size claim of docs/behaviour.md and the module: 32 ordinary panes take about half their JSON.
  const ordinary = Array.from({ length: 32 }, (_, i) => ({
    ...pane,
    paneId: `%${i}`,
    title: "build-host",
    currentPath: "/srv/app",
    pid: 4242,
  }));
  const ratio = renderPanes(ordinary).length / JSON.stringify({ panes: ordinary }).length;
  assert(ratio < 0.55, `text is ${Math.round(ratio * 100)}% of the JSON`);
  assertEquals(
    renderSessions([{
      sessionId: "$0",
      name: "main",
      windows: 1,
      attached: 0,
      created: 1700000000,
      activeWindowId: "@0",
      activePaneId: "%0",
    }]),
    "1 session:\n$0 name=main windows=1 attached=0 created=1700000000 activeWindow=@0 activePane=%0",
  );
  assertEquals(word("plain/path-1.2"), "plain/path-1.2");
  assertEquals(word(""), '""');
  assertEquals(word("#{pane_id}"), '"#{pane_id}"');
});

Deno.test("classifyTmuxFailure: a socket tmux can never use is not 'no server'", () => {
  const kind = (stderr: string) => classifyTmuxFailure(stderr, "socket /s").kind;
  assertEquals(kind("error creating /a/b (No such file or directory)\n"), "bad_socket");
  assertEquals(kind("error connecting to /a (Is a directory)"), "bad_socket");
  assertEquals(kind("error connecting to /a (Permission denied)"), "bad_socket");
  // Nothing listens there now: creating a session cures these.
  assertEquals(kind("error connecting to /a (No such file or directory)"), "no_server");
  assertEquals(kind("error connecting to /a (Connection refused)"), "no_server");
  assertEquals(kind("no server running on /a"), "no_server");
  assertEquals(
    classifyTmuxFailure("error connecting to /a (Is a directory)", "socket /a").message,
    "tmux cannot use socket /a (is a directory)",
  );
  // tmux refuses a -L socket's directory before any command: no session cures it.
  for (
    const said of [
      "couldn't create directory /f/tmux-0 (Not a directory)",
      "couldn't read directory /d/tmux-0 (Permission denied)",
      "/d/tmux-0 is not a directory",
      "directory /d/tmux-0 has unsafe permissions",
    ]
  ) {
    const error = classifyTmuxFailure(said, 'socket "x"');
    assertEquals(error.kind, "bad_socket", said);
    assertStringIncludes(error.message, "its directory /");
    assertStringIncludes(error.hint, "TMUX_TMPDIR");
  }
});

Deno.test("budget: longestFitting finds the largest fitting count, measuring at most twice that", () => {
  for (let total = 0; total <= 70; total++) {
    for (let limit = 0; limit <= total + 2; limit++) {
      const probes: number[] = [];
      const found = longestFitting(total, (count) => {
        probes.push(count);
        return count <= limit;
      });
      assertEquals(found, Math.min(limit, total), `total ${total}, limit ${limit}`);
      assert(probes.every((count) => count >= 1 && count <= total), `probes ${probes}`);
      const largest = Math.max(0, ...probes);
      assert(
        largest <= Math.max(2 * limit, 1),
        `total ${total}, limit ${limit}: probed ${largest}`,
      );
      assert(probes.length <= 2 * Math.log2(total + 2) + 2, `${probes.length} probes for ${total}`);
    }
  }
});

Deno.test("socket probe: a -S path not named like the own socket is decided without tmux", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-" });
  try {
    const counting = await countingTmux(dir);
    assertEquals(await isNamedSocketPath(counting.binary, "libtmux-mcp", `${dir}/other`), false);
    assertEquals(await counting.started(), [], "no tmux process was started");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("select_layout counts the panes a layout string arranges, nested splits too", () => {
  // Bodies tmux 3.3a printed as window_layout for windows of 1, 2 and 5 panes.
  assertEquals(layoutPanes("80x24,0,0,0"), 1);
  assertEquals(layoutPanes("80x24,0,0[80x12,0,0,3,80x11,0,13,4]"), 2);
  assertEquals(
    layoutPanes(
      "120x40,0,0{60x40,0,0[60x20,0,0{30x20,0,0,0,29x20,31,0,4},60x19,0,21,2]," +
        "59x40,61,0[59x20,61,0,1,59x19,61,21,3]}",
    ),
    5,
  );
  // A leaf without a pane id (tmux makes the id optional).
  assertEquals(layoutPanes("80x24,0,0{40x24,0,0,39x24,41,0}"), 2);
});

Deno.test("resource order: server-wide views first, pane ids as numbers, a view before its content", () => {
  const uris = [
    "tmux://sessions",
    "tmux://panes/%2510/content",
    "tmux://panes/%259",
    "tmux://panes/%2510",
    "tmux://capabilities",
    "tmux://panes/%259/content",
    "tmux://panes/%25100",
  ];
  assertEquals(uris.toSorted(compareUris), [
    "tmux://capabilities",
    "tmux://sessions",
    "tmux://panes/%259",
    "tmux://panes/%259/content",
    "tmux://panes/%2510",
    "tmux://panes/%2510/content",
    "tmux://panes/%25100",
  ]);
  // Numbers by value, however many leading zeros; equal values still order.
  assert(compareUris("a09", "a8") > 0, "9 after 8");
  assert(compareUris("a007", "a7") !== 0, "no two URIs tie");
  assertEquals(compareUris("a7", "a7"), 0);
});

Deno.test("counted: the noun is plural unless the count is one", () => {
  assertEquals([0, 1, 2].map((n) => counted(n, "tmux session")), [
    "0 tmux sessions",
    "1 tmux session",
    "2 tmux sessions",
  ]);
});

Deno.test("trimRow drops trailing spaces in time linear in the row", () => {
  assertEquals(trimRow("$ ls   "), "$ ls");
  assertEquals(trimRow("   "), "");
  assertEquals(trimRow("a \t "), "a \t");
  // A long run of spaces that does not end the row: a backtracking regex is quadratic here.
  const row = " ".repeat(200_000) + "x";
  const start = performance.now();
  assertEquals(trimRow(row + "  "), row);
  const ms = performance.now() - start;
  assert(ms < 500, `trimRow took ${ms.toFixed(0)} ms`);
});
