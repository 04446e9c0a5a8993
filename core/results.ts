/**
 * Turning a handler's value or failure into the contract's result shapes,
 * and fitting the serialized result into the byte budget.
 *
 * @module
 */

import {
  type Content,
  isContent,
  keepNewestLines,
  keepNewestLineTail,
  utf8Length,
} from "./budget.ts";
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

/** The success result for `structured`: the structure and its rendering as the text block. */
export function resultOf(
  structured: Record<string, unknown>,
  render: (value: Record<string, unknown>) => string = renderJson,
): ToolResult {
  return { content: [{ type: "text", text: render(structured) }], structuredContent: structured };
}

/** The byte size of `result` as it goes on the wire (without the JSON-RPC envelope). */
export function resultBytes(result: ToolResult): number {
  return utf8Length(JSON.stringify(result));
}

/**
 * The JSON of results {@link successResult} serialized to measure them, so
 * that the writer sends that text instead of serializing a large result a
 * second time. Keyed by the result object, which nothing changes once built.
 */
const serialized = new WeakMap<object, string>();

/** The JSON `result` was measured as, when {@link successResult} built it. */
export function serializedResult(result: object): string | undefined {
  return serialized.get(result);
}

/**
 * `JSON.stringify(message)` for an outgoing JSON-RPC message, with the JSON
 * of a result {@link successResult} kept instead of a second serialization
 * (only the order of the envelope's keys may differ).
 */
export function messageJson(message: object): string {
  const result = (message as { result?: unknown }).result;
  const json = typeof result === "object" && result !== null ? serialized.get(result) : undefined;
  if (json === undefined) return JSON.stringify(message);
  const { result: _, ...envelope } = message as Record<string, unknown>;
  const rest = JSON.stringify(envelope);
  return rest === "{}" ? `{"result":${json}}` : `{"result":${json},${rest.slice(1)}`;
}

/** {@link resultBytes}, keeping the JSON for {@link serializedResult}. */
function measuredBytes(result: ToolResult): number {
  const json = JSON.stringify(result);
  serialized.set(result, json);
  return utf8Length(json);
}

/**
 * The most wire bytes `value` adds to a result rendered with
 * {@link renderJson}: its JSON in the structure, that JSON escaped again in
 * the text block, and a separating comma in each. Costs of parts add up, so a
 * tool can spend a byte budget piece by piece.
 */
export function jsonWireCost(value: unknown): number {
  const json = JSON.stringify(value);
  // The second copy's two quotes are not part of it; the two commas are.
  return utf8Length(json) + utf8Length(JSON.stringify(json));
}

/**
 * What to do when a result is over budget with its text already cut to
 * nothing: no smaller maxLines can help then, only a larger budget (or a
 * narrower call, which a tool names in its own hint).
 */
const RAISE_MAX_BYTES = "Only a larger --max-bytes returns this result whole; raise it.";

/**
 * Builds the success result, cutting budgeted text (oldest lines first,
 * largest block first) to the most that keeps the whole serialized result
 * within `maxBytes`. When even no text does not fit, the error says
 * `overBudgetHint`, and, for a tool that `changed` tmux, that the change was
 * made: the call did its work, only its report is missing.
 */
export function successResult(
  structured: Record<string, unknown>,
  render: (value: Record<string, unknown>) => string,
  maxBytes: number,
  overBudgetHint = RAISE_MAX_BYTES,
  changed = false,
): ToolResult {
  const build = () => resultOf(structured, render);
  let result = build();
  if (render === renderJson && jsonResultBound(result.content[0].text) <= maxBytes) return result;
  let size = measuredBytes(result);
  if (size <= maxBytes) return result;
  const blocks = collectContent(structured)
    .filter((c) => c.lines.length > 0)
    .sort((a, b) => byteSize(b) - byteSize(a));
  for (const block of blocks) {
    // A block emptied without the result fitting hands over to the next one.
    fitBlock(block, size, () => resultBytes(build()), maxBytes);
    result = build();
    size = measuredBytes(result);
    if (size <= maxBytes) return result;
  }
  // The size with every text block emptied: the least budget that returns the result at all.
  const needs = `${maxBytes} bytes; it needs at least ${size}`;
  throw new ToolError(
    changed
      ? `tmux made the change, but the result describing it is larger than the byte budget (${needs})`
      : `the result is larger than the byte budget (${needs})`,
    changed ? `Do not repeat the call. ${overBudgetHint}` : overBudgetHint,
  );
}

/**
 * Cuts `block` in place to its newest lines, as many as keep `measure()`
 * (the serialized size of the whole result, `size` now) within `maxBytes`;
 * when not one line fits, to the longest tail of the newest line that does.
 * Leaves the block empty when even that is too large.
 */
function fitBlock(block: Content, size: number, measure: () => number, maxBytes: number): void {
  const base: Content = { ...block, lines: [...block.lines] };
  const n = base.lines.length;
  const linesAt = (k: number) => {
    Object.assign(block, keepNewestLines(base, k));
    return measure();
  };
  const empty = linesAt(0);
  if (empty > maxBytes) return;
  // Where to probe: the serialized size grows with each kept line's wire cost.
  const weight = [0];
  for (let i = n - 1; i >= 0; i--) {
    weight.push(weight[weight.length - 1] + jsonWireCost(base.lines[i]));
  }
  const kept = largestWithin(0, empty, n, size, maxBytes, linesAt, (k) => weight[k]);
  if (kept > 0) {
    Object.assign(block, keepNewestLines(base, kept));
    return;
  }
  const newest = utf8Length(base.lines[n - 1]);
  const tailAt = (bytes: number) => {
    Object.assign(block, keepNewestLineTail(base, bytes));
    return measure();
  };
  const bytes = largestWithin(0, empty, newest, linesAt(1), maxBytes, tailAt, (b) => b);
  Object.assign(block, keepNewestLineTail(base, bytes));
}

/**
 * The largest `k` in [lo, hi) with `sizeAt(k) <= max`, given `sizeAt(lo) =
 * sizeLo <= max < sizeHi = sizeAt(hi)` and that sizes grow with `k`. Probes
 * where `weight` (a cheap proxy of the size) interpolates the budget, then the
 * neighbour, bisecting when that does not halve the range: a few
 * serializations for any length, not one per line.
 */
function largestWithin(
  lo: number,
  sizeLo: number,
  hi: number,
  sizeHi: number,
  max: number,
  sizeAt: (k: number) => number,
  weight: (k: number) => number,
): number {
  let bisect = false;
  while (hi - lo > 1) {
    const width = hi - lo;
    let k: number;
    if (bisect) {
      k = lo + Math.floor(width / 2);
    } else {
      const target = weight(lo) +
        (max - sizeLo) / (sizeHi - sizeLo) * (weight(hi) - weight(lo));
      // The largest k whose weight is within the target (weights never decrease).
      let a = lo, b = hi;
      while (b - a > 1) {
        const m = a + Math.floor((b - a) / 2);
        if (weight(m) <= target) a = m;
        else b = m;
      }
      k = Math.min(hi - 1, Math.max(lo + 1, a));
    }
    const size = sizeAt(k);
    if (size <= max) {
      [lo, sizeLo] = [k, size];
      if (hi - lo > 1) {
        const next = sizeAt(lo + 1);
        if (next > max) return lo;
        [lo, sizeLo] = [lo + 1, next];
      }
    } else {
      [hi, sizeHi] = [k, size];
      if (hi - lo > 1) {
        const previous = sizeAt(hi - 1);
        if (previous <= max) return hi - 1;
        [hi, sizeHi] = [hi - 1, previous];
      }
    }
    bisect = !bisect && hi - lo > width / 2;
  }
  return lo;
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
