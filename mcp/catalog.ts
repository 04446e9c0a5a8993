/**
 * Every tool this server implements. Selection (toolsets, --tools,
 * --exclude-tools) picks from here.
 *
 * @module
 */

import type { AnyTool } from "./registry.ts";
import { callReadToolsBatch } from "../tools/call_read_tools_batch.ts";
import { capturePane } from "../tools/capture_pane.ts";
import { findPaneByPosition } from "../tools/find_pane_by_position.ts";
import { getServerInfo } from "../tools/get_server_info.ts";
import { getTmuxVariables } from "../tools/get_tmux_variables.ts";
import { showEnvironment } from "../tools/show_environment.ts";
import { showHooks } from "../tools/show_hooks.ts";
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

/** All implemented tools, in the contract's order within each toolset. */
export const CATALOG: readonly AnyTool[] = [
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
];
