/**
 * The JSON Schemas `tools/list` sends. Input schemas are made portable:
 * some clients' schema dialects (Gemini's among them) reject `type` arrays
 * and `null` branches, so an optional argument that also accepts null is
 * advertised as merely optional (the server still takes null). Output
 * schemas lose their prose: the model reads the result, not its schema.
 *
 * @module
 */

import { z } from "zod";

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `root` and every schema nested in it, each after the schemas nested in it.
 * Collected first, then changed in one plain loop, and without recursion: a
 * recursive walk calling a change back for each schema runs hot enough for
 * V8 to compile it on the main thread, again per kind of change.
 */
function nodesOf(root: Node): Node[] {
  const found: Node[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    found.push(node);
    for (const key of ["properties", "$defs", "definitions"]) {
      const map = node[key];
      if (isNode(map)) pending.push(...Object.values(map).filter(isNode));
    }
    for (const key of ["items", "additionalProperties", "not"]) {
      if (isNode(node[key])) pending.push(node[key] as Node);
    }
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      const list = node[key];
      if (Array.isArray(list)) pending.push(...list.filter(isNode));
    }
  }
  // Each schema was found before those nested in it.
  return found.reverse();
}

function isNullBranch(node: unknown): boolean {
  return isNode(node) && node.type === "null" && Object.keys(node).length === 1;
}

/** Drops a `null` alternative: `type: [T, "null"]` becomes `T`, `anyOf: [X, null]` becomes X. */
function dropNull(node: Node): void {
  if (Array.isArray(node.type)) {
    const types = node.type.filter((t) => t !== "null");
    node.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(node.anyOf) && node.anyOf.some(isNullBranch)) {
    const rest = node.anyOf.filter((branch) => !isNullBranch(branch));
    delete node.anyOf;
    if (rest.length === 1 && isNode(rest[0])) {
      // The other branch's keywords join the node's own (description, default).
      for (const [key, value] of Object.entries(rest[0])) if (!(key in node)) node[key] = value;
    } else {
      node.anyOf = rest;
    }
  }
}

/**
 * Drops what says nothing: zod's safe-integer bounds of every `z.int()`,
 * string keys, and `additionalProperties: {}` (any value, the default).
 */
function dropSafeBounds(node: Node): void {
  if (isNode(node.propertyNames) && node.propertyNames.type === "string") delete node.propertyNames;
  if (isNode(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) {
    delete node.additionalProperties;
  }
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
}

/** `anyOf: [{type: T}, {type: "null"}]` written the short way, `type: [T, "null"]`. */
function nullableAsTypeArray(node: Node): void {
  const list = node.anyOf;
  if (!Array.isArray(list) || list.length !== 2 || !list.some(isNullBranch)) return;
  const other = list.find((branch) => !isNullBranch(branch));
  if (!isNode(other) || typeof other.type !== "string" || Object.keys(other).length !== 1) return;
  delete node.anyOf;
  node.type = [other.type, "null"];
}

/**
 * `schema` as JSON Schema for `io`, without what says nothing, and with
 * `change` applied to each of its schemas after those nested in it.
 */
function converted(schema: z.ZodType, io: "input" | "output", change: (node: Node) => void): Node {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Node;
  delete json.$schema;
  for (const node of nodesOf(json)) {
    dropSafeBounds(node);
    change(node);
  }
  return json;
}

/** The input schema of a tool as listed: portable, null alternatives left out. */
export function inputJsonSchema(schema: z.ZodType): Node {
  return converted(schema, "input", dropNull);
}

/**
 * The output schema of a tool as listed: the shape only. No descriptions (the
 * result's text says what matters), and neither `required` nor closed
 * objects: only the server writes results, and listing every field's name a
 * second time per object doubled what a client pays for the shapes.
 */
export function outputJsonSchema(schema: z.ZodType): Node {
  return converted(schema, "output", (node) => {
    delete node.description;
    delete node.required;
    if (node.additionalProperties === false) delete node.additionalProperties;
    nullableAsTypeArray(node);
  });
}

/**
 * What a strict schema linter (MCP Inspector's `--strict`) objects to in
 * `schema`, one line per finding with its path: `type` arrays, `nullable`,
 * `null` types and branches, a property without a `type` or a union, and an
 * empty schema for additional properties.
 */
export function portabilityProblems(schema: Node, path = "$"): string[] {
  const found: string[] = [];
  const visit = (node: Node, at: string) => {
    if (Array.isArray(node.type)) found.push(`${at}: type array ${JSON.stringify(node.type)}`);
    if (node.type === "null") found.push(`${at}: null type`);
    if ("nullable" in node) found.push(`${at}: nullable`);
    if (isNode(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) {
      found.push(`${at}: empty additionalProperties`);
    }
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const list = node[key];
      if (Array.isArray(list)) {
        list.forEach((child, i) => isNode(child) && visit(child, `${at}.${key}[${i}]`));
      }
    }
    if (isNode(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        if (!isNode(child)) continue;
        const typed = "type" in child || "anyOf" in child || "oneOf" in child || "enum" in child ||
          "const" in child;
        if (!typed) found.push(`${at}.${name}: no type`);
        visit(child, `${at}.${name}`);
      }
    }
    if (isNode(node.items)) visit(node.items, `${at}[]`);
  };
  visit(schema, path);
  return found;
}
