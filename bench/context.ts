/**
 * What the model pays to use the server, in bytes: the model-visible part of
 * each tool definition (name, title, description, input schema), the whole
 * `tools/list` answer, the instructions, and the text and structured bytes
 * of a typical result of the twelve most used tools. The server runs with
 * every toolset on a private tmux server (socket in a temp dir, `-f
 * /dev/null`), spoken to on the raw wire so the bytes are the ones sent.
 *
 * Usage: deno task context
 *
 * @module
 */

import { type RawServer, rawServer, TmuxFixture } from "../tests/harness.ts";

/** The most bytes the model-visible definitions of all tools may take. */
export const DEFINITIONS_MAX_BYTES = 25_000;
/** The most bytes the whole `tools/list` result may take. */
export const TOOLS_LIST_MAX_BYTES = 60_000;
/** The most bytes the read batch's input schema may take. */
export const BATCH_INPUT_MAX_BYTES = 2_000;

const encoder = new TextEncoder();

/** UTF-8 bytes of `value`'s JSON. */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/** A tool as `tools/list` sends it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

/** The bytes the model reads of a tool: its name, title, description and input schema. */
export function definitionBytes(tool: ListedTool): number {
  const { name, title, description, inputSchema } = tool;
  return jsonBytes({ name, title, description, inputSchema });
}

/** What a server started with `args` lists, and its instructions. */
export interface Listing {
  tools: ListedTool[];
  /** Bytes of the whole `tools/list` result. */
  listBytes: number;
  instructions: string;
}

let nextId = 100;

/** Sends request `method` and returns its result, failing on an error answer. */
export async function request(
  server: RawServer,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const id = nextId++;
  await server.send({ id, method, params });
  const answer = await server.answer(id);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result as Record<string, unknown>;
}

/** Initializes `server` and reads its tools and instructions. */
export async function readListing(server: RawServer): Promise<Listing> {
  await server.initialize();
  const init = (await server.answer(1)).result as { instructions?: string };
  const list = await request(server, "tools/list");
  return {
    tools: list.tools as ListedTool[],
    listBytes: jsonBytes(list),
    instructions: init.instructions ?? "",
  };
}

/** Text and structured bytes of one call's result. */
export interface ResultSize {
  tool: string;
  what: string;
  text: number;
  structured: number;
  /** The result's text, for reading. */
  sample: string;
}

async function call(
  server: RawServer,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await request(server, "tools/call", { name: tool, arguments: args });
  const text = (result.content as { text: string }[])[0].text;
  if (result.isError) throw new Error(`${tool} failed: ${text}`);
  return result;
}

function size(tool: string, what: string, result: Record<string, unknown>): ResultSize {
  const sample = (result.content as { text: string }[])[0].text;
  return {
    tool,
    what,
    text: encoder.encode(sample).length,
    structured: jsonBytes(result.structuredContent),
    sample,
  };
}

/** Typical results of the twelve most used tools on `fx`'s server (8 panes made here). */
export async function typicalResults(fx: TmuxFixture, server: RawServer): Promise<ResultSize[]> {
  const first = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
  await fx.tmux("split-window", "-t", first, ";", "split-window", "-t", first);
  await fx.tmux("new-window", "-t", "main:", ";", "split-window", ";", "split-window");
  await fx.tmux("split-window", "-t", "main:1", ";", "select-layout", "-t", "main:1", "tiled");
  await fx.tmux("select-layout", "-t", "main:0", "tiled", ";", "select-window", "-t", "main:0");
  const pane = await fx.shellPane();
  const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  await fx.runInPane(pane, "seq 1 200");
  const sizes: ResultSize[] = [];
  const measure = async (tool: string, what: string, args: Record<string, unknown>) => {
    const result = await call(server, tool, args);
    sizes.push(size(tool, what, result));
    return result.structuredContent as Record<string, unknown>;
  };
  await measure("list_panes", `${panes.length} panes`, { session: "main" });
  await measure("capture_pane", "a full screen", { paneId: pane });
  await measure("snapshot_pane", "a full screen", { paneId: pane });
  await measure("run_shell_command", "ls -la", { paneId: pane, command: "ls -la" });
  const { cursor } = await call(server, "capture_since", { paneId: pane })
    .then((r) => r.structuredContent as { cursor: string });
  await measure("send_keys", "echo ready, Enter", {
    paneId: pane,
    text: "echo ready",
    enter: true,
  });
  await measure("wait_for_text", "its reply, from a cursor", {
    paneId: pane,
    patterns: ["^ready$"],
    cursor,
  });
  await fx.runInPane(pane, "seq -f 'hit-%g' 1 5");
  await measure("search_panes", "5 hits", { pattern: "hit-\\d" });
  await measure("get_pane_info", "one pane", { paneId: pane });
  const created = await measure("create_session", "a session", { name: "bench" });
  await measure("split_window", "a pane", {
    paneId: (created.pane as { paneId: string }).paneId,
  });
  await measure("call_read_tools_batch", "4 reads", {
    operations: [
      { tool: "get_pane_info", arguments: { paneId: pane } },
      { tool: "list_windows", arguments: { session: "main" } },
      { tool: "capture_pane", arguments: { paneId: panes[0] } },
      { tool: "get_tmux_variables", arguments: { paneId: pane, names: ["pane_current_path"] } },
    ],
  });
  const since = await call(server, "capture_since", { paneId: pane })
    .then((r) => (r.structuredContent as { cursor: string }).cursor);
  await fx.runInPane(pane, "seq 1 20");
  await measure("capture_since", "after 20 new lines", { paneId: pane, cursor: since });
  return sizes;
}

/** Starts a fixture and a server with every toolset; runs `body`; cleans up. */
export async function withContextServer<T>(
  body: (fx: TmuxFixture, server: RawServer) => Promise<T>,
): Promise<T> {
  const fx = await TmuxFixture.start({ width: 80, height: 24 });
  const server = rawServer(["-S", fx.socketPath, "--toolsets", "inspect,manage,execute,teardown"], {
    stderr: "null",
  });
  try {
    return await body(fx, server);
  } finally {
    await server.hangUp();
    await server.child.status;
    await fx.close();
  }
}

function row(cells: (string | number)[]): string {
  return `| ${
    cells.map((c) => typeof c === "number" ? c.toLocaleString("en-US") : c).join(" | ")
  } |`;
}

if (import.meta.main) {
  const showText = Deno.args.includes("--text");
  await withContextServer(async (fx, server) => {
    const listing = await readListing(server);
    const perTool = listing.tools.map((t) => [t.name, definitionBytes(t)] as const)
      .sort((a, b) => b[1] - a[1]);
    const total = perTool.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log("## Definitions the model reads (name, title, description, input schema)\n");
    console.log(row(["tool", "bytes"]));
    console.log(row(["---", "---:"]));
    for (const [name, bytes] of perTool) console.log(row([name, bytes]));
    console.log(row([`**total (${perTool.length} tools)**`, total]));
    console.log(`\ngoal ≤ ${DEFINITIONS_MAX_BYTES.toLocaleString("en-US")}`);
    console.log(
      `whole tools/list: ${listing.listBytes.toLocaleString("en-US")} bytes (goal ≤ ${
        TOOLS_LIST_MAX_BYTES.toLocaleString("en-US")
      })`,
    );
    console.log(
      `instructions: ${encoder.encode(listing.instructions).length} bytes (goal ≤ 2,048)`,
    );
    console.log("\n## Typical results\n");
    console.log(row(["tool", "call", "text bytes", "structured bytes"]));
    console.log(row(["---", "---", "---:", "---:"]));
    const sizes = await typicalResults(fx, server);
    for (const s of sizes) console.log(row([s.tool, s.what, s.text, s.structured]));
    if (showText) { for (const s of sizes) console.log(`\n### ${s.tool}\n${s.sample}`); }
  });
}
