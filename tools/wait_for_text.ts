/** `wait_for_text`: wait inside the server until a pane prints text matching a pattern. */

import { z } from "zod";
import { contentText } from "../mcp/budget.ts";
import { compilePattern, loadPatternEngine } from "../mcp/pattern.ts";
import { defineTool, readsTerminal } from "../mcp/registry.ts";
import { content, optionalPaneId, timeoutSeconds } from "../mcp/schemas.ts";
import { cursorPane } from "../mcp/since.ts";
import { waitForText, WITHOUT_CURSOR } from "../mcp/wait_text.ts";

// An empty list is no patterns, as an omitted one is (CONTRACT: no patterns = any new output).
const patternList = z.array(z.string().min(1).max(999)).max(32).nullish();

/** The wait_for_text tool. */
export const waitForTextTool = defineTool({
  name: "wait_for_text",
  title: "Wait for text",
  description:
    "Waits until the pane prints a line matching one of `patterns` and returns which one, " +
    "with a tail of what was printed meanwhile. Only output written after the call began counts (text " +
    "already on screen sets presentAtEntry and does not end the wait), unless you pass a cursor: to catch " +
    "the reply to keys you send, call capture_since first and pass its cursor here, and output written " +
    "since the cursor counts too, except the command line typed onto the cursor's row (its echo is not " +
    "output). " +
    "Without patterns any new output ends it. " +
    "A line matching a stopPattern (an error, say) ends it as stopped, and wins over a pattern on the same " +
    "line. A line tmux wrapped over several rows is matched as one line, without its trailing spaces " +
    "(a prompt `>>> ` reads `>>>`: end a pattern with `>>>$`, not `>>> $`); patterns are JavaScript regular expressions without " +
    "lookarounds or backreferences (literal: true for plain text), case ignored by default. The timeout is " +
    "clamped to the server's wait ceiling and reported. Wakes on output within milliseconds (a tmux " +
    "control-mode client), polling only if that cannot attach. Prefer this to repeated captures.",
  capability: readsTerminal(),
  input: z.strictObject({
    paneId: optionalPaneId,
    patterns: patternList.describe(
      "Patterns that end the wait as matched (1-32). Omit to wait for any new output.",
    ),
    stopPatterns: patternList.describe(
      "Patterns that end the wait as stopped (errors, prompts asking for input); they win ties.",
    ),
    literal: z.boolean().default(false).describe("Read every pattern as plain text."),
    ignoreCase: z.boolean().default(true).describe("Ignore case (the default)."),
    timeoutSeconds,
    cursor: z.string().max(8192).nullish().describe(
      "A cursor from capture_since, taken before you sent the input whose output you wait for: " +
        "output written since that cursor counts too, so a reply that came back before this call " +
        "began still matches. Implies the cursor's pane.",
    ),
  }),
  output: z.object({
    paneId: z.string(),
    outcome: z.enum(["matched", "stopped", "any_output", "timeout", "pane_exited", "cancelled"]),
    matchedPattern: z.string().nullable().describe(
      "The pattern or stop pattern that ended the wait.",
    ),
    matchedIndex: z.int().nullable().describe(
      "Its index in patterns (matched) or stopPatterns (stopped).",
    ),
    presentAtEntry: z.boolean().describe(
      "A pattern (with none: any text) was already on the visible screen when the wait began (with a " +
        "cursor, also when it came after the cursor and so may still end the wait).",
    ),
    tail: content.describe(
      "What the pane printed during the wait (with a cursor: since the cursor), newest kept. When tmux " +
        "dropped output before the wait " +
        "read it (history limit, clear), truncated is true and droppedLines counts at least one line for it.",
    ),
    elapsedSeconds: z.number(),
    effectiveTimeoutSeconds: z.number(),
    wakeup: z.enum(["control-mode", "polling"]).describe("How the wait learned about output."),
  }),
  async handler(args, ctx) {
    const options = { literal: args.literal, ignoreCase: args.ignoreCase };
    // Patterns are checked before anything is read, so a bad one fails fast.
    await loadPatternEngine();
    const patterns = (args.patterns ?? []).map((p) => compilePattern(p, options));
    const stopPatterns = (args.stopPatterns ?? []).map((p) => compilePattern(p, options));
    const ceiling = ctx.settings.waitMaxSeconds;
    const effective = Math.min(args.timeoutSeconds ?? ceiling, ceiling);
    const { mark, paneId } = await cursorPane(ctx, args.cursor, args.paneId, WITHOUT_CURSOR);
    const result = await waitForText(ctx, {
      paneId,
      patterns,
      stopPatterns,
      timeoutMs: effective * 1000,
      since: mark,
    });
    return { paneId, ...result, effectiveTimeoutSeconds: effective };
  },
  render: (r) => {
    const what = r.outcome === "matched" || r.outcome === "stopped"
      ? `${r.outcome} pattern ${r.matchedIndex}`
      : r.outcome;
    return contentText(
      `pane ${r.paneId}: ${what} after ${r.elapsedSeconds} s (timeout ${r.effectiveTimeoutSeconds} s, ` +
        `woken by ${r.wakeup}${
          r.presentAtEntry ? ", already on screen at entry" : ""
        }); printed meanwhile`,
      r.tail,
    );
  },
});
