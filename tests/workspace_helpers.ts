/**
 * Helpers shared by the workspace tests (tests/workspace_*_test.ts): a
 * server test with every toolset on, a read of one tmux format, and names
 * that must reach tmux as text.
 *
 * @module
 */

import type { z } from "zod";
import type { action } from "../core/schemas.ts";
import {
  ALL_TOOLSETS,
  serverTest,
  type ServerTestBody,
  type TmuxFixture,
  TRANSPORTS,
} from "./harness.ts";

/** A server test with every toolset on, in the control transport unless told otherwise. */
export function workspaceTest(
  name: string,
  body: ServerTestBody,
  transports: typeof TRANSPORTS[number][] = ["control"],
) {
  serverTest(name, body, { args: ALL_TOOLSETS, transports });
}

/** What a change tool returns (move_window, swap_pane, the option setters). */
export type Action = z.infer<typeof action>;

/** One tmux format value of `target`, read by the test (the target is known to exist). */
export function show(fx: TmuxFixture, target: string, format: string): Promise<string> {
  return fx.tmux("display-message", "-p", "-t", target, format);
}

/** Names that must reach tmux as text: formats, a shell job, spaces, quotes, Unicode. */
export function trickyNames(dir: string) {
  return [
    `#(touch ${dir}/expanded)`,
    "#{pane_id} and #{session_name}",
    `it's "quoted" ## ; semi`,
    "Ünïcödé 名前 🚀",
    // tmux copies a run of # before [ (a style) as it is.
    "#[dev] a##[b] c#d",
  ];
}

export async function assertNoFile(path: string): Promise<void> {
  try {
    await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  throw new Error(`${path} exists: a #(...) in a name was run by tmux`);
}
