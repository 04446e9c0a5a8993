/**
 * Runs of `run_shell_command` that outlived their call (it timed out or was
 * cancelled while the command went on), kept so that a later call naming
 * the run's id waits for it again and returns its exit status and output as
 * if it had waited all along. Each keeps the watch on its end (which reads
 * the result when the run ends, whether a call waits then or not), and what
 * was read of a run that ended while no call waited for it.
 *
 * Runs nobody collects are kept for a bounded time and count; a dropped or
 * collected run's id is remembered a while longer, so that a later attempt
 * is told what became of it.
 *
 * @module
 */

import type { Content } from "../core/budget.ts";

/** What was read of a run that ended while no call waited for it. */
export interface EndedRun {
  exitStatus: number;
  /** Its output, within the server's default budget. */
  output: Content;
  outputIncomplete: boolean;
  /** Seconds from typing its line to reading its end. */
  elapsedSeconds: number;
}

/** A run that outlived its call. `F` is how its frame is found (channel, options, markers). */
export interface KeptRun<F> {
  id: string;
  /** The tmux server (its label) the run's pane is on. */
  label: string;
  paneId: string;
  /** The pid of the pane's shell the line was typed into. */
  owner: string;
  frame: F;
  /** `performance.now()` when its line was typed. */
  startedAt: number;
  /** Set once it ended and was read. */
  ended?: EndedRun;
}

/** Bounds of a {@link KeptRuns}. */
export interface KeptLimits {
  /** Runs kept at most; the one kept longest is dropped first. */
  count: number;
  /** How long a run is kept after the last call that waited for it. */
  ms: number;
}

/** The bounds this server keeps runs within. */
export const KEPT_LIMITS: KeptLimits = { count: 16, ms: 60 * 60_000 };
/** Ids of runs no longer kept, remembered with what became of them. */
const GONE_MAX = 256;

/** The runs kept by one server process. */
export class KeptRuns<F> {
  #runs = new Map<string, { run: KeptRun<F>; until: number }>();
  #gone = new Map<string, string>();

  /** `dropped` is called for each run no longer kept (e.g. to end its watch). */
  constructor(
    readonly limits: KeptLimits = KEPT_LIMITS,
    private readonly now: () => number = () => performance.now(),
    private readonly dropped: (run: KeptRun<F>) => void = () => {},
  ) {}

  /** Keeps `run` (again), for {@link KeptLimits.ms} from now. */
  keep(run: KeptRun<F>): void {
    this.#prune();
    this.#runs.delete(run.id);
    this.#runs.set(run.id, { run, until: this.now() + this.limits.ms });
    this.#gone.delete(run.id);
    for (const [id] of this.#runs) {
      if (this.#runs.size <= this.limits.count) break;
      this.forget(
        id,
        `it was dropped: the server keeps at most ${this.limits.count} runs nobody collected`,
      );
    }
  }

  /**
   * Takes the kept run `id` of pane `paneId` on `label` out, to wait for it;
   * the caller keeps it again if it still runs. Else says why it cannot.
   */
  take(label: string, paneId: string, id: string): KeptRun<F> | { why: string } {
    this.#prune();
    const kept = this.#runs.get(id)?.run;
    if (!kept || kept.label !== label) {
      return { why: this.#gone.get(id) ?? "no run with this id was left running by this server" };
    }
    if (kept.paneId !== paneId) return { why: `it runs in pane ${kept.paneId}` };
    this.#runs.delete(id);
    return kept;
  }

  /** The runs kept for pane `paneId` on `label`. */
  onPane(label: string, paneId: string): KeptRun<F>[] {
    this.#prune();
    return [...this.#runs.values()].map((entry) => entry.run)
      .filter((run) => run.label === label && run.paneId === paneId);
  }

  /** True when run `id` is kept. */
  has(id: string): boolean {
    this.#prune();
    return this.#runs.has(id);
  }

  /** Stops keeping run `id`; a later attempt to collect it is told `why`. */
  forget(id: string, why: string): void {
    const kept = this.#runs.get(id);
    this.#runs.delete(id);
    if (kept) this.dropped(kept.run);
    this.#gone.delete(id);
    this.#gone.set(id, why);
    for (const [old] of this.#gone) {
      if (this.#gone.size <= GONE_MAX) break;
      this.#gone.delete(old);
    }
  }

  #prune(): void {
    const now = this.now();
    const minutes = Math.round(this.limits.ms / 60_000);
    for (const [id, entry] of this.#runs) {
      if (entry.until <= now) {
        this.forget(id, `it was dropped: nobody collected it within ${minutes} minutes`);
      }
    }
  }
}
