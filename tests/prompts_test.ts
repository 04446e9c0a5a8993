/**
 * Prompts and server instructions: recipes render with their
 * arguments and name only offered tools; the instructions stay within 2,048
 * UTF-8 bytes in every toolset selection, with a caller pane and a long
 * socket path.
 *
 * @module
 */

import { capabilitiesDocument } from "../server/capabilities.ts";
import { CATALOG } from "../server/catalog.ts";
import { buildInstructions, INSTRUCTIONS_MAX_BYTES } from "../server/instructions.ts";
import { parseWindows, Prompts } from "../server/prompts.ts";
import { parseSettings } from "../core/settings.ts";
import { selectTools, type Toolset, TOOLSETS } from "../core/toolsets.ts";
import { assert, assertEquals, assertStringIncludes, rejection } from "./assert.ts";
import { type Session, TmuxFixture, withServer } from "./harness.ts";

const TOOL_NAMES = CATALOG.map((tool) => tool.name);

/** Every non-empty subset of the toolsets. */
function toolsetSubsets(): Toolset[][] {
  const subsets: Toolset[][] = [];
  for (let mask = 1; mask < 1 << TOOLSETS.length; mask++) {
    subsets.push(TOOLSETS.filter((_, i) => mask & (1 << i)));
  }
  return subsets;
}

function selection(toolsets: Toolset[], add: string[] = [], exclude: string[] = []): string[] {
  return selectTools(CATALOG, toolsets, add, exclude).map((tool) => tool.name);
}

/** Tool names of this server that `text` mentions. */
function toolsNamed(text: string): string[] {
  return TOOL_NAMES.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
}

function bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

const ARGS: Record<string, Record<string, string>> = {
  run_and_check: { command: "make test", paneId: "%7" },
  watch_until: { paneId: "%7", pattern: "listening on \\d+" },
  diagnose_pane: { paneId: "%7" },
  build_workspace: { sessionName: "proj", windows: "editor, server=npm run dev" },
};

async function render(prompts: Prompts, name: string, args = ARGS[name]): Promise<string> {
  return (await prompts.get(name, args)).messages[0].content.text;
}

Deno.test("prompts: every offered recipe names only selected tools, in every selection", async () => {
  const cases: string[][] = [
    ...toolsetSubsets().map((sets) => selection(sets)),
    selection(["inspect"], ["send_keys"]),
    selection(["inspect", "execute"], [], ["run_shell_command", "wait_for_text"]),
    selection(["execute"], [], ["send_keys", "run_shell_command"]),
    selection(["inspect", "execute"], [], ["capture_pane", "list_windows", "snapshot_pane"]),
    selection(["inspect", "execute"], [], ["capture_since", "respawn_pane", "search_panes"]),
    selection(["inspect", "execute"], [], ["send_keys", "wait_for_text"]),
  ];
  for (const selected of cases) {
    const prompts = new Prompts(selected, { waitMaxSeconds: 30 });
    for (const { name } of prompts.list()) {
      const text = await render(prompts, name);
      const stray = toolsNamed(text).filter((tool) => !selected.includes(tool));
      assertEquals(stray, [], `${name} with ${selected.length} tools names unselected tools`);
    }
  }
});

Deno.test("prompts: which prompts are offered follows the selection", () => {
  const names = (selected: string[]) =>
    new Prompts(selected, { waitMaxSeconds: 30 }).list().map((p) => p.name);
  assertEquals(names(selection(["inspect", "manage", "execute"])), [
    "run_and_check",
    "watch_until",
    "diagnose_pane",
    "build_workspace",
  ]);
  assertEquals(names(selection(["inspect"])), ["watch_until", "diagnose_pane"]);
  assertEquals(names(selection(["teardown"])), []);
  assertEquals(names(selection(["inspect"], ["send_keys"])), [
    "run_and_check",
    "watch_until",
    "diagnose_pane",
  ]);
});

Deno.test("prompts: run_and_check without run_shell_command types an exit marker with send_keys", async () => {
  const prompts = new Prompts(selection(["inspect"], ["send_keys"]), { waitMaxSeconds: 12 });
  const text = await render(prompts, "run_and_check");
  assertStringIncludes(text, 'send_keys {"paneId":"%7","text":"make test; echo \\"exit=$?\\""');
  assertStringIncludes(text, '"patterns":["^exit=\\\\d+$"]');
  assertStringIncludes(text, '"timeoutSeconds":12');
  // capture_since is inspect: the wait takes its cursor, so a fast command still matches.
  assertStringIncludes(text, 'capture_since {"paneId":"%7"}');
  assertStringIncludes(text, '"cursor":"<the cursor capture_since returned>"');
  const without = await render(
    new Prompts(selection(["inspect"], ["send_keys"], ["capture_since"]), { waitMaxSeconds: 12 }),
    "run_and_check",
  );
  assert(!without.includes("cursor"), "no cursor step without capture_since");
});

Deno.test("prompts: run_and_check keeps waiting for a timed-out run by its runId", async () => {
  const prompts = new Prompts(selection(["inspect", "execute"]), { waitMaxSeconds: 12 });
  const text = await render(prompts, "run_and_check");
  assertStringIncludes(
    text,
    'run_shell_command {"paneId":"%7","runId":"<the runId it returned>","timeoutSeconds":12}',
  );
});

Deno.test("prompts: build_workspace reads names and commands; windows are checked", async () => {
  assertEquals(parseWindows(" editor , server = npm run dev -- --port=3000,, logs=tail -f a.log"), [
    { name: "editor", command: null },
    { name: "server", command: "npm run dev -- --port=3000" },
    { name: "logs", command: "tail -f a.log" },
  ]);
  const prompts = new Prompts(selection(["inspect", "manage", "execute"]), { waitMaxSeconds: 30 });
  const error = await rejection(() =>
    prompts.get("build_workspace", { sessionName: "x", windows: " , " })
  );
  assertStringIncludes(error, "at least one window");
  // The recipe's create_session would refuse it: the prompt says so first.
  const dollar = await rejection(() =>
    prompts.get("build_workspace", { sessionName: "$work", windows: "editor" })
  );
  assertStringIncludes(dollar, "must not start with $");
  // A program that fails at once printed its error before any wait began:
  // the recipe reads the pane before it waits for more.
  const recipe = await render(prompts, "build_workspace", {
    sessionName: "x",
    windows: "logs=tail -f a.log",
  });
  const read = recipe.indexOf("snapshot_pane {");
  assert(read > 0 && read < recipe.indexOf("wait_for_text {"), "read first, then wait");
});

async function promptText(s: Session, name: string, args: Record<string, string>) {
  const result = await s.client.getPrompt({ name, arguments: args });
  assertEquals(result.messages.length, 1);
  assertEquals(result.messages[0].role, "user");
  return (result.messages[0].content as { text: string }).text;
}

Deno.test("prompts: listed with their arguments and rendered with them over MCP", async () => {
  await withServer({}, async (_fx, s) => {
    const { prompts } = await s.client.listPrompts();
    const byName = new Map(
      prompts.map((p: { name: string; arguments?: { name: string; required?: boolean }[] }) => [
        p.name,
        p.arguments?.map((a) => `${a.name}${a.required ? "!" : ""}`),
      ]),
    );
    assertEquals(Object.fromEntries(byName), {
      run_and_check: ["command!", "paneId!"],
      watch_until: ["paneId!", "pattern!"],
      diagnose_pane: ["paneId!"],
      build_workspace: ["sessionName!", "windows!"],
    });

    const run = await promptText(s, "run_and_check", { command: "npm test", paneId: "%3" });
    assertStringIncludes(run, 'run_shell_command {"paneId":"%3","command":"npm test"');
    assertStringIncludes(run, "exitStatus");
    assertStringIncludes(run, 'snapshot_pane {"paneId":"%3"}');

    const watch = await promptText(s, "watch_until", { paneId: "%3", pattern: "ready in \\d+ms" });
    assertStringIncludes(watch, 'wait_for_text {"paneId":"%3","patterns":["ready in \\\\d+ms"]');
    assertStringIncludes(watch, "presentAtEntry");

    const diagnose = await promptText(s, "diagnose_pane", { paneId: "%3" });
    assertStringIncludes(diagnose, 'snapshot_pane {"paneId":"%3"}');
    assertStringIncludes(diagnose, 'respawn_pane {"paneId":"%3"}');
    assertStringIncludes(diagnose, "Do not type into it");

    const build = await promptText(s, "build_workspace", {
      sessionName: "api",
      windows: "editor, server=npm run dev, logs=tail -f app.log",
    });
    assertStringIncludes(build, 'create_session {"name":"api","windowName":"editor"}');
    assertStringIncludes(build, 'create_window {"session":"<sessionId>","name":"server"}');
    assertStringIncludes(build, 'create_window {"session":"<sessionId>","name":"logs"}');
    assertStringIncludes(build, '"server": "npm run dev"');
    assertStringIncludes(build, 'list_windows {"session":"<sessionId>"}');
  });
});

Deno.test("prompts: build_workspace works as written for a name tmux stores differently", async () => {
  await withServer({}, async (_fx, s) => {
    const text = await promptText(s, "build_workspace", {
      sessionName: "api.v2",
      windows: "editor, server",
    });
    // Make every call the recipe writes, in order, with the id it says to keep.
    const calls = [
      ...text.matchAll(/\b(create_session|create_window|list_windows) (\{.*?\})[.;]/g),
    ];
    assertEquals(calls.map((m) => m[1]), ["create_session", "create_window", "list_windows"]);
    let sessionId = "";
    for (const [, tool, json] of calls) {
      const args = JSON.parse(json.replaceAll("<sessionId>", sessionId));
      const result = await s.ok<{ session?: { sessionId: string }; windows?: unknown[] }>(
        tool,
        args,
      );
      if (tool === "create_session") sessionId = result.session!.sessionId;
      if (tool === "list_windows") assertEquals(result.windows?.length, 2);
    }
    assertStringIncludes(text, '"api_v2"');
  });
});

Deno.test("prompts: bad or missing arguments and unoffered prompts answer clear errors", async () => {
  await withServer({ args: ["--toolsets", "inspect"] }, async (_fx, s) => {
    assertEquals(
      (await s.client.listPrompts()).prompts.map((p: { name: string }) => p.name),
      ["watch_until", "diagnose_pane"],
    );
    const missing = await rejection(() => s.client.getPrompt({ name: "diagnose_pane" }));
    assertStringIncludes(missing, "needs the argument paneId");
    const bad = await rejection(() =>
      s.client.getPrompt({ name: "diagnose_pane", arguments: { paneId: "pane-seven" } })
    );
    assertStringIncludes(bad, "paneId must be a pane id");
    assert(!bad.includes("pane-seven"), "the rejected value is not echoed");
    const extra = await rejection(() =>
      s.client.getPrompt({ name: "diagnose_pane", arguments: { paneId: "%1", colour: "red" } })
    );
    assertStringIncludes(extra, "no argument named colour");
    const unoffered = await rejection(() =>
      s.client.getPrompt({ name: "run_and_check", arguments: ARGS.run_and_check })
    );
    assertStringIncludes(unoffered, "does not offer that prompt");
    assertStringIncludes(unoffered, "watch_until, diagnose_pane");
    const text = await promptText(s, "diagnose_pane", { paneId: "%1" });
    assert(!text.includes("respawn_pane"), "no execute tool in an inspect-only recipe");
    // watch_until refuses what its wait_for_text call would, in the same words.
    for (const pattern of ["(?=x)ready", "ready(", "a{2000}", "é".repeat(600)]) {
      const tool = await s.fails("wait_for_text", { patterns: [pattern] });
      const refused = await rejection(() =>
        s.client.getPrompt({ name: "watch_until", arguments: { paneId: "%1", pattern } })
      );
      assertStringIncludes(refused, `watch_until ${tool.replace(/^wait_for_text /, "")}`);
      assert(!refused.includes(pattern), "the rejected pattern is not echoed");
    }
  });
});

Deno.test("instructions: within 2,048 bytes in every selection, with a caller pane and a long socket path", () => {
  const sockets = [
    [],
    ["-L", "work"],
    ["-S", `/tmp/${"deep/".repeat(400)}tmux.sock`],
    ["-S", `/tmp/${"ü".repeat(3000)}/tmux.sock`],
  ];
  for (const socket of sockets) {
    for (const sets of toolsetSubsets()) {
      const { settings } = parseSettings(
        [...socket, "--toolsets", sets.join(",")],
        () => undefined,
      );
      const variants = [
        selection(sets),
        selection(sets, ["send_keys", "kill_pane"], ["snapshot_pane"]),
      ];
      for (const selected of variants) {
        for (const caller of [null, "%123456789"]) {
          const text = buildInstructions(settings, selected, caller);
          const size = bytes(text);
          assert(size <= INSTRUCTIONS_MAX_BYTES, `${size} bytes for ${sets} ${socket[0] ?? ""}`);
          assertStringIncludes(text, "$N");
          assertStringIncludes(text, "@N");
          assertStringIncludes(text, "%N");
          assertStringIncludes(text, "browser tabs");
          assertStringIncludes(text, "editor splits");
          assertStringIncludes(text, "window-manager");
          assertStringIncludes(text, `Toolsets on: ${sets.join(", ")}`);
          if (caller) assertStringIncludes(text, `pane ${caller}`);
          if (selected.includes("wait_for_text")) assertStringIncludes(text, "Wait, don't poll");
          for (const reader of ["snapshot_pane", "capture_since"]) {
            if (selected.includes(reader)) assertStringIncludes(text, `Prefer `);
          }
          const stray = toolsNamed(text).filter((tool) => !selected.includes(tool));
          assertEquals(stray, [], "names only offered tools");
        }
      }
    }
  }
});

Deno.test("instructions and capabilities: the attach command pastes as it is, a path with spaces quoted", () => {
  const cases = [
    [["-S", "/tmp/with space/it's.sock"], `tmux -S '/tmp/with space/it'\\''s.sock' attach`],
    [["-L", "my work"], "tmux -L 'my work' attach"],
    [["-S", "/tmp/plain.sock"], "tmux -S /tmp/plain.sock attach"],
  ] as const;
  for (const [socket, command] of cases) {
    const { settings } = parseSettings([...socket], () => undefined);
    const tools = selectTools(CATALOG, settings.toolsets, [], []);
    const text = buildInstructions(settings, tools.map((tool) => tool.name), null);
    assertStringIncludes(text, `A person can watch with: ${command}`);
    const facts = { tmuxBinary: null, tmuxVersion: null, startedServer: null };
    const document = capabilitiesDocument(settings, tools, facts) as {
      tmux: { attachCommand: string };
    };
    assertEquals(document.tmux.attachCommand, command);
  }
});

Deno.test("instructions: the caller's pane id reaches the client when the server runs in a pane", async () => {
  const env = async (fx: TmuxFixture, pane: string) => ({
    TMUX: `${fx.socketPath},${await fx.tmux("display-message", "-p", "#{pid}")},0`,
    TMUX_PANE: pane,
  });
  await withServer({ args: ["--toolsets", "inspect"], env }, async (fx, s) => {
    const pane = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n")[0];
    const text = s.client.getInstructions() ?? "";
    assert(bytes(text) <= INSTRUCTIONS_MAX_BYTES);
    assertStringIncludes(text, `You run inside tmux pane ${pane}`);
    assertStringIncludes(text, "Toolsets on: inspect; off: manage, execute, teardown");
    assertStringIncludes(text, `tmux -S ${fx.socketPath} attach`);
  });
});
