/** `search_panes`: which panes show text matching a pattern, and on which rows. */

import { z } from "zod";
import { excerptAround, utf8Length } from "../mcp/budget.ts";
import { CUT_MARK } from "../tmux/utf8.ts";
import { callerPane, trimRow } from "../mcp/panes.ts";
import { compilePattern, loadPatternEngine } from "../mcp/pattern.ts";
import { defineTool, readsTerminal } from "../mcp/registry.ts";
import { jsonWireCost, resultBytes, resultOf } from "../mcp/results.ts";
import { optionalSession } from "../mcp/schemas.ts";
import { joinWrappedRows } from "../mcp/wrapped.ts";
import { counted } from "../mcp/words.ts";
import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";
import { keepTrailingSpacesFlags } from "../tmux/version.ts";
import { listPanes, type PaneView } from "../tmux/views.ts";

/** Panes captured per round trip: bounds the size of one tmux answer. */
const PANES_PER_ROUND_TRIP = 16;
/** Text scanned per call; panes past it are skipped and named. */
const WORK_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Wall time per call. Matching is linear, but some accepted patterns run at
 * seconds per megabyte (RE2's DFA gives up on them), so a huge history must
 * not hold the call indefinitely.
 */
const TIME_BUDGET_MS = 10_000;
/**
 * A single match's text is cut to this many bytes so it cannot crowd out
 * later matches; the cut keeps the match, which is what the caller asked for.
 */
const MATCH_TEXT_MAX_BYTES = 1024;

const match = z.object({
  row: z.int().describe("0 is the top visible row; negative rows are history."),
  text: z.string().describe(
    `The line; one over ${MATCH_TEXT_MAX_BYTES} bytes is cut around its first match, with ${CUT_MARK} where text was cut.`,
  ),
});

const paneMatches = z.object({
  paneId: z.string(),
  windowId: z.string(),
  sessionId: z.string(),
  matches: z.array(match),
});

/** The search_panes tool. */
export const searchPanes = defineTool({
  name: "search_panes",
  title: "Search panes",
  description:
    "Finds lines matching a pattern in every pane (or a session's), with their rows (0: " +
    "top visible; negative: history). Regex without lookarounds or backreferences.",
  capability: readsTerminal(),
  input: z.strictObject({
    pattern: z.string().min(1).max(999).describe("Regex, or text with literal."),
    literal: z.boolean().default(false).describe("Pattern is plain text."),
    session: optionalSession("Omit for every session."),
    includeHistory: z.boolean().default(false),
    ignoreCase: z.boolean().default(true),
    maxMatchesPerPane: z.int().min(1).max(1000).default(20).describe("Most matches per pane."),
  }),
  output: z.object({
    pattern: z.string(),
    panesSearched: z.int(),
    panes: z.array(paneMatches),
    truncated: z.boolean().describe("True when matches or panes were left out to fit the limits."),
    skippedPanes: z.array(z.string()).describe(
      "Panes not searched because the work budget ran out.",
    ),
  }),
  async handler(args, ctx) {
    // Compile first: a refused pattern never reaches tmux.
    await loadPatternEngine();
    const matcher = compilePattern(args.pattern, {
      literal: args.literal,
      ignoreCase: args.ignoreCase,
    });
    const scope = args.session
      ? { kind: "session" as const, session: args.session }
      : { kind: "all" as const };
    // tmux lists a pane once per session window that shows it (a linked
    // window, a grouped session): search each pane once, under its first listing.
    const seen = new Set<string>();
    const panes = (await listPanes(ctx.tmux, scope, await callerPane(ctx)))
      .filter((pane) => !seen.has(pane.paneId) && seen.add(pane.paneId));
    // What the byte budget leaves for matches, as they go on the wire: the
    // result without any (every pane skipped, the longest case), then each
    // match and pane entry by its escaped size in the structure and the text copy.
    const bare = {
      pattern: args.pattern,
      panesSearched: panes.length,
      panes: [],
      truncated: false,
      skippedPanes: panes.map((p) => p.paneId),
    };
    let budget = ctx.settings.maxBytes - resultBytes(resultOf(bare));
    let truncated = false;
    let scanned = 0;
    let searched = 0;
    const deadline = performance.now() + TIME_BUDGET_MS;
    const outOfBudget = () => scanned >= WORK_BUDGET_BYTES || performance.now() > deadline;
    const found: z.infer<typeof paneMatches>[] = [];
    const skipped: string[] = [];
    for (let start = 0; start < panes.length; start += PANES_PER_ROUND_TRIP) {
      if (ctx.signal.aborted) break;
      const group = panes.slice(start, start + PANES_PER_ROUND_TRIP);
      if (outOfBudget()) {
        skipped.push(...group.map((p) => p.paneId));
        continue;
      }
      let captures: (Capture | null)[];
      try {
        captures = await captureGroup(ctx.tmux, group, args.includeHistory);
      } catch (error) {
        // A history so long that tmux cannot even read it within the search's
        // time budget (about 5 s per million lines; the round trip is bound
        // by it, not by the 60 s a single history read may take): skipped, as
        // the budget skips any pane, rather than failing the panes already searched.
        if (!(args.includeHistory && error instanceof TmuxError && error.kind === "timeout")) {
          throw error;
        }
        skipped.push(...group.map((p) => p.paneId));
        continue;
      }
      for (const [i, pane] of group.entries()) {
        const capture = captures[i];
        // Killed since the listing: nothing to search, nothing skipped.
        if (!capture) continue;
        const { physical, joined, firstRow } = capture;
        if (outOfBudget()) {
          skipped.push(pane.paneId);
          continue;
        }
        scanned += joined.length;
        searched++;
        const matches: z.infer<typeof match>[] = [];
        for (const [n, line] of joinWrappedRows(physical, joined, firstRow).entries()) {
          if (n % 256 === 255 && performance.now() > deadline) {
            // Partly searched: say so rather than pretend the pane was clean.
            truncated = true;
            break;
          }
          // Matched as shown: tmux's -J keeps the spaces a line ends with (a
          // prompt's "$ "), which a plain capture and wait_for_text drop.
          let text = trimRow(line.text);
          if (!matcher.test(text)) continue;
          if (matches.length >= args.maxMatchesPerPane) {
            truncated = true;
            break;
          }
          if (utf8Length(text) > MATCH_TEXT_MAX_BYTES) {
            const [from, to] = matcher.find(text) ?? [0, 0];
            text = excerptAround(text, from, to, MATCH_TEXT_MAX_BYTES);
            truncated = true;
          }
          const entry = { row: line.row, text };
          const cost = jsonWireCost(entry) +
            (matches.length === 0 ? jsonWireCost(paneEntry(pane, [])) : 0);
          if (cost > budget) {
            truncated = true;
            continue;
          }
          budget -= cost;
          matches.push(entry);
        }
        if (matches.length > 0) found.push(paneEntry(pane, matches));
      }
    }
    if (skipped.length > 0) truncated = true;
    return {
      pattern: args.pattern,
      panesSearched: searched,
      panes: found,
      truncated,
      skippedPanes: skipped,
    };
  },
  // Each line costs less here than the budget above charged for its JSON copy.
  render: (r) => {
    const hits = r.panes.reduce((sum, pane) => sum + pane.matches.length, 0);
    const notes = [
      `${r.panesSearched} searched`,
      ...(r.truncated ? ["truncated"] : []),
      ...(r.skippedPanes.length > 0 ? [`skipped ${r.skippedPanes.join(",")}`] : []),
    ];
    const lines = [
      `${counted(hits, "match", "matches")} of ${JSON.stringify(r.pattern)} in ${
        counted(r.panes.length, "pane")
      } (${notes.join("; ")})`,
    ];
    for (const pane of r.panes) {
      lines.push(`${pane.paneId} window=${pane.windowId} session=${pane.sessionId}:`);
      for (const m of pane.matches) lines.push(`  ${m.row}: ${m.text}`);
    }
    return lines.join("\n");
  },
});

/** The result's entry of `pane`. */
function paneEntry(pane: PaneView, matches: z.infer<typeof match>[]): z.infer<typeof paneMatches> {
  return { paneId: pane.paneId, windowId: pane.windowId, sessionId: pane.sessionId, matches };
}

/** What one round trip read of a pane. */
interface Capture {
  /** Rows with their trailing spaces, for row numbers. */
  physical: string;
  /** The same rows with wrapped lines joined. */
  joined: string;
  /**
   * The row number of the first physical row: minus the history's length
   * as the captures saw it (the listing's may be older), else 0.
   */
  firstRow: number;
}

/**
 * The captures of each pane of `group` in one round trip; null for a pane
 * killed since it was listed (its capture fails the whole round trip, so the
 * panes are then read one by one and only the missing one is left out).
 */
async function captureGroup(
  tmux: Tmux,
  group: PaneView[],
  includeHistory: boolean,
): Promise<(Capture | null)[]> {
  const range = includeHistory ? ["-S", "-"] : [];
  // The history's length matters only when the captures hold the history.
  const perPane = includeHistory ? 3 : 2;
  try {
    const outputs = await tmux.run(
      group.flatMap((pane) => [
        [
          "capture-pane",
          "-p",
          ...keepTrailingSpacesFlags(tmux.version),
          "-t",
          pane.paneId,
          ...range,
        ],
        ["capture-pane", "-p", "-J", "-t", pane.paneId, ...range],
        ...(includeHistory
          ? [["display-message", "-p", "-t", pane.paneId, "#{history_size}"]]
          : []),
      ]),
      { timeoutMs: TIME_BUDGET_MS },
    );
    return group.map((_, i) => ({
      physical: outputs[perPane * i],
      joined: outputs[perPane * i + 1],
      firstRow: includeHistory ? -(Number(outputs[perPane * i + 2]) || 0) : 0,
    }));
  } catch (error) {
    if (!(error instanceof TmuxError && error.kind === "no_target")) throw error;
    if (group.length === 1) return [null];
  }
  const captures: (Capture | null)[] = [];
  for (const pane of group) captures.push(...await captureGroup(tmux, [pane], includeHistory));
  return captures;
}
