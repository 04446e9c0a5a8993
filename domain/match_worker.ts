/**
 * Runs compiled patterns over text in a worker, so that no call waits
 * behind a search: the server's own thread only posts the lines and reads
 * the answer, and a hard deadline ends the worker mid-line.
 *
 * The worker is built from a blob holding the source of
 * domain/pattern_run.ts's functions and of joinWrappedRows (domain/wrapped.ts): a blob URL needs no read permission
 * (the server has none) and no module to load, so it works the same under
 * `deno run` and inside a `deno compile` binary, which embeds this module
 * and therefore that source.
 *
 * @module
 */

import { cost, MAX_COST } from "./pattern_program.ts";
import { type Compiled, findLine, RUNTIME, testLine } from "./pattern_run.ts";
import { joinWrappedRows } from "./wrapped.ts";

/** The deadline passed before matching finished; the worker was ended. */
export class MatchDeadline extends Error {
  constructor() {
    super("matching did not finish before its deadline");
  }
}

/** Options of one matching job. */
export interface MatchOptions {
  /** Milliseconds the job may take before it is ended. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A matching line of a pane. */
export interface PaneHit {
  /** The row the line starts on. */
  row: number;
  /** The line, trailing spaces dropped. */
  text: string;
  /** Where the match is, for lines longer than `locateOver`. */
  span: [number, number] | null;
  /** The line's index in the joined capture. */
  line: number;
}

/** The hits of a pane, whether more lines matched, and whether `row` is exact (see {@link PaneText}). */
export interface PaneHits {
  hits: PaneHit[];
  more: boolean;
  numbered: boolean;
}

/**
 * What a pane holds: its rows captured with wrapped lines joined, and the
 * same rows captured apart to number them (see domain/wrapped.ts); or,
 * without the second capture, the pane's width and the rows captured, to
 * number lines by the rows their length fills (exact when those add up to
 * the rows: see paneHits).
 */
export type PaneText =
  | { physical: string; joined: string; firstRow: number }
  | { physical: null; joined: string; firstRow: number; width: number; rows: number };

/**
 * The first `limit` lines of `pane` (wrapped rows joined, trailing spaces
 * dropped) that `compiled` matches, with the span of the match in those
 * longer than `locateOver` UTF-16 units; `more` when others match too.
 * Joining the rows runs in the worker too: for a long history it takes
 * the server's thread as long as matching.
 */
export function matchPane(
  compiled: Compiled,
  pane: PaneText,
  limits: { limit: number; locateOver: number },
  options: MatchOptions & { here?: InPlace },
): Promise<PaneHits> {
  const size = (pane.physical?.length ?? 0) + pane.joined.length;
  if (allows(options.here, size)) {
    return Promise.resolve(spend(options.here!, () => matchPaneHere(compiled, pane, limits)));
  }
  return run({ kind: "pane", programs: [compiled], pane, ...limits }, options);
}

/**
 * Panes whose two captures hold at most this many UTF-16 units in all may be
 * matched on the calling thread ({@link matchPaneHere}) by the costliest
 * accepted pattern: a message to the worker and back costs more than
 * matching them, and that pattern takes well under 0.1 s over this much text.
 */
export const INLINE_UNITS = 64 * 1024;
/** A cheaper pattern gets a proportionally larger bound, up to this many times. */
const INLINE_SCALE_MAX = 8;

/**
 * The units {@link matchPaneHere} may take with `compiled`: the engine's cost
 * per character is fixed at compile time, so the worst case's time bound
 * holds for {@link INLINE_UNITS} times how much cheaper it is than the limit.
 */
export function inlineUnits(compiled: Compiled): number {
  const perChar = Math.max(cost(compiled.forward), cost(compiled.reverse), 1);
  return Math.floor(INLINE_UNITS * Math.min(INLINE_SCALE_MAX, MAX_COST / perChar));
}

/**
 * {@link matchPane} on the calling thread, without deadline: only for a pane
 * within {@link inlineUnits}, whose matching time the engine's linear bound
 * keeps short.
 */
export function matchPaneHere(
  compiled: Compiled,
  pane: PaneText,
  limits: { limit: number; locateOver: number },
): PaneHits {
  return paneHits(compiled, pane, limits.limit, limits.locateOver);
}

/**
 * What one call (a search, a wait) may match on its own thread: text within
 * `units` (the bound of {@link inlineUnits} for its costliest pattern) until
 * `ms` have been spent that way. Past either, the worker matches.
 */
export interface InPlace {
  units: number;
  ms: number;
  spentMs: number;
}

/** The {@link InPlace} allowance of a call matching with `compiled`. */
export function inPlace(compiled: Compiled[], ms: number): InPlace {
  return { units: Math.min(...compiled.map(inlineUnits)), ms, spentMs: 0 };
}

/** Whether `here` lets `units` of text be matched on the calling thread now. */
function allows(here: InPlace | undefined, units: number): boolean {
  return here !== undefined && here.spentMs < here.ms && units <= here.units;
}

/** Runs `match` on the calling thread, counting its time against `here`. */
function spend<T>(here: InPlace, match: () => T): T {
  const began = performance.now();
  try {
    return match();
  } finally {
    here.spentMs += performance.now() - began;
  }
}

/**
 * The first line that one of `compiled` matches, and the first pattern
 * matching it (by index in `compiled`); null when none does. Matched in
 * place when `here` allows it: a message to the worker and back costs more
 * than matching a screen, and starting the worker far more.
 */
export function firstMatch(
  compiled: Compiled[],
  lines: string[],
  options: MatchOptions & { here?: InPlace },
): Promise<{ line: number; pattern: number } | null> {
  if (compiled.length === 0 || lines.length === 0) return Promise.resolve(null);
  if (allows(options.here, totalUnits(lines, options.here?.units ?? 0))) {
    return Promise.resolve(spend(options.here!, () => firstHit(compiled, lines)));
  }
  return run({ kind: "first", programs: compiled, lines }, options);
}

/** The UTF-16 units `lines` hold, counted only until they pass `bound`. */
function totalUnits(lines: string[], bound: number): number {
  let total = 0;
  for (const line of lines) if ((total += line.length) > bound) break;
  return total;
}

/**
 * Starts a worker ahead of the first job, so that its start-up (tens of
 * ms, on its own thread) overlaps the tmux reads before matching.
 */
export function warmMatchWorker(): void {
  if (idle.length === 0) park(spawn());
}

/** Ends the idle workers (tests call this; the server exits without it). */
export function closeMatchWorkers(): void {
  clearTimeout(reaper);
  for (const worker of idle.splice(0)) worker.terminate();
}

/**
 * The rows that lines of `pane` (by index in its joined capture) start on,
 * read off its physical capture: in the worker, as joining a long history's
 * rows takes as long as matching them.
 */
export function lineRows(
  pane: PaneText & { physical: string },
  lines: number[],
  options: MatchOptions,
): Promise<number[]> {
  return run({ kind: "rows", pane, lines }, options);
}

/** {@link lineRows} on the calling thread: for a pane within {@link inlineUnits}. */
export function lineRowsHere(pane: PaneText & { physical: string }, lines: number[]): number[] {
  return rowsOfLines(pane, lines);
}

type Job =
  | { kind: "first"; programs: Compiled[]; lines: string[] }
  | { kind: "pane"; programs: Compiled[]; pane: PaneText; limit: number; locateOver: number }
  | { kind: "rows"; pane: PaneText & { physical: string }; lines: number[] };

/** Workers kept for the next job. */
const MAX_IDLE = 1;
/**
 * Jobs that run at once, each in its own worker (an isolate each); more
 * wait for a slot. Overlapping searches and waits rarely number more.
 */
const MAX_WORKERS = 4;
let running = 0;
const queue: (() => void)[] = [];
/** An idle worker is ended after this long unused. */
const IDLE_MS = 5_000;
const idle: Worker[] = [];
let reaper: ReturnType<typeof setTimeout> | undefined;
let scriptUrl: string | undefined;

function run<T>(job: Job, options: MatchOptions): Promise<T> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    let worker: Worker | undefined;
    let finished = false;
    const finish = (keep: boolean) => {
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (worker === undefined) {
        const waiting = queue.indexOf(start);
        if (waiting >= 0) queue.splice(waiting, 1);
        return;
      }
      worker.onmessage = worker.onerror = null;
      if (keep && idle.length < MAX_IDLE) park(worker);
      else worker.terminate();
      release();
    };
    // The deadline counts from the call, also while waiting for a worker.
    const timer = setTimeout(() => {
      finish(false);
      reject(new MatchDeadline());
    }, Math.max(0, options.timeoutMs));
    const onAbort = () => {
      finish(false);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const start = () => {
      if (finished) return release();
      const w = worker = idle.pop() ?? spawn();
      w.onmessage = (event: MessageEvent<T>) => {
        finish(true);
        resolve(event.data);
      };
      w.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        finish(false);
        reject(new Error(`the pattern worker failed: ${event.message}`));
      };
      w.postMessage(job);
    };
    acquire(start);
  });
}

/** Runs `start` now if fewer than {@link MAX_WORKERS} jobs run, else when one ends. */
function acquire(start: () => void): void {
  if (running < MAX_WORKERS) {
    running++;
    start();
  } else {
    queue.push(start);
  }
}

/** A job ended: its slot goes to the next waiting job. */
function release(): void {
  const next = queue.shift();
  if (next) next();
  else running--;
}

function spawn(): Worker {
  const functions = [...RUNTIME, joinWrappedRows, paneHits, needleFinder, rowsOfLines, firstHit];
  scriptUrl ??= URL.createObjectURL(
    new Blob([`${functions.map(String).join("\n")}\nself.onmessage = ${onJob};\n`], {
      type: "application/javascript",
    }),
  );
  return new Worker(scriptUrl, { type: "module" });
}

function park(worker: Worker): void {
  idle.push(worker);
  clearTimeout(reaper);
  const timer = setTimeout(closeMatchWorkers, IDLE_MS);
  reaper = timer;
  // An idle worker must not keep the process alive.
  Deno.unrefTimer(timer);
}

/**
 * The worker's message handler. Its source runs inside the worker, next to
 * domain/pattern_run.ts's functions and those of {@link spawn}: it may use
 * those and nothing else.
 */
function onJob(event: MessageEvent<Job>): void {
  const job = event.data;
  if (job.kind === "rows") return postMessage(rowsOfLines(job.pane, job.lines));
  const c = job.programs;
  if (job.kind === "first") return postMessage(firstHit(c, job.lines));
  postMessage(paneHits(c[0], job.pane, job.limit, job.locateOver));
}

/** See {@link firstMatch}; runs in the worker too, like {@link paneHits}. */
function firstHit(c: Compiled[], lines: string[]): { line: number; pattern: number } | null {
  for (let line = 0; line < lines.length; line++) {
    for (let pattern = 0; pattern < c.length; pattern++) {
      if (testLine(c[pattern], lines[line])) return { line, pattern };
    }
  }
  return null;
}

/**
 * The matching lines of a pane (see {@link matchPane}). Runs in the worker
 * and on the server's thread alike, so it too may use only the functions the
 * worker's script defines.
 */
function paneHits(
  c: Compiled,
  pane: PaneText,
  limit: number,
  locateOver: number,
): PaneHits {
  const hits: PaneHit[] = [];
  let more = false;
  // Matched as shown: tmux's -J keeps the spaces a line ends with (a
  // prompt's "$ "), which a plain capture and wait_for_text drop.
  const test = (row: number, line: number, text: string) => {
    if (!testLine(c, text)) return;
    if (hits.length === limit) more = true;
    else hits.push({ row, text, span: text.length > locateOver ? findLine(c, text) : null, line });
  };
  const all = pane.joined;
  if (pane.physical !== null) {
    const lines = joinWrappedRows(pane.physical, all, pane.firstRow);
    for (let line = 0; line < lines.length && !more; line++) {
      const { row, text } = lines[line];
      let end = text.length;
      while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
      test(row, line, text.slice(0, end));
    }
    return { hits, more, numbered: true };
  }
  // Each line fills at least one row, and a line of printable ASCII (a cell
  // per character) at least its length over the width: when these add up
  // to the rows captured, each is exact. Walked in place, no array of lines;
  // past the last hit only counted.
  const holds = needleFinder(c, all);
  let row = pane.firstRow;
  for (let at = 0, line = 0; all !== "" && at <= all.length; line++) {
    let next = all.indexOf("\n", at);
    if (next < 0) next = all.length;
    if (!more) {
      let end = next;
      while (end > at && all.charCodeAt(end - 1) === 32) end--;
      if (holds(at, end)) test(row, line, all.slice(at, end));
    }
    let rows = 1;
    if (next - at > pane.width) {
      rows = Math.ceil((next - at) / pane.width);
      for (let i = at; i < next && rows > 1; i++) {
        const code = all.charCodeAt(i);
        if (code < 32 || code > 126) rows = 1;
      }
    }
    row += rows;
    at = next + 1;
  }
  return { hits, more, numbered: row - pane.firstRow === pane.rows };
}

/**
 * Whether `all`'s text from `from` to `to` may hold a match: false only
 * when it holds none of the literals every match of `c` contains (which
 * testLine checks first), found in the whole text at once rather than in
 * a lowered copy of each line. Lowering the whole text must keep every
 * offset; a newline bounds lowering's context as a line's ends do.
 */
function needleFinder(c: Compiled, all: string): (from: number, to: number) => boolean {
  const f = c.filter;
  const hay = f === null ? null : f.lower ? all.toLowerCase() : all;
  if (f === null || hay === null || hay.length !== all.length) return () => true;
  const needles = f.needles;
  // The first occurrence of each needle at or after the last `from` asked.
  const found = needles.map(() => -1);
  return (from, to) => {
    for (let k = 0; k < needles.length; k++) {
      if (found[k] < from) {
        const at = hay.indexOf(needles[k], from);
        found[k] = at < 0 ? Infinity : at;
      }
      if (found[k] + needles[k].length <= to) return true;
    }
    return false;
  };
}

/** See {@link lineRows}; runs in the worker too, like {@link paneHits}. */
function rowsOfLines(pane: PaneText & { physical: string }, lines: number[]): number[] {
  const joined = joinWrappedRows(pane.physical, pane.joined, pane.firstRow);
  return lines.map((line) => joined[line].row);
}

// Declared for onJob's type checking only: inside the worker it is the
// worker's global postMessage.
declare function postMessage(message: unknown): void;
