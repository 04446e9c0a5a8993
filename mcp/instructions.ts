/**
 * The server instructions a model reads before anything else (CONTRACT §7),
 * kept within 2,048 UTF-8 bytes.
 *
 * @module
 */

import type { Settings } from "./settings.ts";

/** The most UTF-8 bytes the instructions may take. */
export const INSTRUCTIONS_MAX_BYTES = 2048;

/** Builds the instructions for this selection and caller. */
export function buildInstructions(
  settings: Settings,
  selected: readonly string[],
  callerPane: string | null,
): string {
  const has = (tool: string) => selected.includes(tool);
  const socket = settings.socket.kind === "name"
    ? `tmux -L ${settings.socket.name}`
    : `tmux -S ${settings.socket.path}`;
  const lines = [
    "tmux-mcp lets you work in real terminals: tmux sessions, windows and panes.",
    "Ids: sessions $N, windows @N, panes %N. Take ids from list_sessions/list_windows/list_panes; never guess them.",
    "Use tmux for shells, builds, tests, dev servers, REPLs and TUIs. Not for browser tabs, editor splits or desktop windows: tmux cannot see those.",
  ];
  if (has("run_shell_command")) {
    lines.push(
      "To run a command and learn its exit status and output, use run_shell_command, not send_keys plus reading the screen.",
    );
  }
  if (has("wait_for_text")) {
    lines.push(
      "Wait, don't poll: wait_for_text blocks until new output matches (or any output, or a timeout).",
    );
  }
  const readers = ["snapshot_pane", "capture_since"].filter(has);
  if (readers.length > 0) {
    lines.push(
      `Prefer ${readers.join(" and ")} to repeated capture_pane calls: ${
        has("capture_since")
          ? "capture_since returns only what is new since its cursor"
          : "one consistent read"
      }.`,
    );
  }
  if (has("call_read_tools_batch")) lines.push("Group several reads in one call_read_tools_batch.");
  lines.push(
    callerPane
      ? `You run inside tmux pane ${callerPane}: it is yours; tools will not type into it or kill it.`
      : "This server does not run inside a pane of the driven tmux server.",
  );
  lines.push(
    `Toolsets on: ${
      settings.toolsets.join(", ") || "none"
    }. A person can watch with: ${socket} attach`,
  );
  let text = lines.join("\n");
  const encoder = new TextEncoder();
  while (encoder.encode(text).length > INSTRUCTIONS_MAX_BYTES && lines.length > 1) {
    // A very long socket path is the only unbounded part; drop the last line first.
    lines.pop();
    text = lines.join("\n");
  }
  return text;
}
