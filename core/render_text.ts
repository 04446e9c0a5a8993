/**
 * The text block of a result whose tool has no rendering of its own: compact
 * lines for a model, never the structured JSON again. Scalars read
 * `key=value` on one line; a pane, window or session reads as its list line;
 * a list of them as a counted listing; text blocks as their lines.
 *
 * @module
 */

import type { PaneView, SessionView, WindowView } from "../tmux/views.ts";
import { type Content, contentText, isContent } from "./budget.ts";
import { paneLine, sessionLine, windowLine, word } from "./render_views.ts";
import { counted } from "./words.ts";

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The list line of a pane, window or session view; undefined for anything else. */
function viewLine(value: Record_): string | undefined {
  if (typeof value.paneId === "string" && "isCaller" in value) {
    return paneLine(value as unknown as PaneView);
  }
  if (typeof value.windowId === "string" && "layout" in value) {
    return windowLine(value as unknown as WindowView);
  }
  if (typeof value.sessionId === "string" && "activeWindowId" in value) {
    return sessionLine(value as unknown as SessionView);
  }
  return undefined;
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== "object";
}

function scalar(value: unknown): string {
  return typeof value === "string" ? word(value) : String(value);
}

/** `key=value` pairs of the scalars and string lists of `value`, on one line. */
function pairs(value: Record_): string {
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (isScalar(item)) parts.push(`${key}=${scalar(item)}`);
    else if (Array.isArray(item) && item.every(isScalar)) {
      if (item.length > 0) parts.push(`${key}=${item.map(scalar).join(",")}`);
    } else if (
      isRecord(item) && viewLine(item) === undefined && !isContent(item) &&
      Object.values(item).every(isScalar)
    ) {
      // A small map (variables, values): inline, as name=value.
      const inner = Object.entries(item).map(([k, v]) => `${word(k)}=${scalar(v)}`);
      parts.push(`${key}{${inner.join(" ")}}`);
    }
  }
  return parts.join(" ");
}

/** The lines of one nested object or list, labelled with `key`. */
function nested(key: string, item: unknown): string[] {
  if (isContent(item)) return [contentText(key, item as Content)];
  if (isRecord(item)) {
    const line = viewLine(item);
    if (line !== undefined) return [`${key}: ${line}`];
    // All scalars: inlined by pairs().
    if (Object.values(item).every(isScalar)) return [];
    return [`${key}:`, ...renderText(item).split("\n").map((l) => `  ${l}`)];
  }
  if (Array.isArray(item) && item.some(isRecord)) {
    const rows = item.map((x) => isRecord(x) ? viewLine(x) ?? pairs(x) : scalar(x));
    return [`${key}: ${counted(item.length, "item")}`, ...rows.map((r) => `  ${r}`)];
  }
  return [];
}

/** Compact text of a structured result. */
export function renderText(value: Record_): string {
  const head = pairs(value);
  const lines = head === "" ? [] : [head];
  for (const [key, item] of Object.entries(value)) lines.push(...nested(key, item));
  return lines.join("\n");
}
