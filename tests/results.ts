/**
 * The structured result of each tool, typed from its output schema:
 * {@link Session.ok} called with a tool's name returns that tool's entry.
 *
 * @module
 */

import type { z } from "zod";
import type { capturePane } from "../tools/capture_pane.ts";
import type { captureSince } from "../tools/capture_since.ts";
import type { clearPaneScrollback } from "../tools/clear_pane_scrollback.ts";
import type { createSession } from "../tools/create_session.ts";
import type { createWindow } from "../tools/create_window.ts";
import type { findPaneByPosition } from "../tools/find_pane_by_position.ts";
import type { getPaneInfo } from "../tools/get_pane_info.ts";
import type { getServerInfo } from "../tools/get_server_info.ts";
import type { getSessionInfo } from "../tools/get_session_info.ts";
import type { getTmuxVariables } from "../tools/get_tmux_variables.ts";
import type { getWindowInfo } from "../tools/get_window_info.ts";
import type { killPane } from "../tools/kill_pane.ts";
import type { killSession } from "../tools/kill_session.ts";
import type { killWindow } from "../tools/kill_window.ts";
import type { listPanes } from "../tools/list_panes.ts";
import type { listSessions } from "../tools/list_sessions.ts";
import type { listWindows } from "../tools/list_windows.ts";
import type { moveWindow } from "../tools/move_window.ts";
import type { pasteText } from "../tools/paste_text.ts";
import type { renameSession } from "../tools/rename_session.ts";
import type { renameWindow } from "../tools/rename_window.ts";
import type { resizePane } from "../tools/resize_pane.ts";
import type { resizeWindow } from "../tools/resize_window.ts";
import type { respawnPane } from "../tools/respawn_pane.ts";
import type { runShellCommand } from "../tools/run_shell_command.ts";
import type { searchPanes } from "../tools/search_panes.ts";
import type { selectLayout } from "../tools/select_layout.ts";
import type { selectPane } from "../tools/select_pane.ts";
import type { selectWindow } from "../tools/select_window.ts";
import type { sendKeys } from "../tools/send_keys.ts";
import type { sendKeysBatch } from "../tools/send_keys_batch.ts";
import type { setHistoryLimit } from "../tools/set_history_limit.ts";
import type { setMouseEnabled } from "../tools/set_mouse_enabled.ts";
import type { setPaneTitle } from "../tools/set_pane_title.ts";
import type { setSynchronizePanes } from "../tools/set_synchronize_panes.ts";
import type { showEnvironment } from "../tools/show_environment.ts";
import type { showHooks } from "../tools/show_hooks.ts";
import type { showOption } from "../tools/show_option.ts";
import type { signalChannel } from "../tools/signal_channel.ts";
import type { snapshotPane } from "../tools/snapshot_pane.ts";
import type { splitWindow } from "../tools/split_window.ts";
import type { swapPane } from "../tools/swap_pane.ts";
import type { waitForChannelTool } from "../tools/wait_for_channel.ts";
import type { waitForTextTool } from "../tools/wait_for_text.ts";

type Out<T extends { output: z.ZodType }> = z.infer<T["output"]>;

/** Tool name to structured result. */
export interface ToolResults {
  capture_pane: Out<typeof capturePane>;
  capture_since: Out<typeof captureSince>;
  clear_pane_scrollback: Out<typeof clearPaneScrollback>;
  create_session: Out<typeof createSession>;
  create_window: Out<typeof createWindow>;
  find_pane_by_position: Out<typeof findPaneByPosition>;
  get_pane_info: Out<typeof getPaneInfo>;
  get_server_info: Out<typeof getServerInfo>;
  get_session_info: Out<typeof getSessionInfo>;
  get_tmux_variables: Out<typeof getTmuxVariables>;
  get_window_info: Out<typeof getWindowInfo>;
  kill_pane: Out<typeof killPane>;
  kill_session: Out<typeof killSession>;
  kill_window: Out<typeof killWindow>;
  list_panes: Out<typeof listPanes>;
  list_sessions: Out<typeof listSessions>;
  list_windows: Out<typeof listWindows>;
  move_window: Out<typeof moveWindow>;
  paste_text: Out<typeof pasteText>;
  rename_session: Out<typeof renameSession>;
  rename_window: Out<typeof renameWindow>;
  resize_pane: Out<typeof resizePane>;
  resize_window: Out<typeof resizeWindow>;
  respawn_pane: Out<typeof respawnPane>;
  run_shell_command: Out<typeof runShellCommand>;
  search_panes: Out<typeof searchPanes>;
  select_layout: Out<typeof selectLayout>;
  select_pane: Out<typeof selectPane>;
  select_window: Out<typeof selectWindow>;
  send_keys: Out<typeof sendKeys>;
  send_keys_batch: Out<typeof sendKeysBatch>;
  set_history_limit: Out<typeof setHistoryLimit>;
  set_mouse_enabled: Out<typeof setMouseEnabled>;
  set_pane_title: Out<typeof setPaneTitle>;
  set_synchronize_panes: Out<typeof setSynchronizePanes>;
  show_environment: Out<typeof showEnvironment>;
  show_hooks: Out<typeof showHooks>;
  show_option: Out<typeof showOption>;
  signal_channel: Out<typeof signalChannel>;
  snapshot_pane: Out<typeof snapshotPane>;
  split_window: Out<typeof splitWindow>;
  swap_pane: Out<typeof swapPane>;
  wait_for_channel: Out<typeof waitForChannelTool>;
  wait_for_text: Out<typeof waitForTextTool>;
}
