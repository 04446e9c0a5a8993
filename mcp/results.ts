/**
 * Turning a handler's value or failure into the contract's result shapes,
 * and fitting the serialized result into the byte budget.
 *
 * @module
 */

import { type Content, isContent, shrinkContent, utf8Length } from "./budget.ts";
import { errorText, ToolError } from "./errors.ts";

/** A `tools/call` result as this server sends it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The failure result of `tool` for `error`. */
export function errorResult(tool: string, error: unknown): ToolResult {
  return { isError: true, content: [{ type: "text", text: errorText(tool, error) }] };
}

/** The byte size of `result` as it goes on the wire (without the JSON-RPC envelope). */
export function resultBytes(result: ToolResult): number {
  return utf8Length(JSON.stringify(result));
}

/**
 * Builds the success result, shrinking budgeted text (oldest lines first,
 * largest block first) until the whole serialized result fits `maxBytes`.
 */
export function successResult(
  structured: Record<string, unknown>,
  render: (value: Record<string, unknown>) => string,
  maxBytes: number,
): ToolResult {
  const build = (): ToolResult => ({
    content: [{ type: "text", text: render(structured) }],
    structuredContent: structured,
  });
  let result = build();
  if (render === renderJson && jsonResultBound(result.content[0].text) <= maxBytes) return result;
  let size = resultBytes(result);
  for (let round = 0; size > maxBytes && round < 64; round++) {
    const blocks = collectContent(structured).filter((c) => c.lines.length > 0);
    if (blocks.length === 0) break;
    const largest = blocks.reduce((a, b) => (byteSize(a) >= byteSize(b) ? a : b));
    // Text appears in both the structure and the text block, JSON-escaped:
    // drop a bit more than half the excess per round, at least one line's worth.
    shrinkContent(largest, Math.max(Math.ceil((size - maxBytes) / 2) + 64, 1));
    result = build();
    size = resultBytes(result);
  }
  if (size > maxBytes) {
    throw new ToolError(
      `the result is larger than the byte budget (${maxBytes} bytes)`,
      "Narrow the request (fewer panes, fewer lines, a smaller maxLines) or raise --max-bytes.",
    );
  }
  return result;
}

/**
 * An upper bound of the wire size of a result whose text is `json`, the JSON
 * of its structured content: the structure once, the text escaped (at most
 * doubled: JSON holds no raw control characters), three UTF-8 bytes per
 * UTF-16 unit at most. Below the budget, the exact (costly) size is not needed.
 */
function jsonResultBound(json: string): number {
  return 3 * (3 * json.length + 64);
}

function byteSize(content: Content): number {
  return content.lines.reduce((sum, line) => sum + utf8Length(line) + 1, 0);
}

/** Every budgeted text block inside `value`. */
function collectContent(value: unknown, found: Content[] = []): Content[] {
  if (isContent(value)) {
    found.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectContent(item, found);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) collectContent(item, found);
  }
  return found;
}

/** The default text block: the structured result as compact JSON. */
export function renderJson(value: Record<string, unknown>): string {
  return JSON.stringify(value);
}
