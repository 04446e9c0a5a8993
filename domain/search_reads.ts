/**
 * What search_panes reads from tmux: a light listing of the panes, then
 * their text in round trips of bounded size. A pane is captured once, with
 * wrapped lines joined (-J), and its size read in the same round trip: that
 * numbers the rows of most panes (see domain/match_worker.ts). The others
 * need a second capture with the rows apart (-N), which {@link readGroup}
 * also reads on request (domain/wrapped.ts pairs the two). A search of the
 * panes last listed reads them with the listing ({@link listAndRead}).
 *
 * @module
 */

import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";
import { formatOf, int, optionalInt, parseRows, type Row, text } from "../tmux/format.ts";
import { keepTrailingSpacesFlags } from "../tmux/version.ts";
import { listPaneFields, listPanesCommand, type PaneScope } from "../tmux/views.ts";
import { wholeHistoryRead } from "./history_reads.ts";

/** What the search reads of a pane in its listing: no command or directory to look up. */
const LISTED = {
  paneId: text("pane_id"),
  windowId: text("window_id"),
  sessionId: text("session_id"),
  width: int("pane_width"),
  height: int("pane_height"),
  historySize: optionalInt("history_size"),
};
const LISTED_FORMAT = formatOf(LISTED);

/** A pane as the search's listing shows it. */
export type ListedPane = Row<typeof LISTED>;

/** Each pane's size, read in the captures' round trip, as they saw it. */
const SIZES = {
  paneId: text("pane_id"),
  width: int("pane_width"),
  height: int("pane_height"),
  historySize: optionalInt("history_size"),
};
const SIZES_COMMAND = ["list-panes", "-a", "-F", formatOf(SIZES)];

/** Rows read per round trip (16 panes at tmux's default history): bounds one tmux answer. */
const ROWS_PER_ROUND_TRIP = 32 * 1024;
/** Panes read per round trip, however small: bounds the command line. */
const PANES_PER_ROUND_TRIP = 64;

/**
 * The panes in `scope`, each once: tmux lists a pane once per session
 * window that shows it (a linked window, a grouped session), and the search
 * takes its first listing.
 */
async function listSearchedPanes(tmux: Tmux, scope: PaneScope): Promise<ListedPane[]> {
  return firstListings(await listPaneFields(tmux, scope, LISTED, LISTED_FORMAT));
}

/** `panes` without the second and later listings of a pane. */
function firstListings(panes: ListedPane[]): ListedPane[] {
  const seen = new Set<string>();
  return panes.filter((pane) => !seen.has(pane.paneId) && seen.add(pane.paneId));
}

/** The panes of a search, and what the listing's round trip already read of them. */
export interface Listing {
  panes: ListedPane[];
  /**
   * The reads of the panes, in one group, when the listing came with them;
   * "timeout" when that round trip outlasted its time; null when not read.
   */
  reads: (PaneRead | null)[] | "timeout" | null;
}

/** The last listing of a scope per tmux client (one scope each: what an agent searches again). */
const lastListing = new WeakMap<Tmux, { scope: string; panes: ListedPane[] }>();

/**
 * Lists the panes in `scope` and, when the last listing of that scope fits
 * one round trip of reads, reads those panes in the listing's round trip
 * (captures first, the listing after them, so it shows the sizes they saw):
 * a search saves a round trip and a listing whenever the panes are still the
 * same, and reads them again otherwise. See docs/benchmarks.md.
 */
export async function listAndRead(
  tmux: Tmux,
  scope: PaneScope,
  options: Omit<ReadOptions, "physical">,
): Promise<Listing> {
  const key = JSON.stringify(scope);
  const last = lastListing.get(tmux);
  const oneRead = (panes: ListedPane[]) => readGroups(panes, options.includeHistory).length === 1;
  const guess = last?.scope === key && oneRead(last.panes) ? last.panes : null;
  const listing = (guess && await readWithListing(tmux, scope, guess, options)) ??
    { panes: await listSearchedPanes(tmux, scope), reads: null };
  lastListing.set(tmux, { scope: key, panes: listing.panes });
  const { panes, reads } = listing;
  const same = panes.length === guess?.length &&
    panes.every((p, i) => p.paneId === guess[i].paneId);
  return Array.isArray(reads) && !(same && oneRead(panes)) ? { panes, reads: null } : listing;
}

/**
 * `guess` captured, then `scope` listed, in one round trip; null when tmux
 * refused it (a pane or the session gone: the caller lists again).
 */
async function readWithListing(
  tmux: Tmux,
  scope: PaneScope,
  guess: ListedPane[],
  options: Omit<ReadOptions, "physical">,
): Promise<Listing | null> {
  const read = { ...options, physical: false };
  try {
    const outputs = await captureWith(tmux, guess, read, listPanesCommand(scope, LISTED_FORMAT));
    const panes = firstListings(parseRows(LISTED, outputs[outputs.length - 1]));
    return {
      panes,
      reads: readsOf(guess, outputs, new Map(panes.map((p) => [p.paneId, p])), read),
    };
  } catch (error) {
    if (!(error instanceof TmuxError)) throw error;
    if (error.kind !== "timeout" || !options.includeHistory) return null;
    return { panes: guess, reads: "timeout" };
  }
}

/** The rows a capture of `pane` holds, as listed. */
export function listedRows(pane: ListedPane, includeHistory: boolean): number {
  return pane.height + (includeHistory ? pane.historySize ?? 0 : 0);
}

/** `panes` in groups read one round trip each, within {@link ROWS_PER_ROUND_TRIP} but for a larger pane alone. */
export function readGroups(panes: ListedPane[], includeHistory: boolean): ListedPane[][] {
  const groups: ListedPane[][] = [];
  let group: ListedPane[] = [];
  let rows = 0;
  for (const pane of panes) {
    const size = listedRows(pane, includeHistory);
    if (
      group.length > 0 &&
      (rows + size > ROWS_PER_ROUND_TRIP || group.length === PANES_PER_ROUND_TRIP)
    ) {
      groups.push(group);
      group = [];
      rows = 0;
    }
    group.push(pane);
    rows += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** What one round trip read of a pane. */
export interface PaneRead {
  /** The rows with wrapped lines joined (-J: trailing spaces kept). */
  joined: string;
  /** The same rows apart, trailing spaces kept (-N), when asked for. */
  physical: string | null;
  /**
   * The row number of the first row: minus the history's length as the
   * captures saw it (the listing's may be older), else 0.
   */
  firstRow: number;
  /** The pane's width, as the captures saw it. */
  width: number;
  /** The rows captured. */
  rows: number;
}

/** Reading options: whole histories, rows apart too (-N), tmux's time limit. */
export interface ReadOptions {
  includeHistory: boolean;
  physical: boolean;
  timeoutMs: number;
}

/**
 * The captures of `group` and then `after`, in one round trip: the outputs,
 * each pane's capture (and its -N capture when `physical`) in turn, `after`'s
 * last.
 */
async function captureWith(
  tmux: Tmux,
  group: { paneId: string }[],
  options: ReadOptions,
  after: string[],
): Promise<string[]> {
  const range = options.includeHistory ? ["-S", "-"] : [];
  const flags = options.physical ? [["-J"], keepTrailingSpacesFlags(tmux.version)] : [["-J"]];
  const read = () =>
    tmux.run(
      [
        ...group.flatMap((pane) =>
          flags.map((f) => ["capture-pane", "-p", ...f, "-t", pane.paneId, ...range])
        ),
        after,
      ],
      { timeoutMs: options.timeoutMs },
    );
  return options.includeHistory ? await wholeHistoryRead(read) : await read();
}

/** The reads of `group` from {@link captureWith}'s outputs and the sizes the captures saw. */
function readsOf(
  group: { paneId: string }[],
  outputs: string[],
  sizes: Map<string, Row<typeof SIZES>>,
  options: ReadOptions,
): (PaneRead | null)[] {
  const step = options.physical ? 2 : 1;
  return group.map((pane, i) => {
    const size = sizes.get(pane.paneId);
    if (!size) return null;
    const history = options.includeHistory ? size.historySize ?? 0 : 0;
    return {
      joined: outputs[step * i],
      physical: options.physical ? outputs[step * i + 1] : null,
      firstRow: -history,
      width: size.width,
      rows: history + size.height,
    };
  });
}

/**
 * The text of each pane of `group` in one round trip (with the rows apart
 * too when `physical`); null for a pane killed since it was listed (its
 * capture fails the whole round trip, so the panes are then read one by one
 * and only the missing one is left out). Fails with a timeout error when
 * tmux takes longer than `timeoutMs`.
 */
export async function readGroup(
  tmux: Tmux,
  group: { paneId: string }[],
  options: ReadOptions,
): Promise<(PaneRead | null)[]> {
  try {
    // In the same round trip: the sizes the captures saw.
    const outputs = await captureWith(tmux, group, options, SIZES_COMMAND);
    const sizes = new Map(parseRows(SIZES, outputs[outputs.length - 1]).map((s) => [s.paneId, s]));
    return readsOf(group, outputs, sizes, options);
  } catch (error) {
    if (!(error instanceof TmuxError && error.kind === "no_target")) throw error;
    if (group.length === 1) return [null];
  }
  const reads: (PaneRead | null)[] = [];
  for (const pane of group) reads.push(...await readGroup(tmux, [pane], options));
  return reads;
}
