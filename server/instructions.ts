/**
 * The server instructions a model reads before anything else,
 * kept within 2,048 UTF-8 bytes whatever the selection, caller pane or
 * socket path: every sentence names only tools that are offered, and the
 * socket path (the one unbounded part) is shortened, then dropped, before
 * the budget could be exceeded.
 *
 * @module
 */

import { socketWords } from "./capabilities.ts";
import { readsTerminalContent } from "./catalog.ts";
import type { Settings } from "../core/settings.ts";
import { TOOLSETS } from "../core/toolsets.ts";

/** The most UTF-8 bytes the instructions may take. */
export const INSTRUCTIONS_MAX_BYTES = 2048;

/** A longer socket path is shown with its middle elided: past this it is noise. */
const MAX_SOCKET_BYTES = 160;

const encoder = new TextEncoder();

function bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Keeps the start and end of `text` within `max` UTF-8 bytes, eliding the middle. */
function elideMiddle(text: string, max: number): string {
  if (bytes(text) <= max) return text;
  const chars = [...text];
  let head = 0;
  let tail = chars.length;
  let kept = 1 + bytes("…");
  // Alternate sides so both the start and the socket's file name survive.
  while (head < tail) {
    const side = (tail - head) % 2 === 0 ? head : tail - 1;
    const size = bytes(chars[side]);
    if (kept + size > max) break;
    kept += size;
    if (side === head) head++;
    else tail--;
  }
  return `${chars.slice(0, head).join("")}…${chars.slice(tail).join("")}`;
}

/** Builds the instructions for this selection and caller. */
export function buildInstructions(
  settings: Settings,
  selected: readonly string[],
  callerPane: string | null,
): string {
  const has = (tool: string) => selected.includes(tool);
  const any = (...tools: string[]) => tools.filter(has);
  const lines: string[] = [
    "tmux-mcp lets you work in real terminals: tmux sessions, windows and panes.",
    "Ids: sessions $N (a `session` argument also takes the exact name), windows @N, panes %N. " +
    `Take them from ${
      any("list_sessions", "list_windows", "list_panes").join("/") || "earlier results"
    }; never guess.`,
    "Use tmux for shells, builds, tests, dev servers, REPLs, logs and terminal UIs. It is the " +
    "wrong tool for browser tabs, editor splits and desktop or window-manager windows: it " +
    "cannot see or drive them.",
  ];
  lines.push(...usageLines(selected), ...stateLines(settings, selected, callerPane));
  return withWatchLine(lines.join("\n"), settings);
}

/** Which tools to start with, and how to run, wait and read with the selected ones. */
function usageLines(selected: readonly string[]): string[] {
  const has = (tool: string) => selected.includes(tool);
  const any = (...tools: string[]) => tools.filter(has);
  const lines: string[] = [];
  // The few tools most work needs, first: a model reads on from here only as needed.
  const first = any("list_panes", "run_shell_command", "send_keys", "wait_for_text");
  if (first.length > 0) lines.push(`Start with ${first.join(", ")}.`);
  if (has("run_shell_command")) {
    lines.push(
      "Run a command with run_shell_command: it returns the exit status and output." +
        (has("send_keys")
          ? " Use send_keys for interactive programs (keys, answers to prompts)."
          : ""),
    );
  } else if (has("send_keys")) {
    lines.push("send_keys types text and keys; Enter only with enter: true.");
  }
  const waits = any("wait_for_text", "wait_for_channel");
  if (waits.length > 0) {
    lines.push(
      `Wait, don't poll: ${
        has("wait_for_text")
          ? "wait_for_text blocks until new output matches a pattern (stopPatterns end it early on failure)" +
            (has("send_keys")
              ? "; to catch the reply to keys you send, pass the cursor of the previous wait_for_text" +
                (has("capture_since") ? " (or capture_since)" : "")
              : "")
          : "wait_for_channel blocks until a tmux wait-for channel is signalled"
      }; never loop over captures or sleeps.`,
    );
  } else {
    lines.push("Don't poll in a tight loop: each read is a snapshot.");
  }
  const readers = any("snapshot_pane", "capture_since");
  if (readers.length > 0) {
    const why = [
      has("snapshot_pane") && "snapshot_pane gives text, cursor and pane state in one read",
      has("capture_since") && "capture_since returns only what is new since its cursor",
    ].filter(Boolean).join("; ");
    const repeated = has("capture_pane") ? "repeated capture_pane calls" : "repeated full reads";
    lines.push(`Prefer ${readers.join(" and ")} to ${repeated}: ${why}.`);
  }
  if (has("call_read_tools_batch")) lines.push("Group several reads in one call_read_tools_batch.");
  return lines;
}

/** The resources, the caller's pane and the toolsets on. */
function stateLines(
  settings: Settings,
  selected: readonly string[],
  callerPane: string | null,
): string[] {
  const lines: string[] = [];
  lines.push(
    readsTerminalContent(selected)
      ? "Resources: tmux://sessions, tmux://panes/{paneId} and tmux://panes/{paneId}/content; " +
        "subscribe to a pane's content to be told when it prints."
      : "Resources: tmux://sessions and tmux://panes/{paneId}.",
  );
  lines.push(
    callerPane
      ? `You run inside tmux pane ${callerPane}: that is your own terminal; tools will not type into it or kill it.`
      : "This server does not run inside a pane of the driven tmux server.",
  );
  const off = TOOLSETS.filter((t) => !settings.toolsets.includes(t));
  const byName = settings.tools.length + settings.excludeTools.length > 0
    ? `, after ${settings.tools.length} added and ${settings.excludeTools.length} excluded by name`
    : "";
  lines.push(
    `Toolsets on: ${settings.toolsets.join(", ") || "none"}${
      off.length > 0 ? `; off: ${off.join(", ")}` : ""
    }. ${selected.length} tools offered${byName}.`,
  );
  return lines;
}

/** `base` with the line that says how a person watches, when the socket fits. */
function withWatchLine(base: string, settings: Settings): string {
  // The words of attachCommand, apart: only the socket may be shortened to fit.
  const [flag, socket] = socketWords(settings.socket);
  const prefix = `\nA person can watch with: tmux ${flag} `;
  const suffix = " attach";
  const room = Math.min(
    MAX_SOCKET_BYTES,
    INSTRUCTIONS_MAX_BYTES - bytes(base) - bytes(prefix) - bytes(suffix),
  );
  // A socket shortened below a recognisable length helps nobody: leave the line out.
  if (room >= 24) return `${base}${prefix}${elideMiddle(socket, room)}${suffix}`;
  return base;
}
