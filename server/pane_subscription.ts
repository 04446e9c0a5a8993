/**
 * One client's subscription to a pane resource: reads the pane, wakes on its
 * output through a watch, and says when it changed, spaced out.
 *
 * @module
 */

import type { Tmux } from "../tmux/client.ts";
import { isGone, noSuch, TmuxError } from "../tmux/errors.ts";
import { FollowingWatch } from "../tmux/output_watch.ts";
import { paneTarget } from "../tmux/targets.ts";
import { listPanesCommand, type PaneView, parsePanes } from "../tmux/views.ts";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  RESOURCE_NOT_FOUND,
  type ResourceContext,
  ResourceError,
} from "./resources.ts";
import { logError } from "./server.ts";

/** Updates of one pane's resource are at least this far apart. */
export const UPDATE_SPACING_MS = 500;
/** A subscribed pane is re-read this often even without output (a program exiting prints nothing). */
const SAFETY_MS = 2_000;

/** Which resource of a pane a URI names. */
export interface PaneRef {
  paneId: string;
  kind: "view" | "content";
}

/** A pane's view and screen from one round trip. */
export interface PaneState {
  pane: PaneView;
  screen: string;
  cursor: string;
}

export async function readPane(
  tmux: Tmux,
  paneId: string,
  caller: string | null,
): Promise<PaneState> {
  const target = paneTarget(paneId);
  // list-panes fails for a pane that does not exist, so the display-message
  // after it (which would print empty fields) never answers for a missing pane.
  const [meta, cursor, screen] = await tmux.run([
    listPanesCommand({ kind: "pane", paneId }),
    ["display-message", "-p", "-t", target, "#{cursor_x},#{cursor_y}"],
    ["capture-pane", "-p", "-t", target],
  ]);
  const [pane] = parsePanes(meta, caller);
  if (!pane) throw noSuch("pane");
  return { pane, screen, cursor };
}

/** The error a read or subscription of a pane that is not there answers. */
export function paneMissing(error: unknown): Error {
  if (error instanceof TmuxError && error.kind === "no_target") {
    return new ResourceError(
      "tmux has no such pane (it was closed, or never existed). " +
        "List the panes with resources/list or list_panes and use a URI from there.",
    );
  }
  if (error instanceof TmuxError) {
    return new ResourceError(
      `${error.message.replace(/\.$/, "")}. ${error.hint}`,
      error.kind === "no_server" ? RESOURCE_NOT_FOUND : INTERNAL_ERROR,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener("abort", done, { once: true });
  });
}

/** One subscribed pane resource: a watch and the loop that turns wake-ups into updates. */
export class PaneSubscription {
  readonly #abort = new AbortController();
  #loop: Promise<void> = Promise.resolve();
  /** The watch, which follows the pane to another session. */
  #watch: FollowingWatch | undefined;

  constructor(
    readonly ref: PaneRef,
    readonly ctx: ResourceContext,
    readonly updated: () => void,
    readonly ended: () => void,
  ) {}

  /** Arms the watch and reads the starting state; throws for a pane that is not there. */
  async start(): Promise<void> {
    const { tmux } = this.ctx;
    const signal = this.#abort.signal;
    const caller = await this.ctx.caller.verifiedPane(tmux);
    let first: PaneState;
    try {
      first = await readPane(tmux, this.ref.paneId, caller);
    } catch (error) {
      throw paneMissing(error);
    }
    if (first.pane.dead) {
      throw new ResourceError(
        "the pane is dead (its program exited), so it will not print again. " +
          "Read its last screen with resources/read, or restart it with respawn_pane.",
        INVALID_PARAMS,
      );
    }
    // Armed before the baseline read: output printed in between wakes the
    // watch, and the comparison then decides whether anything changed.
    const watch = await FollowingWatch.start(tmux, this.ref.paneId, { signal });
    this.#watch = watch;
    let baseline: string;
    try {
      baseline = this.#fingerprint(await readPane(tmux, this.ref.paneId, caller));
    } catch (error) {
      await watch.close();
      throw paneMissing(error);
    }
    this.#loop = this.#run(baseline, caller);
  }

  #fingerprint(state: PaneState): string {
    return this.ref.kind === "view"
      ? JSON.stringify(state.pane)
      : `${state.pane.historySize}\n${state.cursor}\n${state.screen}`;
  }

  async #run(baseline: string, caller: string | null): Promise<void> {
    const signal = this.#abort.signal;
    let last = baseline;
    let lastRead = performance.now();
    let lookNow = false;
    try {
      while (!signal.aborted) {
        if (!lookNow) await this.#watch?.next(SAFETY_MS);
        lookNow = false;
        if (signal.aborted) break;
        // Spacing reads spaces updates, and bounds a polling watch's cost.
        await sleep(lastRead + UPDATE_SPACING_MS - performance.now(), signal);
        if (signal.aborted) break;
        lastRead = performance.now();
        let state: PaneState;
        try {
          state = await readPane(this.ctx.tmux, this.ref.paneId, caller);
        } catch (error) {
          if (!isGone(error)) {
            // A slow or failed read: the next wake-up (or the safety read) tries again.
            logError(`subscription to ${this.ref.paneId}`, error);
            continue;
          }
          // Killed, or the server went away: one last update, then the end.
          this.updated();
          break;
        }
        if (state.pane.dead) {
          this.updated();
          break;
        }
        const now = this.#fingerprint(state);
        if (now !== last) {
          last = now;
          this.updated();
        }
        // Moved to another session (move-pane, join-pane, move-window): its
        // output now goes to that session's control clients only. What it
        // printed before the new watch was armed is found by reading again.
        lookNow = await this.#follow(state.pane.sessionId);
      }
    } finally {
      // Ended first: a new subscribe must not join this one while its
      // control client is still on its way out.
      if (!signal.aborted) this.ended();
      await this.#watch?.close();
    }
  }

  /** Watches the pane in `sessionId` if it moved there; true when it did (read again). */
  async #follow(sessionId: string): Promise<boolean> {
    try {
      return await this.#watch?.follow(sessionId) ?? false;
    } catch (error) {
      // No answer: the old watch and the safety read carry on; the next read tries again.
      if (!isGone(error)) logError(`subscription to ${this.ref.paneId}`, error);
      return false;
    }
  }

  /** Stops the loop and waits until the watch (and its control client) is gone. */
  async close(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    await this.#watch?.close();
  }
}
