/**
 * Helpers shared by the wait_for_text, capture_since and output watch tests:
 * the fixture set-up, a wait in flight, typing into a pane, the result types.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { assert } from "./assert.ts";
import type { ServerTestOptions, Session, TmuxFixture } from "./harness.ts";
import type { captureSince } from "../tools/capture_since.ts";
import type { waitForTextTool } from "../tools/wait_for_text.ts";

/** Failure bound of anything a test waits for; never a synchronisation device. */
export const BOUND_MS = 30_000;
export const SHELL = "bash --norc --noprofile";

/** The results of wait_for_text and capture_since, as their output schemas type them. */
export type WaitResult = z.infer<typeof waitForTextTool.output>;

export type SinceResult = z.infer<typeof captureSince.output>;
/**
 * The {@link withServer} options of these tests: an 80-column fixture whose
 * pane runs a plain bash in a fresh window (history-limit applies to panes
 * created after it is set).
 */
export function setup(
  options: { args?: string[]; height?: number; historyLimit?: number } = {},
): ServerTestOptions {
  return {
    args: options.args,
    fixture: { width: 80, height: options.height ?? 10 },
    async pane(fixture) {
      if (options.historyLimit !== undefined) {
        await fixture.tmux("set-option", "-g", "history-limit", String(options.historyLimit));
      }
      const pane = await fixture.windowPane(SHELL);
      await fixture.runInPane(pane, "true");
      return pane;
    },
  };
}

/** A wait in flight: resolves `armed` at its first progress notification. */
export function startWait(
  session: Session,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): { armed: Promise<void>; result: Promise<CallToolResult>; progress: number[] } {
  const progress: number[] = [];
  let armedResolve: () => void = () => {};
  const armed = new Promise<void>((resolve) => (armedResolve = resolve));
  const result = session.client.callTool(
    { name: "wait_for_text", arguments: args },
    undefined,
    {
      signal,
      timeout: BOUND_MS,
      onprogress: (p: { progress: number }) => {
        progress.push(p.progress);
        armedResolve();
      },
    },
  ) as Promise<CallToolResult>;
  return { armed, result, progress };
}

export function structured(result: CallToolResult): WaitResult {
  assert(!result.isError, `unexpected error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as unknown as WaitResult;
}

/** Types a command into the pane without waiting for it. */
export async function type(fixture: TmuxFixture, pane: string, command: string): Promise<void> {
  await fixture.tmux("send-keys", "-t", pane, "-l", command);
  await fixture.tmux("send-keys", "-t", pane, "Enter");
}

/** The pane's `history_size`, as tmux counts it now. */
export async function historySize(fixture: TmuxFixture, pane: string): Promise<number> {
  return Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
}
