/** `wait_for_text`: wait inside the server until a pane prints text matching a pattern. */

import { z } from "zod";
import { contentText } from "../core/budget.ts";
import { encodeCursor } from "../domain/cursor.ts";
import { compilePattern, loadPatternEngine } from "../domain/pattern.ts";
import { defineTool, readsTerminal } from "../core/registry.ts";
import { content, optionalPaneId, timeoutSeconds } from "../core/schemas.ts";
import { cursorPane } from "../domain/since.ts";
import { waitForText, WITHOUT_CURSOR } from "../domain/wait_text.ts";

// An empty list is no patterns, as an omitted one is: any new output ends the wait.
const patternList = z.array(z.string().min(1).max(999)).max(32).nullish();

/** The wait_for_text tool. */
export const waitForTextTool = defineTool({
  name: "wait_for_text",
  title: "Wait for text",
  description: "Waits until a pane prints a line matching a pattern (none: any output) or a " +
    "stopPattern. Counts output after the call, or after `cursor` (not keys echoed onto " +
    "its row). Returns the output and a cursor for the next wait. Lines match unwrapped, " +
    "trailing spaces dropped; regex, no lookarounds/backreferences; an emoji is one `.`.",
  capability: readsTerminal(),
  input: z.strictObject({
    paneId: optionalPaneId,
    patterns: patternList.describe("Match ends the wait; omit for any output."),
    stopPatterns: patternList.describe("Match ends it as stopped (errors); wins ties."),
    literal: z.boolean().default(false).describe("Patterns are plain text."),
    ignoreCase: z.boolean().default(true),
    timeoutSeconds,
    cursor: z.string().max(8192).nullish().describe(
      "From capture_since or a previous wait, taken before sending keys; implies the pane.",
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
    cursor: z.string().describe(
      "The pane as this wait last read it: pass to the next wait_for_text (or capture_since) " +
        "to count only output after this one.",
    ),
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
    return {
      paneId,
      ...result,
      effectiveTimeoutSeconds: effective,
      cursor: await encodeCursor(result.cursor),
    };
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
    ) + `\ncursor: ${r.cursor}`;
  },
});
