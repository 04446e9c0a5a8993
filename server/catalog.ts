/**
 * Every tool this server implements. Selection (toolsets, --tools,
 * --exclude-tools) picks from here.
 *
 * @module
 */

import type { AnyTool } from "../core/registry.ts";
import { callReadToolsBatch } from "../tools/call_read_tools_batch.ts";
import { capturePane } from "../tools/capture_pane.ts";
import { findPaneByPosition } from "../tools/find_pane_by_position.ts";
import { getServerInfo } from "../tools/get_server_info.ts";
import { getTmuxVariables } from "../tools/get_tmux_variables.ts";
import { showEnvironment } from "../tools/show_environment.ts";
import { showHooks } from "../tools/show_hooks.ts";
import { searchPanes } from "../tools/search_panes.ts";
import { showOption } from "../tools/show_option.ts";
import { getPaneInfo } from "../tools/get_pane_info.ts";
import { getSessionInfo } from "../tools/get_session_info.ts";
import { getWindowInfo } from "../tools/get_window_info.ts";
import { listPanes } from "../tools/list_panes.ts";
import { listSessions } from "../tools/list_sessions.ts";
import { listWindows } from "../tools/list_windows.ts";
import { snapshotPane } from "../tools/snapshot_pane.ts";
import { captureSince } from "../tools/capture_since.ts";
import { waitForTextTool } from "../tools/wait_for_text.ts";
import { signalChannel } from "../tools/signal_channel.ts";
import { waitForChannelTool } from "../tools/wait_for_channel.ts";
import { pasteText } from "../tools/paste_text.ts";
import { runShellCommand } from "../tools/run_shell_command.ts";
import { sendKeys } from "../tools/send_keys.ts";
import { sendKeysBatch } from "../tools/send_keys_batch.ts";
import { moveWindow } from "../tools/move_window.ts";
import { renameSession } from "../tools/rename_session.ts";
import { renameWindow } from "../tools/rename_window.ts";
import { resizePane } from "../tools/resize_pane.ts";
import { resizeWindow } from "../tools/resize_window.ts";
import { selectLayout } from "../tools/select_layout.ts";
import { selectPane } from "../tools/select_pane.ts";
import { selectWindow } from "../tools/select_window.ts";
import { setHistoryLimit } from "../tools/set_history_limit.ts";
import { setMouseEnabled } from "../tools/set_mouse_enabled.ts";
import { setPaneTitle } from "../tools/set_pane_title.ts";
import { swapPane } from "../tools/swap_pane.ts";
import { createSession } from "../tools/create_session.ts";
import { createWindow } from "../tools/create_window.ts";
import { splitWindow } from "../tools/split_window.ts";
import { respawnPane } from "../tools/respawn_pane.ts";
import { setSynchronizePanes } from "../tools/set_synchronize_panes.ts";
import { clearPaneScrollback } from "../tools/clear_pane_scrollback.ts";
import { killPane } from "../tools/kill_pane.ts";
import { killWindow } from "../tools/kill_window.ts";
import { killSession } from "../tools/kill_session.ts";

/** What start-up needs to check a selection that keeps the batch tool. */
export { nestable, READ_BATCH } from "../tools/call_read_tools_batch.ts";

/**
 * All implemented tools, in the contract's order within each toolset; each
 * keeps its own type (the tests type each tool's result by name from it).
 */
export const CATALOG = [
  // inspect
  listSessions,
  listWindows,
  listPanes,
  getServerInfo,
  getSessionInfo,
  getWindowInfo,
  getPaneInfo,
  findPaneByPosition,
  getTmuxVariables,
  showOption,
  showEnvironment,
  showHooks,
  capturePane,
  captureSince,
  snapshotPane,
  searchPanes,
  waitForTextTool,
  callReadToolsBatch,
  // manage: wait-for channels
  signalChannel,
  waitForChannelTool,
  // execute: input
  runShellCommand,
  sendKeys,
  sendKeysBatch,
  pasteText,
  // manage: workspace
  moveWindow,
  renameSession,
  renameWindow,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setHistoryLimit,
  setMouseEnabled,
  setPaneTitle,
  swapPane,
  // execute: workspace
  createSession,
  createWindow,
  splitWindow,
  respawnPane,
  setSynchronizePanes,
  // teardown
  clearPaneScrollback,
  killPane,
  killWindow,
  killSession,
] as const satisfies readonly AnyTool[];

/**
 * True when one of the tools named `selected` returns what panes show
 * (terminal-content): only then do the live resources offer pane text.
 */
export function readsTerminalContent(selected: readonly string[]): boolean {
  return CATALOG.some((tool) =>
    selected.includes(tool.name) && tool.capability.outputClasses.includes("terminal-content")
  );
}
