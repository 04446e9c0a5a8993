/**
 * Writes docs/tools.md, the tool reference, from the registry: every tool of
 * the catalog as `tools/list` describes it (description, arguments,
 * annotations, capability record) and its result fields with their
 * descriptions. tests/docs_test.ts fails when the file is stale.
 *
 * Usage: deno task docs
 *
 * @module
 */

import { z } from "zod";
import { CATALOG } from "../server/catalog.ts";
import { type AnyTool, type Capability, CAPABILITY_META_KEY } from "../core/registry.ts";
import { action, content, paneView, sessionView, windowView } from "../core/schemas.ts";
import { toolListing } from "../server/server.ts";
import { type Toolset, TOOLSETS } from "../core/toolsets.ts";

/** Where the reference is written, relative to the repository root. */
export const TOOLS_DOC_PATH = "docs/tools.md";

/** A JSON Schema node as zod writes it. */
type Node = Record<string, unknown>;

/** What each toolset is for, in a few words. */
const TOOLSET_PURPOSE: Record<Toolset, string> = {
  inspect: "read: list, capture, search, wait",
  manage: "rearrange: rename, resize, select, layout, options, wait-for channels",
  execute: "create panes and type into them: run commands, send keys, paste",
  teardown: "kill and clear",
};

/** Result views many tools share, documented once. */
const VIEWS: readonly { name: string; schema: z.ZodType; what: string }[] = [
  { name: "PaneView", schema: paneView, what: "A pane as every tool shows it." },
  { name: "WindowView", schema: windowView, what: "A window as every tool shows it." },
  { name: "SessionView", schema: sessionView, what: "A session as every tool shows it." },
  { name: "Content", schema: content, what: "Budgeted text, newest lines kept." },
  { name: "Action", schema: action, what: "What a changing tool did." },
];

const JS_SAFE = Number.MAX_SAFE_INTEGER;

/** The output JSON Schema of `schema`, without zod's safe-integer bounds. */
function outputSchema(schema: z.ZodType): Node {
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Node;
  delete json.$schema;
  return JSON.parse(
    JSON.stringify(
      json,
      (key, value) =>
        (key === "minimum" || key === "maximum") && Math.abs(value) === JS_SAFE ? undefined : value,
    ),
  );
}

/** `node` without its own description, which a field may add to a shared view. */
function shapeKey(node: Node): string {
  const { description: _, ...shape } = node;
  return JSON.stringify(shape);
}

const viewKeys = new Map(VIEWS.map((v) => [shapeKey(outputSchema(v.schema)), v.name]));

/** The shared view `node` is, if any. */
function viewOf(node: Node): string | undefined {
  return viewKeys.get(shapeKey(node));
}

/** Markdown-safe text for a table cell. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** `value` as code in a table cell. */
function code(value: unknown): string {
  return "`" + cell(typeof value === "string" ? value : JSON.stringify(value)) + "`";
}

/** The bounds of a number, string or array node, as `1–100`, `≥ 0` or `≤ 8`. */
function bounds(node: Node, low: string, high: string): string {
  const min = node[low] as number | undefined;
  const max = node[high] as number | undefined;
  if (min !== undefined && max !== undefined) return ` ${min}–${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

/** A node's type, short: `integer 1–100`, `"a" \| "b"`, `string[]`, `PaneView`. */
export function typeOf(node: Node): string {
  const view = viewOf(node);
  if (view) return `[${view}](#${view.toLowerCase()})`;
  if (Array.isArray(node.enum)) return node.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if ("const" in node) return JSON.stringify(node.const);
  const union = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  if (union) return union.map(typeOf).join(" \\| ");
  const type = node.type;
  if (Array.isArray(type)) return type.map((t) => typeOf({ ...node, type: t })).join(" \\| ");
  switch (type) {
    case "integer":
    case "number":
      return `${type}${bounds(node, "minimum", "maximum")}`;
    case "string":
      return `string${bounds(node, "minLength", "maxLength")}`;
    case "array": {
      const items = typeOf((node.items ?? {}) as Node);
      const inner = items.includes(" ") ? `(${items})` : items;
      return `${inner}[]${bounds(node, "minItems", "maxItems")}`;
    }
    case "object":
      return node.properties ? "object" : "record";
    case undefined:
      return "any";
    default:
      return String(type);
  }
}

/** The description of `node` or, for a union, of its first branch that has one. */
function describe(node: Node): string {
  if (typeof node.description === "string") return node.description;
  const union = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  return union?.map(describe).find((d) => d !== "") ?? "";
}

/** The object node inside `node` (itself, an array's items, a union's branch), if fields follow. */
function fieldsOf(node: Node): Node | undefined {
  if (viewOf(node)) return undefined;
  if (node.type === "object" && node.properties) return node;
  if (node.type === "array") return fieldsOf((node.items ?? {}) as Node);
  const union = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  return union?.map(fieldsOf).find((f) => f !== undefined);
}

/** Rows `field | type | description` for `object`, nested fields as `a.b` and `a[].b`. */
function resultRows(object: Node, prefix = ""): string[] {
  const required = new Set((object.required ?? []) as string[]);
  const rows: string[] = [];
  for (const [name, child] of Object.entries((object.properties ?? {}) as Record<string, Node>)) {
    const path = prefix + name;
    const optional = required.has(name) ? "" : " (optional)";
    rows.push(`| ${code(path)} | ${typeOf(child)}${optional} | ${cell(describe(child))} |`);
    const nested = fieldsOf(child);
    if (nested) rows.push(...resultRows(nested, nestedPrefix(path, child)));
  }
  return rows;
}

/** The prefix of the fields inside `node`, the field at `path`. */
function nestedPrefix(path: string, node: Node): string {
  return path + (isArray(node) ? "[]." : ".");
}

function isArray(node: Node): boolean {
  if (node.type === "array") return true;
  const union = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  return union?.some(isArray) ?? false;
}

/** Rows `argument | type | required / default | description` of `object`, nested as `a[].b`. */
function argumentRows(object: Node, prefix = ""): string[] {
  const required = new Set((object.required ?? []) as string[]);
  const rows: string[] = [];
  for (const [name, node] of Object.entries((object.properties ?? {}) as Record<string, Node>)) {
    const need = required.has(name)
      ? "required"
      : "default" in node
      ? `default ${code(node.default)}`
      : "optional";
    const path = prefix + name;
    rows.push(`| ${code(path)} | ${typeOf(node)} | ${need} | ${cell(describe(node))} |`);
    const nested = fieldsOf(node);
    if (nested) rows.push(...argumentRows(nested, nestedPrefix(path, node)));
  }
  return rows;
}

/** The arguments table of a listed input schema. */
function argumentsTable(input: Node): string[] {
  const rows = argumentRows(input);
  if (rows.length === 0) return ["No arguments."];
  return [
    "| argument | type | required / default | description |",
    "| --- | --- | --- | --- |",
    ...rows,
  ];
}

/** The annotations that hold, as words. */
function annotationWords(annotations: Record<string, boolean>): string {
  const on = Object.entries(annotations).filter(([, v]) => v).map(([k]) => code(k));
  return on.length > 0 ? on.join(", ") : "none";
}

/** The capability record, as list items. */
function capabilityLines(capability: Capability): string[] {
  const flags = (["mayExposeSecrets", "mayReturnUntrustedContent", "amplifiesFutureInput"] as const)
    .map((key) => `${code(key)} ${capability[key]}`).join(", ");
  return [
    `- Capability (\`_meta\`): process reach ${code(capability.processReach)}; tmux effects ` +
    `${capability.tmuxEffects.map(code).join(", ")}; output classes ` +
    `${capability.outputClasses.map(code).join(", ")}; ${flags}.`,
  ];
}

/** The section of one tool. */
function toolSection(tool: AnyTool): string[] {
  const listed = toolListing(tool);
  const capability = listed._meta[CAPABILITY_META_KEY];
  const output = outputSchema(tool.output);
  return [
    `### ${tool.name}`,
    "",
    `**${cell(tool.title)}**. ${listed.description}`,
    "",
    `- Toolset ${code(capability.toolset)}; annotations ${
      annotationWords({ ...listed.annotations })
    }.`,
    ...capabilityLines(capability),
    "",
    "Arguments:",
    "",
    ...argumentsTable(listed.inputSchema as Node),
    "",
    "Result (`structuredContent`):",
    "",
    "| field | type | description |",
    "| --- | --- | --- |",
    ...resultRows(output),
    "",
  ];
}

/** The shared views, each with its fields. */
function viewSections(): string[] {
  return VIEWS.flatMap((view) => [
    `### ${view.name}`,
    "",
    view.what,
    "",
    "| field | type | description |",
    "| --- | --- | --- |",
    ...resultRows(outputSchema(view.schema)),
    "",
  ]);
}

/** Every tool as a server with every toolset on offers it. */
export function allTools(): AnyTool[] {
  return CATALOG.map((tool, _, all) => tool.specialize?.(all) ?? tool);
}

/** The reference as markdown, before formatting. */
export function toolsMarkdown(tools: readonly AnyTool[] = allTools()): string {
  const lines = [
    "# Tools",
    "",
    "<!-- Generated by `deno task docs` from the tool registry; edit the tools, not this file. -->",
    "",
    `${tools.length} tools in ${TOOLSETS.length} toolsets. Descriptions, arguments and ` +
    "annotations are what `tools/list` sends; result fields are the tool's output schema. " +
    "How the tools behave in detail: [behaviour.md](behaviour.md). Settings that choose the " +
    "tools (`--toolsets`, `--tools`, `--exclude-tools`): [README](../README.md#settings).",
    "",
  ];
  for (const toolset of TOOLSETS) {
    const names = tools.filter((t) => t.capability.toolset === toolset)
      .map((t) => `[${t.name}](#${t.name})`);
    lines.push(`- **${toolset}** (${TOOLSET_PURPOSE[toolset]}): ${names.join(", ")}`);
  }
  lines.push("");
  for (const toolset of TOOLSETS) {
    lines.push(`## ${toolset}`, "");
    for (const tool of tools.filter((t) => t.capability.toolset === toolset)) {
      lines.push(...toolSection(tool));
    }
  }
  lines.push("## Shared result views", "", ...viewSections());
  return lines.join("\n");
}

/**
 * The file docs/tools.md should hold: generated text, which `deno fmt`
 * leaves alone (deno.json excludes it), so no formatter process is needed.
 */
export function toolsDoc(): string {
  return `${toolsMarkdown()}\n`;
}

if (import.meta.main) {
  const target = new URL(`../${TOOLS_DOC_PATH}`, import.meta.url);
  await Deno.writeTextFile(target, toolsDoc());
  console.log(`wrote ${TOOLS_DOC_PATH}`);
}
