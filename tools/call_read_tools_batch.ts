/**
 * `call_read_tools_batch`: up to 16 inspect calls in one request. The nested
 * tools are whichever inspect tools are selected (except wait_for_text and the
 * batch itself), so inspect tools added later join without change here.
 */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { type AnyTool, defineTool, readsTerminal, type ToolContext } from "../core/registry.ts";
import { utf8Length } from "../core/budget.ts";
import { renderText } from "../core/render_text.ts";
import { counted } from "../core/words.ts";

/** The most bytes the complete JSON-RPC response line of a batch may take. */
export const BATCH_RESPONSE_MAX_BYTES = 1_000_000;

/** The read batch's tool name. */
export const READ_BATCH = "call_read_tools_batch";
const EXCLUDED = new Set([READ_BATCH, "wait_for_text"]);

const row = z.object({
  index: z.int(),
  tool: z.string(),
  success: z.boolean(),
  error: z.string().nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  resultTruncated: z.boolean(),
});

const output = z.object({
  results: z.array(row),
  succeeded: z.int(),
  failed: z.int(),
  stoppedAt: z.int().nullable(),
  truncated: z.boolean(),
  truncatedBytes: z.int(),
  onError: z.enum(["stop", "continue"]),
});

/** The tools a batch may nest, from the selection. */
export function nestable(selected: readonly AnyTool[]): AnyTool[] {
  return selected.filter((tool) =>
    tool.capability.toolset === "inspect" && !EXCLUDED.has(tool.name)
  );
}

/**
 * The batch's input: each row names a tool from the enum and carries that
 * tool's arguments, checked against its own schema when the row runs (so the
 * row's error names the argument). Nesting every schema would repeat them all.
 */
function inputFor(nested: readonly AnyTool[]) {
  const names = nested.map((tool) => tool.name);
  const tool = names.length === 0 ? z.string() : z.enum(names as [string, ...string[]]);
  return z.strictObject({
    operations: z.array(z.strictObject({
      tool,
      arguments: z.record(z.string(), z.unknown()).nullish().describe("That tool's arguments."),
    })).min(1).max(16),
    onError: z.enum(["stop", "continue"]).default("stop"),
  });
}

/** The batch tool: its schemas depend on the tools it may call, so they stay untyped here. */
type BatchTool = AnyTool & { name: typeof READ_BATCH };

function build(nested: readonly AnyTool[]): BatchTool {
  return defineTool({
    name: READ_BATCH,
    title: "Call read tools batch",
    description: "Runs up to 16 other read tools in one call; each row has its result or error. " +
      `Results past ${BATCH_RESPONSE_MAX_BYTES} response bytes are nulled from the last row.`,
    capability: readsTerminal(),
    input: inputFor(nested),
    output,
    sizesItsOwnResult: true,
    specialize: (selected) => build(nestable(selected)),
    async handler(args, ctx) {
      const allowed = new Set(nested.map((t) => t.name));
      const operations = args.operations as Operation[];
      const { results, stoppedAt } = await runRows(ctx, allowed, operations, args.onError);
      const value = {
        results,
        succeeded: results.filter((r) => r.success).length,
        failed: results.filter((r) => !r.success).length,
        stoppedAt,
        truncated: false,
        truncatedBytes: 0,
        onError: args.onError,
      };
      fitResponse(value, (v) => ctx.responseLineBytes(v, args));
      return value;
    },
    render: (r, args) => renderBatch(r, args?.operations ?? [], nested),
  });
}

/** One row of a batch's input. */
interface Operation {
  tool: string;
  arguments?: Record<string, unknown> | null;
}

/** Runs the rows in order; with onError "stop", none after the first that fails. */
async function runRows(
  ctx: ToolContext,
  allowed: ReadonlySet<string>,
  operations: Operation[],
  onError: "stop" | "continue",
): Promise<{ results: z.infer<typeof row>[]; stoppedAt: number | null }> {
  const results: z.infer<typeof row>[] = [];
  let stoppedAt: number | null = null;
  for (const [index, op] of operations.entries()) {
    if (ctx.signal.aborted) {
      throw new ToolError("the request was cancelled", "Call the tool again if still needed.");
    }
    const outcome = allowed.has(op.tool) ? await ctx.call(op.tool, op.arguments ?? {}) : {
      ok: false as const,
      error: `${op.tool} failed: it cannot be nested in a read batch. Use it directly.`,
    };
    results.push({
      index,
      tool: op.tool,
      success: outcome.ok,
      error: outcome.ok ? null : outcome.error,
      result: outcome.ok ? outcome.result : null,
      resultTruncated: false,
    });
    if (!outcome.ok && onError === "stop") {
      stoppedAt = index;
      break;
    }
  }
  return { results, stoppedAt };
}

/** Nulls results from the last row backwards until the whole line (`lineBytes`) fits. */
function fitResponse(
  value: z.infer<typeof output>,
  lineBytes: (value: z.infer<typeof output>) => number,
): void {
  const results = value.results;
  for (
    let i = results.length - 1;
    i >= 0 && lineBytes(value) > BATCH_RESPONSE_MAX_BYTES;
    i--
  ) {
    if (results[i].result === null) continue;
    value.truncatedBytes += utf8Length(JSON.stringify(results[i].result));
    results[i].result = null;
    results[i].resultTruncated = true;
    value.truncated = true;
  }
}

/** The batch's text: a summary line, then each row's own text (its tool's rendering), indented. */
function renderBatch(
  r: z.infer<typeof output>,
  operations: readonly { arguments?: unknown }[],
  nested: readonly AnyTool[],
): string {
  const notes = [
    `${r.succeeded} ok`,
    `${r.failed} failed`,
    ...(r.stoppedAt === null ? [] : [`stopped at ${r.stoppedAt}`]),
    ...(r.truncated ? [`${counted(r.truncatedBytes, "byte")} of results dropped to fit`] : []),
  ];
  const lines = [`${counted(r.results.length, "read")}: ${notes.join(", ")}`];
  for (const row of r.results) {
    const tool = nested.find((t) => t.name === row.tool);
    const text = !row.success
      ? row.error ?? "failed"
      : row.result === null
      ? "result dropped to fit"
      : tool?.render
      ? tool.render(row.result, operations[row.index]?.arguments ?? {})
      : renderText(row.result);
    lines.push(`[${row.index}] ${row.tool}:`, ...text.split("\n").map((line) => `  ${line}`));
  }
  return lines.join("\n");
}

/** The read batch as listed before selection (no nested tools known yet). */
export const callReadToolsBatch = build([]);
