/**
 * What the model pays to use the server (issue 24): definitions, the whole
 * tools/list answer, the batch's input schema and the instructions stay
 * within their goals; input schemas are portable; annotations follow the
 * capability records; results read as compact text; wait_for_text hands on
 * a cursor.
 */

import { z } from "zod";
import {
  BATCH_INPUT_MAX_BYTES,
  definitionBytes,
  DEFINITIONS_MAX_BYTES,
  jsonBytes,
  type ListedTool,
  readListing,
  TOOLS_LIST_MAX_BYTES,
  typicalResults,
  withContextServer,
} from "../bench/context.ts";
import { inputJsonSchema, portabilityProblems } from "../server/json_schema.ts";
import { INSTRUCTIONS_MAX_BYTES } from "../server/instructions.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { serverTest } from "./harness.ts";

Deno.test("context: definitions, tools/list, the batch's input and instructions within their goals", async () => {
  await withContextServer(async (_fx, server) => {
    const { tools, listBytes, instructions } = await readListing(server);
    assertEquals(tools.length, 45);
    const total = tools.reduce((sum, tool) => sum + definitionBytes(tool), 0);
    assert(total <= DEFINITIONS_MAX_BYTES, `definitions take ${total} bytes`);
    assert(listBytes <= TOOLS_LIST_MAX_BYTES, `tools/list takes ${listBytes} bytes`);
    const batch = tools.find((t) => t.name === "call_read_tools_batch")!;
    const batchBytes = jsonBytes(batch.inputSchema);
    assert(batchBytes <= BATCH_INPUT_MAX_BYTES, `the batch's input schema takes ${batchBytes}`);
    const size = new TextEncoder().encode(instructions).length;
    assert(size <= INSTRUCTIONS_MAX_BYTES, `instructions take ${size} bytes`);
    for (const tool of ["list_panes", "run_shell_command", "send_keys", "wait_for_text"]) {
      assertStringIncludes(instructions, tool);
    }
  });
});

Deno.test("context: every listed input schema passes the strict portability checks", async () => {
  await withContextServer(async (_fx, server) => {
    const { tools } = await readListing(server);
    const found = tools.flatMap((t: ListedTool) => portabilityProblems(t.inputSchema, t.name));
    assertEquals(found, []);
  });
});

Deno.test("context: the portability check finds type arrays, nullable and null branches", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: ["string", "null"] },
      b: { type: "string", nullable: true },
      c: { anyOf: [{ type: "integer" }, { type: "null" }] },
      d: { description: "untyped" },
      e: { type: "object", additionalProperties: {} },
    },
  };
  assertEquals(portabilityProblems(schema), [
    '$.a: type array ["string","null"]',
    "$.b: nullable",
    "$.c.anyOf[1]: null type",
    "$.d: no type",
    "$.e: empty additionalProperties",
  ]);
  // A nullish argument is listed as merely optional: its description and default stay.
  const listed = inputJsonSchema(z.strictObject({
    x: z.boolean().nullish().default(false).describe("X."),
    y: z.array(z.string()).nullish().describe("Y."),
  }));
  assertEquals(portabilityProblems(listed), []);
  assertEquals((listed.properties as Record<string, unknown>).x, {
    default: false,
    description: "X.",
    type: "boolean",
  });
});

Deno.test("context: annotations follow the capability records", async () => {
  await withContextServer(async (_fx, server) => {
    const { tools } = await readListing(server);
    const hints = (name: string) => {
      const tool = tools.find((t) => t.name === name);
      assert(tool, `${name} is listed`);
      const a = tool.annotations as Record<string, boolean>;
      return [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint];
    };
    // [readOnly, destructive, idempotent, openWorld]
    assertEquals(hints("list_panes"), [true, false, true, false]);
    assertEquals(hints("capture_pane"), [true, false, true, true]);
    assertEquals(hints("wait_for_channel"), [true, false, true, false]);
    assertEquals(hints("rename_window"), [false, false, false, false]);
    assertEquals(hints("create_session"), [false, false, false, true]);
    assertEquals(hints("send_keys"), [false, true, false, true]);
    assertEquals(hints("run_shell_command"), [false, true, false, true]);
    assertEquals(hints("kill_pane"), [false, true, false, false]);
    assertEquals(hints("move_window"), [false, true, false, false]);
  });
});

Deno.test("context: results read as compact text, never the structure again", async () => {
  await withContextServer(async (fx, server) => {
    await readListing(server);
    const sizes = await typicalResults(fx, server);
    assertEquals(sizes.length, 12);
    for (const s of sizes) {
      assert(!s.sample.trimStart().startsWith("{"), `${s.tool} text is not JSON: ${s.sample}`);
      assert(!/"\w+":/.test(s.sample), `${s.tool} text holds no JSON keys: ${s.sample}`);
      assert(!/\b1 (lines|panes|matches)\b/.test(s.sample), `${s.tool}: plurals right`);
      assert(s.text < s.structured, `${s.tool} text (${s.text}) is smaller than its structure`);
    }
    const since = sizes.find((s) => s.tool === "capture_since")!;
    assertStringIncludes(since.sample, "new since the cursor");
  });
});

serverTest("capture_since without a cursor says it returns the visible screen", async (_fx, s) => {
  const first = await s.call("capture_since", {});
  const text = (first.content[0] as { text: string }).text;
  assertStringIncludes(text, "visible screen");
  assert(!text.includes("since the cursor"), text);
}, { transports: ["control"] });

serverTest(
  "wait_for_text returns a cursor: send, wait, send, wait with no capture_since between",
  async (fx, s, pane) => {
    await fx.runInPane(pane, "true");
    const { cursor: start } = await s.ok("capture_since", { paneId: pane });
    await s.ok("send_keys", { paneId: pane, text: "echo one-$((1+1))", enter: true });
    const first = await s.ok("wait_for_text", {
      cursor: start,
      patterns: ["^one-2$"],
      timeoutSeconds: 10,
    });
    assertEquals(first.outcome, "matched");
    assertEquals(typeof first.cursor, "string");
    await s.ok("send_keys", { paneId: pane, text: "echo two-$((1+1))", enter: true });
    const second = await s.ok("wait_for_text", {
      cursor: first.cursor,
      patterns: ["^two-2$"],
      timeoutSeconds: 10,
    });
    assertEquals(second.outcome, "matched");
    // Output before a wait's cursor does not count again.
    const again = await s.ok("wait_for_text", {
      cursor: second.cursor,
      patterns: ["^one-2$", "^two-2$"],
      timeoutSeconds: 0.5,
    });
    assertEquals(again.outcome, "timeout");
  },
  { transports: ["control"] },
);

serverTest(
  "read batch: a row's arguments are checked against its tool, the error naming them",
  async (_fx, s) => {
    const batch = await s.ok<{ results: { success: boolean; error: string | null }[] }>(
      "call_read_tools_batch",
      {
        operations: [{ tool: "get_pane_info", arguments: { paneId: "3" } }, {
          tool: "list_windows",
          arguments: { sessoin: "main" },
        }],
        onError: "continue",
      },
    );
    assertEquals(batch.results.map((r) => r.success), [false, false]);
    assertStringIncludes(batch.results[0].error!, "get_pane_info failed:");
    assertStringIncludes(batch.results[0].error!, "'paneId' must be a pane id");
    assertStringIncludes(batch.results[1].error!, "unknown argument 'sessoin'");
  },
  { transports: ["control"] },
);
