/** `search_panes`: which panes show text matching a pattern, and on which rows. */

import { z } from "zod";
import { excerptAround, utf8Length } from "../core/budget.ts";
import { CUT_MARK } from "../tmux/utf8.ts";
import {
  type InPlace,
  inPlace,
  lineRows,
  lineRowsHere,
  MatchDeadline,
  matchPane,
  type PaneHit,
  type PaneHits,
  type PaneText,
  warmMatchWorker,
} from "../domain/match_worker.ts";
import {
  listAndRead,
  type ListedPane,
  listedRows,
  type Listing,
  type PaneRead,
  readGroup,
  readGroups,
} from "../domain/search_reads.ts";
import { compilePattern, loadPatternEngine, type Matcher } from "../domain/pattern.ts";
import { defineTool, readsTerminal, type ToolContext } from "../core/registry.ts";
import { jsonWireCost, resultBytes, resultOf } from "../core/results.ts";
import { optionalSession } from "../core/schemas.ts";
import { counted } from "../core/words.ts";
import { TmuxError } from "../tmux/errors.ts";

/** Text scanned per call; panes past it are skipped and named. */
const WORK_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Wall time per call: matching is linear, but a huge history must not hold
 * the call indefinitely. Matching runs in a worker ended at this deadline.
 */
const TIME_BUDGET_MS = 10_000;
/**
 * A single match's text is cut to this many bytes so it cannot crowd out
 * later matches; the cut keeps the match, which is what the caller asked for.
 */
const MATCH_TEXT_MAX_BYTES = 1024;
/** Lines this long (UTF-16 units) may exceed it: the worker locates their match. */
const LOCATE_OVER = Math.floor(MATCH_TEXT_MAX_BYTES / 3);
/** Matching lines read past maxMatchesPerPane, for those too big for the byte budget. */
const SPARE_HITS = 64;
/**
 * Matching time a call may spend on the server's thread: small panes are
 * matched in place (a round trip to the worker costs more than matching
 * them) until this is spent, then in the worker, so that a costly pattern
 * over many panes holds the thread no longer than this and one pane. Wall
 * time: generous, so that a loaded machine's preemption does not send a
 * small search to the worker (whose start costs far more).
 */
const INLINE_MS = 50;

const match = z.object({
  row: z.int().describe("0 is the top visible row; negative rows are history."),
  text: z.string().describe(
    `The line; one over ${MATCH_TEXT_MAX_BYTES} bytes is cut around its first match, with ${CUT_MARK} where text was cut.`,
  ),
});

const skippedPane = z.object({
  paneId: z.string(),
  reason: z.enum(["time", "size", "read_timeout"]),
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
    "top visible; negative: history). Regex, no lookarounds/backreferences; an emoji " +
    "is one `.`.",
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
    skippedPanes: z.array(skippedPane).describe("Panes not searched, and why."),
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
    const { includeHistory } = args;
    const began = performance.now();
    const { panes, reads } = await listAndRead(ctx.tmux, scope, {
      includeHistory,
      timeoutMs: TIME_BUDGET_MS,
    });
    const state = newSearchState(ctx.settings.maxBytes, args.pattern, panes, matcher, began);
    // A pane too large to match in place needs the worker: start it before matching.
    if (panes.some((pane) => mayOutgrow(pane, includeHistory, state.here.units))) {
      warmMatchWorker();
    }
    for (const [i, group] of readGroups(panes, includeHistory).entries()) {
      if (ctx.signal.aborted) break;
      // The listing's round trip read the panes when they fit one group.
      await searchGroup(ctx, group, matcher, args, state, i === 0 ? reads : null);
    }
    return {
      pattern: args.pattern,
      panesSearched: state.searched,
      panes: state.found,
      truncated: state.truncated || state.skipped.length > 0,
      skippedPanes: state.skipped,
    };
  },
  // Each line costs less here than the budget above charged for its JSON copy.
  render: (r) => {
    const hits = r.panes.reduce((sum, pane) => sum + pane.matches.length, 0);
    const notes = [
      `${r.panesSearched} searched`,
      ...(r.truncated ? ["truncated"] : []),
      ...(r.skippedPanes.length > 0
        ? [`skipped ${r.skippedPanes.map((p) => `${p.paneId} (${p.reason})`).join(",")}`]
        : []),
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

type Skip = z.infer<typeof skippedPane>;

/** A search's progress over its groups of panes. */
interface SearchState {
  /** Bytes left for matches in the result. */
  budget: number;
  truncated: boolean;
  /** Text searched so far, against {@link WORK_BUDGET_BYTES}. */
  scanned: number;
  searched: number;
  deadline: number;
  /** What may still be matched on the server's thread (see {@link INLINE_MS}). */
  here: InPlace;
  found: z.infer<typeof paneMatches>[];
  skipped: Skip[];
}

/** The state of a search of `panes`, its byte budget less the result without any match. */
function newSearchState(
  maxBytes: number,
  pattern: string,
  panes: ListedPane[],
  matcher: Matcher,
  began: number,
): SearchState {
  // What the byte budget leaves for matches, as they go on the wire: the
  // result without any (every pane skipped, the longest case), then each
  // match and pane entry by its escaped size in the structure and the text copy.
  const bare = {
    pattern,
    panesSearched: panes.length,
    panes: [],
    truncated: false,
    skippedPanes: panes.map((p) => ({ paneId: p.paneId, reason: "read_timeout" })),
  };
  return {
    budget: maxBytes - resultBytes(resultOf(bare)),
    truncated: false,
    scanned: 0,
    searched: 0,
    deadline: began + TIME_BUDGET_MS,
    here: inPlace([matcher.compiled], INLINE_MS),
    found: [],
    skipped: [],
  };
}

/**
 * Whether `pane` may hold more text than is matched in place: an estimate
 * from its cells, so that the worker starts only for a search that may need it.
 */
function mayOutgrow(pane: ListedPane, includeHistory: boolean, inline: number): boolean {
  return listedRows(pane, includeHistory) * (pane.width + 1) > inline;
}

/** Why no more panes can be searched, or null while both budgets last. */
function outOfBudget(state: SearchState): Skip["reason"] | null {
  if (state.scanned >= WORK_BUDGET_BYTES) return "size";
  return performance.now() > state.deadline ? "time" : null;
}

/** A pane matched; unless `found.numbered`, its hits' rows are read by numberRows. */
interface Searched {
  pane: ListedPane;
  read: PaneRead;
  /** Null once left out: killed before its rows were read, or out of time. */
  found: PaneHits | null;
}

/**
 * Captures `group` in one round trip, unless `preread` already holds its
 * captures (or "timeout": they outlasted the time budget), and searches each
 * of its panes.
 */
async function searchGroup(
  ctx: ToolContext,
  group: ListedPane[],
  matcher: Matcher,
  args: { includeHistory: boolean; maxMatchesPerPane: number },
  state: SearchState,
  preread: Listing["reads"],
): Promise<void> {
  if (preread === "timeout") return void skip(state, group, "read_timeout");
  const over = outOfBudget(state);
  if (over) return void skip(state, group, over);
  const reads = preread ?? await readOrSkip(ctx, group, args.includeHistory, false, state);
  if (!reads) return;
  const searched: Searched[] = [];
  for (const [i, pane] of group.entries()) {
    const read = reads[i];
    // Killed since the listing: nothing to search, nothing skipped.
    if (!read) continue;
    const over = outOfBudget(state);
    if (over) {
      skip(state, [pane], over);
      continue;
    }
    const text = { ...read, physical: null };
    const found = await matchOrSkip(ctx, matcher, text, args.maxMatchesPerPane, state, pane);
    if (found === undefined) return;
    if (!found) continue;
    state.scanned += read.joined.length;
    searched.push({ pane, read, found });
  }
  await numberRows(ctx, searched.filter((s) => !s.found!.numbered && s.found!.hits.length > 0), {
    matcher,
    args,
    state,
  });
  for (const { pane, found } of searched) {
    if (!found) continue;
    state.searched++;
    const matches = collectMatches(pane, found.hits, args.maxMatchesPerPane, state);
    if (found.more && matches.length < args.maxMatchesPerPane) state.truncated = true;
    if (matches.length > 0) state.found.push(paneEntry(pane, matches));
  }
}

/** Records `panes` as not searched, for `reason`. */
function skip(state: SearchState, panes: { paneId: string }[], reason: Skip["reason"]): void {
  state.skipped.push(...panes.map((p) => ({ paneId: p.paneId, reason })));
}

/**
 * {@link readGroup} within the search's time budget; null, with the panes
 * skipped, for a history so long that tmux cannot even read it in that time
 * (about 5 s per million lines; the round trip is bound by it, not by the
 * 60 s a single history read may take): skipped, as the budget skips any
 * pane, rather than failing the panes already searched.
 */
async function readOrSkip(
  ctx: ToolContext,
  group: ListedPane[],
  includeHistory: boolean,
  physical: boolean,
  state: SearchState,
): Promise<(PaneRead | null)[] | null> {
  try {
    return await readGroup(ctx.tmux, group, {
      includeHistory,
      physical,
      timeoutMs: TIME_BUDGET_MS,
    });
  } catch (error) {
    if (!(includeHistory && error instanceof TmuxError && error.kind === "timeout")) throw error;
    skip(state, group, "read_timeout");
    return null;
  }
}

/**
 * {@link matchCapture}; null with the pane skipped when the deadline ended
 * the match, undefined when the call was cancelled.
 */
async function matchOrSkip(
  ctx: ToolContext,
  matcher: Matcher,
  text: PaneText,
  maxMatches: number,
  state: SearchState,
  pane: ListedPane,
): Promise<PaneHits | null | undefined> {
  try {
    return await matchCapture(ctx, matcher, text, maxMatches, state);
  } catch (error) {
    if (ctx.signal.aborted) return undefined;
    if (!(error instanceof MatchDeadline)) throw error;
    skip(state, [pane], "time");
    return null;
  }
}

/**
 * Numbers the hits of panes whose rows their lines' lengths did not tell,
 * from a second read with the rows apart. A pane whose text changed meanwhile is matched again as it is
 * now; one killed meanwhile is left out.
 */
async function numberRows(
  ctx: ToolContext,
  pending: Searched[],
  search: {
    matcher: Matcher;
    args: { includeHistory: boolean; maxMatchesPerPane: number };
    state: SearchState;
  },
): Promise<void> {
  if (pending.length === 0) return;
  const { matcher, args, state } = search;
  const pairs = await readOrSkip(ctx, pending.map((p) => p.pane), args.includeHistory, true, state);
  for (const [i, entry] of pending.entries()) {
    const pair = pairs?.[i];
    if (!pair || pair.physical === null) {
      entry.found = null;
      continue;
    }
    if (pair.joined !== entry.read.joined) {
      entry.found =
        await matchOrSkip(ctx, matcher, pair, args.maxMatchesPerPane, state, entry.pane) ??
          null;
      continue;
    }
    const hits = entry.found!.hits;
    try {
      const rows = await rowsOf(ctx, { ...pair, physical: pair.physical }, hits, state);
      entry.found!.numbered = true;
      hits.forEach((hit, k) => hit.row = rows[k]);
    } catch (error) {
      entry.found = null;
      if (ctx.signal.aborted) return;
      if (!(error instanceof MatchDeadline)) throw error;
      skip(state, [entry.pane], "time");
    }
  }
}

/** The rows of `hits`' lines in `pair`: in place while small, as matching. */
async function rowsOf(
  ctx: ToolContext,
  pair: PaneText & { physical: string },
  hits: PaneHit[],
  state: SearchState,
): Promise<number[]> {
  const lines = hits.map((hit) => hit.line);
  if (pair.physical.length + pair.joined.length <= state.here.units) {
    return lineRowsHere(pair, lines);
  }
  return await lineRows(pair, lines, {
    timeoutMs: state.deadline - performance.now(),
    signal: ctx.signal,
  });
}

/**
 * The matching lines of one pane, with room for matches the byte budget
 * turns away: in place while the pane is small and the call's in-place time
 * lasts, else in the worker, which the deadline ends (MatchDeadline).
 */
async function matchCapture(
  ctx: ToolContext,
  matcher: Matcher,
  text: PaneText,
  maxMatches: number,
  state: SearchState,
): Promise<PaneHits> {
  const limits = { limit: maxMatches + 1 + SPARE_HITS, locateOver: LOCATE_OVER };
  return await matchPane(matcher.compiled, text, limits, {
    timeoutMs: state.deadline - performance.now(),
    signal: ctx.signal,
    here: state.here,
  });
}

/** The matches of one pane that fit the count and byte budgets. */
function collectMatches(
  pane: ListedPane,
  hits: PaneHit[],
  max: number,
  state: SearchState,
): z.infer<typeof match>[] {
  const matches: z.infer<typeof match>[] = [];
  for (const hit of hits) {
    if (matches.length >= max) {
      state.truncated = true;
      break;
    }
    let text = hit.text;
    if (utf8Length(text) > MATCH_TEXT_MAX_BYTES) {
      const [from, to] = hit.span ?? [0, 0];
      text = excerptAround(text, from, to, MATCH_TEXT_MAX_BYTES);
      state.truncated = true;
    }
    const entry = { row: hit.row, text };
    const cost = jsonWireCost(entry) +
      (matches.length === 0 ? jsonWireCost(paneEntry(pane, [])) : 0);
    if (cost > state.budget) {
      state.truncated = true;
      continue;
    }
    state.budget -= cost;
    matches.push(entry);
  }
  return matches;
}

/** The result's entry of `pane`. */
function paneEntry(
  pane: ListedPane,
  matches: z.infer<typeof match>[],
): z.infer<typeof paneMatches> {
  return { paneId: pane.paneId, windowId: pane.windowId, sessionId: pane.sessionId, matches };
}
