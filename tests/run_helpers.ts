/**
 * Helpers shared by the run_shell_command tests: the result type, the pane
 * set-up, and one run through the server.
 *
 * @module
 */

import type { z } from "zod";
import type { runShellCommand } from "../tools/run_shell_command.ts";
import type { ServerTestOptions, Session } from "./harness.ts";

export type Run = z.infer<typeof runShellCommand.output>;

/** {@link withServer} options: the pane is a fresh window running `shell` (else bash, no rc files). */
export function setup(
  options: { args?: string[]; shell?: string; history?: number } = {},
): ServerTestOptions {
  return {
    args: options.args,
    async pane(fixture) {
      if (options.history) {
        await fixture.tmux("set-option", "-g", "history-limit", String(options.history));
      }
      return await fixture.tmux(
        "new-window",
        "-P",
        "-F",
        "#{pane_id}",
        options.shell ?? "bash --norc --noprofile",
      );
    },
  };
}

export function run(
  session: Session,
  pane: string,
  command: string,
  extra: Record<string, unknown> = {},
) {
  return session.ok<Run>("run_shell_command", { paneId: pane, command, ...extra });
}
