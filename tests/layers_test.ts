/**
 * The folders are layers: main.ts, server/, tools/, domain/, core/, tmux/,
 * top to bottom. A module imports only from its own layer or those below,
 * and imports never go in a circle (docs/architecture.md, "Layers").
 */

import { assertEquals } from "./assert.ts";

const LAYERS = ["tmux", "core", "domain", "tools", "server", "."];
const ROOT = new URL("../", import.meta.url);

function layerOf(path: string): number {
  return LAYERS.indexOf(path.includes("/") ? path.slice(0, path.indexOf("/")) : ".");
}

/** Joins a relative specifier onto the importing file's folder, resolving `..`. */
function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const files = ["main.ts"];
  for (const folder of LAYERS.slice(0, -1)) {
    for await (const entry of Deno.readDir(new URL(`${folder}/`, ROOT))) {
      if (entry.isFile && entry.name.endsWith(".ts")) files.push(`${folder}/${entry.name}`);
    }
  }
  const specifier = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+\.ts)"/g;
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    graph.set(file, [...text.matchAll(specifier)].map((m) => resolve(file, m[1])));
  }
  return graph;
}

/** Every cycle's members, by depth-first search from each module. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push(path.slice(at));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

Deno.test("layers: no module imports from a layer above its own", async () => {
  const upward: string[] = [];
  for (const [file, imports] of await importGraph()) {
    for (const target of imports) {
      if (layerOf(target) > layerOf(file)) upward.push(`${file} -> ${target}`);
    }
  }
  assertEquals(upward, []);
});

Deno.test("layers: no import cycles", async () => {
  assertEquals(cycles(await importGraph()), []);
});

Deno.test("layers: the server imports only types from the MCP SDK, so none of its code loads", async () => {
  // `import type` is erased; any other import, export or dynamic import of
  // the SDK would load its schemas at start-up (docs/decisions/008-own-json-rpc-layer.md).
  const sdk = /(?:^|[;\s])(import|export)(\s+type)?\b[^;]*?["']@modelcontextprotocol\/[^"']*["']/g;
  const dynamic = /import\s*\(\s*["'`]@modelcontextprotocol\//;
  const loading: string[] = [];
  for (const file of (await importGraph()).keys()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const match of text.matchAll(sdk)) {
      if (!match[2]) loading.push(`${file}: ${match[0].trim().split("\n")[0]}`);
    }
    if (dynamic.test(text)) loading.push(`${file}: a dynamic import`);
  }
  assertEquals(loading, []);
});
