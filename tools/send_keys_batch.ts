/** `send_keys_batch`: an ordered list of typing operations, each with its own result row. */

import { z } from "zod";
import { errorText, ToolError } from "../core/errors.ts";
import {
  alsoSentTo,
  alsoSentToText,
  bareTypingFields,
  checkTyping,
  typingCommands,
} from "../domain/keys.ts";
import { sendInput } from "../domain/input.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId } from "../core/schemas.ts";
import { TmuxError } from "../tmux/errors.ts";

const operation = z.strictObject({
  paneId,
  ...bareTypingFields,
  enter: z.boolean().nullish(),
  delayMs: z.int().min(0).max(2000).nullish().describe("Pause before this step."),
});

/** The send_keys_batch tool. */
export const sendKeysBatch = defineTool({
  name: "send_keys_batch",
  title: "Send keys batch",
  description: "Runs send_keys steps (each with an optional pause) across panes in order, all " +
    "checked before the first is sent, within the wait ceiling.",
  capability: changesTmux("execute", ["change"], { processReach: "pane-input" }),
  input: z.strictObject({
    operations: z.array(operation).min(1).max(64),
    onError: z.enum(["stop", "continue"]).nullish().default("stop"),
  }),
  output: z.object({
    results: z.array(z.object({
      index: z.int(),
      paneId: z.string(),
      success: z.boolean(),
      error: z.string().nullable(),
      alsoSentTo,
      elapsedSeconds: z.number(),
    })),
    succeeded: z.int(),
    failed: z.int(),
    stoppedAt: z.int().nullable().describe(
      "Index of the operation the batch stopped at (a failure with onError stop, or the wait " +
        "ceiling); null when every operation was attempted.",
    ),
  }),
  async handler(args, ctx) {
    args.operations.forEach((op, i) => checkTyping(op, `operations[${i}].`, ctx.tmux.version));
    const ceilingMs = ctx.settings.waitMaxSeconds * 1000;
    const pauses = args.operations.reduce((sum, op) => sum + (op.delayMs ?? 0), 0);
    if (pauses > ceilingMs) {
      throw new ToolError(
        `the pauses add up to ${pauses} ms, more than the wait ceiling of ${ceilingMs} ms`,
        "Shorten the delays or split the batch into several calls.",
      );
    }
    const deadline = performance.now() + ceilingMs;
    const results = [];
    let stoppedAt: number | null = null;
    for (const [index, op] of args.operations.entries()) {
      const began = performance.now();
      if (began + (op.delayMs ?? 0) > deadline) {
        stoppedAt = index;
        break;
      }
      let error: string | null = null;
      let copies: string[] = [];
      try {
        await pause(op.delayMs ?? 0, ctx.signal);
        copies = await sendInput(ctx, op.paneId, {
          input: typingCommands(op.paneId, op),
          reportCopies: true,
        });
      } catch (caught) {
        if (ctx.signal.aborted || (caught instanceof TmuxError && caught.kind === "cancelled")) {
          throw caught;
        }
        error = errorText(`operations[${index}]`, ctx.noteUnoffered(caught));
      }
      const elapsedSeconds = Math.round(performance.now() - began) / 1000;
      results.push({
        index,
        paneId: op.paneId,
        success: error === null,
        error,
        alsoSentTo: copies,
        elapsedSeconds,
      });
      if (error !== null && (args.onError ?? "stop") === "stop") {
        stoppedAt = index;
        break;
      }
    }
    const failed = results.filter((r) => !r.success).length;
    return { results, succeeded: results.length - failed, failed, stoppedAt };
  },
  render: (r) =>
    [
      `${r.succeeded} sent, ${r.failed} failed${
        r.stoppedAt === null ? "" : `, stopped at operation ${r.stoppedAt}`
      }`,
      ...r.results.map((row) =>
        `[${row.index}] ${row.paneId}: ${
          row.success ? `sent${alsoSentToText(row.alsoSentTo)}` : row.error
        } (${row.elapsedSeconds} s)`
      ),
    ].join("\n"),
});

/** Sleeps `ms`, ending early with a cancellation error when `signal` fires. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new TmuxError(
          "cancelled",
          "the request was cancelled",
          "Call the tool again if still needed.",
        ),
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}
