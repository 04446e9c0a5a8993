/**
 * The text block of the list tools: one line per session, window or pane
 * with every field of its view, for clients that show the model text rather
 * than structured content. A line reads `key=value`, with flags named only
 * when set and unknown values (null) left out; it is about half the JSON's
 * size, which a model pays for in tokens and the pipe in time.
 *
 * @module
 */

import type { PaneView, SessionView, WindowView } from "../tmux/views.ts";
import { counted } from "./words.ts";

/** `value` bare when it is one plain word, else as a JSON string (quotes, escapes). */
export function word(value: string): string {
  return /^[\w@%$.\/:+,~-]+$/.test(value) ? value : JSON.stringify(value);
}

/** `key=value` pairs of the known values, then the names of the set flags. */
function line(
  id: string,
  values: [string, string | number | null][],
  flags: [string, boolean][],
): string {
  const parts = [id];
  for (const [key, value] of values) {
    if (value !== null) parts.push(`${key}=${typeof value === "string" ? word(value) : value}`);
  }
  for (const [name, set] of flags) if (set) parts.push(name);
  return parts.join(" ");
}

/** A heading that counts `items` (`3 panes:`, `1 pane:`, `0 panes`), then a line per item. */
function listing<T>(noun: string, items: readonly T[], toLine: (item: T) => string): string {
  const count = items.length;
  const heading = `${counted(count, noun)}${count === 0 ? "" : ":"}`;
  return [heading, ...items.map(toLine)].join("\n");
}

/** One line per pane. */
export function renderPanes(panes: readonly PaneView[]): string {
  return listing("pane", panes, paneLine);
}

/** A pane's line: its id, then its known values and set flags. */
export function paneLine(p: PaneView): string {
  return line(
    p.paneId,
    [
      ["window", p.windowId],
      ["session", p.sessionId],
      ["index", p.index],
      ["size", `${p.width}x${p.height}`],
      ["command", p.currentCommand],
      ["pid", p.pid],
      ["path", p.currentPath],
      ["title", p.title],
      ["history", p.historySize],
      ["historyLimit", p.historyLimit],
    ],
    [["active", p.active], ["zoomed", p.zoomed], ["dead", p.dead], ["inMode", p.inMode], [
      "isCaller",
      p.isCaller,
    ]],
  );
}

/** One line per window. */
export function renderWindows(windows: readonly WindowView[]): string {
  return listing("window", windows, windowLine);
}

/** A window's line. */
export function windowLine(w: WindowView): string {
  return line(
    w.windowId,
    [
      ["session", w.sessionId],
      ["index", w.index],
      ["name", w.name],
      ["size", `${w.width}x${w.height}`],
      ["panes", w.panes],
      ["activePane", w.activePaneId],
      ["layout", w.layout],
    ],
    [["active", w.active], ["zoomed", w.zoomed]],
  );
}

/** One line per session. */
export function renderSessions(sessions: readonly SessionView[]): string {
  return listing("session", sessions, sessionLine);
}

/** A session's line. */
export function sessionLine(s: SessionView): string {
  return line(
    s.sessionId,
    [
      ["name", s.name],
      ["windows", s.windows],
      ["attached", s.attached],
      ["created", s.created],
      ["activeWindow", s.activeWindowId],
      ["activePane", s.activePaneId],
    ],
    [],
  );
}
