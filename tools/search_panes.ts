/** `search_panes`: which panes show text matching a pattern, and on which rows. */

import { z } from "zod";
import { wholeHistoryRead } from "../domain/history_reads.ts";
import { excerptAround, utf8Length } from "../core/budget.ts";
import { CUT_MARK } from "../tmux/utf8.ts";
import { callerPane } from "../core/panes.ts";
import {
  INLINE_UNITS,
  inlineUnits,
  MatchDeadline,
  matchPane,
  matchPaneHere,
  type PaneHit,
  warmMatchWorker,
} from "../domain/match_worker.ts";
import { compilePattern, loadPatternEngine, type Matcher } from "../domain/pattern.ts";
import { defineTool, readsTerminal, type ToolContext } from "../core/registry.ts";
import { jsonWireCost, resultBytes, resultOf } from "../core/results.ts";
import { optionalSession } from "../core/schemas.ts";
import { counted } from "../core/words.ts";
import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";
import { keepTrailingSpacesFlags } from "../tmux/version.ts";
import { listPanes, type PaneView } from "../tmux/views.ts";

/** Panes captured per round trip: bounds the size of one tmux answer. */
const PANES_PER_ROUND_TRIP = 16;
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
    // Histories are what outgrow matching in place with a costly pattern:
    // start the worker they need while tmux reads them.
    const inline = inlineUnits(matcher.compiled);
    if (args.includeHistory && inline <= INLINE_UNITS) warmMatchWorker();
    const scope = args.session
      ? { kind: "session" as const, session: args.session }
      : { kind: "all" as const };
    // tmux lists a pane once per session window that shows it (a linked
    // window, a grouped session): search each pane once, under its first listing.
    const seen = new Set<string>();
    const panes = (await listPanes(ctx.tmux, scope, await callerPane(ctx)))
      .filter((pane) => !seen.has(pane.paneId) && seen.add(pane.paneId));
    const state = newSearchState(ctx.settings.maxBytes, args.pattern, panes, inline);
    for (
      let start = 0;
      start < panes.length && !ctx.signal.aborted;
      start += PANES_PER_ROUND_TRIP
    ) {
      await searchGroup(
        ctx,
        panes.slice(start, start + PANES_PER_ROUND_TRIP),
        matcher,
        args,
        state,
      );
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
  /** Time spent matching on the server's thread, against {@link INLINE_MS}. */
  inlineMs: number;
  /** Text a pane may hold to be matched in place with this pattern. */
  inlineUnits: number;
  found: z.infer<typeof paneMatches>[];
  skipped: Skip[];
}

/** The state of a search of `panes`, its byte budget less the result without any match. */
function newSearchState(
  maxBytes: number,
  pattern: string,
  panes: PaneView[],
  inline: number,
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
    deadline: performance.now() + TIME_BUDGET_MS,
    inlineMs: 0,
    inlineUnits: inline,
    found: [],
    skipped: [],
  };
}

/** Why no more panes can be searched, or null while both budgets last. */
function outOfBudget(state: SearchState): Skip["reason"] | null {
  if (state.scanned >= WORK_BUDGET_BYTES) return "size";
  return performance.now() > state.deadline ? "time" : null;
}

/** Captures `group` in one round trip and searches each of its panes. */
async function searchGroup(
  ctx: ToolContext,
  group: PaneView[],
  matcher: Matcher,
  args: { includeHistory: boolean; maxMatchesPerPane: number },
  state: SearchState,
): Promise<void> {
  const skip = (panes: PaneView[], reason: Skip["reason"]) =>
    state.skipped.push(...panes.map((p) => ({ paneId: p.paneId, reason })));
  const over = outOfBudget(state);
  if (over) return void skip(group, over);
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
    return void skip(group, "read_timeout");
  }
  for (const [i, pane] of group.entries()) {
    const capture = captures[i];
    // Killed since the listing: nothing to search, nothing skipped.
    if (!capture) continue;
    const over = outOfBudget(state);
    if (over) {
      skip([pane], over);
      continue;
    }
    let found: { hits: PaneHit[]; more: boolean };
    try {
      found = await matchCapture(ctx, matcher, capture, args.maxMatchesPerPane, state);
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (!(error instanceof MatchDeadline)) throw error;
      skip([pane], "time");
      continue;
    }
    state.scanned += capture.joined.length;
    state.searched++;
    const matches = collectMatches(pane, found.hits, args.maxMatchesPerPane, state);
    if (found.more && matches.length < args.maxMatchesPerPane) state.truncated = true;
    if (matches.length > 0) state.found.push(paneEntry(pane, matches));
  }
}

/**
 * The matching lines of one pane, with room for matches the byte budget
 * turns away: in place while the pane is small and the call's in-place time
 * lasts, else in the worker, which the deadline ends (MatchDeadline).
 */
async function matchCapture(
  ctx: ToolContext,
  matcher: Matcher,
  capture: Capture,
  maxMatches: number,
  state: SearchState,
): Promise<{ hits: PaneHit[]; more: boolean }> {
  const limits = { limit: maxMatches + 1 + SPARE_HITS, locateOver: LOCATE_OVER };
  if (
    capture.physical.length + capture.joined.length <= state.inlineUnits &&
    state.inlineMs < INLINE_MS
  ) {
    const began = performance.now();
    const found = matchPaneHere(matcher.compiled, capture, limits);
    state.inlineMs += performance.now() - began;
    return found;
  }
  return await matchPane(matcher.compiled, capture, limits, {
    timeoutMs: state.deadline - performance.now(),
    signal: ctx.signal,
  });
}

/** The matches of one pane that fit the count and byte budgets. */
function collectMatches(
  pane: PaneView,
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
  const keepSpaces = keepTrailingSpacesFlags(tmux.version);
  try {
    const read = () =>
      tmux.run(
        group.flatMap((pane) => [
          [
            "capture-pane",
            "-p",
            ...keepSpaces,
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
    const outputs = includeHistory ? await wholeHistoryRead(read) : await read();
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
