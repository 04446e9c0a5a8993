/**
 * Learning, within milliseconds, that a pane printed something: a control
 * client of its own per watched session (polling when none can attach),
 * alive only while anyone watches. A watch only says "look now"; callers
 * read the pane. Why: docs/decisions/005-output-watch.md.
 *
 * @module
 */

import { socketArgs, type Tmux } from "./client.ts";
import { killChild } from "./children.ts";
import {
  leaveControlClient,
  leavesSettled,
  markAttached,
  readChunks,
  spawnControlClient,
} from "./control_client.ts";
import { paneTarget } from "./targets.ts";

/** How a watch learns about output. */
export type WakeMechanism = "control-mode" | "polling";

/** Interval of a polling watch. */
export const POLL_MS = 100;
/** Bound of attaching a watcher's control client. */
const ATTACH_TIMEOUT_MS = 3_000;
/** How long a control client may take to leave after its stdin closes. */
const EXIT_GRACE_MS = 1_000;
/** Bytes of a line needed to classify it (`%extended-output %123456 ` fits). */
const HEAD_BYTES = 40;

/**
 * Notifications after which any watched pane of the session may be gone,
 * moved or resized, or have gained or lost its window's focus (its view's
 * `active`), none of which prints anything.
 */
const STRUCTURAL = [
  "%window-pane-changed ",
  "%layout-change ",
  "%window-close ",
  "%unlinked-window-close ",
  "%unlinked-window-add ",
  "%session-changed ",
  "%sessions-changed",
];

/** A subscription to one pane's output. */
export interface PaneWatch {
  /** How this watch learns about output now. */
  readonly mechanism: WakeMechanism;
  /**
   * The session the pane was in when the watch was armed (undefined for a
   * pane that was not found): tmux tells a control client only about panes
   * of its own session, so a pane moved elsewhere needs a new watch.
   */
  readonly sessionId: string | undefined;
  /**
   * Resolves true as soon as the pane printed (or its window changed) since
   * the previous call, false after `ms` without that or once the watch is
   * closed or aborted. A polling watch resolves true every {@link POLL_MS}.
   */
  next(ms: number): Promise<boolean>;
  /** Ends the subscription; the control client ends with its last watcher. */
  close(): Promise<void>;
}

interface Subscriber {
  paneId: string;
  pending: boolean;
  wake?: () => void;
}

/** One control client attached to a session, shared by the watchers of its panes. */
class SessionFeed {
  readonly subscribers = new Set<Subscriber>();
  readonly ready: Promise<boolean>;
  readonly done: Promise<void>;
  ended = false;
  #markReady: (ok: boolean) => void = () => {};
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #head: number[] = [];
  #headDone = false;
  #inBlock = false;

  constructor(readonly child: Deno.ChildProcess, readonly onEnd: () => void) {
    this.ready = new Promise((resolve) => (this.#markReady = resolve));
    this.#writer = child.stdin.getWriter();
    this.done = this.#read();
  }

  async #read(): Promise<void> {
    await readChunks(this.child, (bytes) => this.#feed(bytes));
    this.ended = true;
    this.#markReady(false);
    this.onEnd();
    // Watchers fall back to polling and find out what happened by reading.
    for (const sub of this.subscribers) wake(sub);
    // The client is gone: its stdin is closed or broken either way.
    await this.#writer.close().catch(() => {});
    await this.child.status;
  }

  /** Looks only at the head of each line: enough to tell whose output it is. */
  #feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      const nl = chunk.indexOf(10, i);
      const stop = nl === -1 ? chunk.length : nl;
      if (!this.#headDone) {
        const take = Math.min(stop, i + HEAD_BYTES - this.#head.length);
        for (let j = i; j < take; j++) this.#head.push(chunk[j]);
        if (this.#head.length >= HEAD_BYTES || nl !== -1) {
          this.#headDone = true;
          this.#line(String.fromCharCode(...this.#head));
        }
      }
      if (nl === -1) return;
      this.#head = [];
      this.#headDone = false;
      i = nl + 1;
    }
  }

  #line(head: string): void {
    if (this.#inBlock) {
      if (head.startsWith("%end ") || head.startsWith("%error ")) this.#inBlock = false;
      return;
    }
    if (head.startsWith("%begin ")) {
      this.#inBlock = true;
      return;
    }
    // `%continue`: output printed while a respawn had the pane paused was
    // dropped (see pauseOutput), so its watchers re-read.
    const output = /^%(?:(?:extended-)?output|continue) (%\d+)/.exec(head);
    if (output) {
      for (const sub of this.subscribers) if (sub.paneId === output[1]) wake(sub);
      return;
    }
    if (head.startsWith("%session-changed ")) {
      markAttached(this.child);
      this.#markReady(true);
      return;
    }
    const mode = /^%pane-mode-changed (%\d+)/.exec(head);
    if (mode) {
      for (const sub of this.subscribers) if (sub.paneId === mode[1]) wake(sub);
      return;
    }
    // What can end, move or resize a pane: watchers re-read to find out.
    if (STRUCTURAL.some((prefix) => head.startsWith(prefix))) {
      for (const sub of this.subscribers) wake(sub);
    }
  }

  /** Closes stdin (tmux then detaches the client); kills it if it lingers. */
  async close(): Promise<void> {
    // New watchers start a fresh client rather than join one that is leaving.
    this.onEnd();
    await leaveControlClient(this.child, () => this.#writer.close(), this.done, EXIT_GRACE_MS);
  }

  kill(): void {
    killChild(this.child);
  }
}

function wake(sub: Subscriber): void {
  sub.pending = true;
  const resolve = sub.wake;
  sub.wake = undefined;
  resolve?.();
}

const feeds = new WeakMap<Tmux, Map<string, SessionFeed>>();
const everyFeed = new Set<SessionFeed>();
/** Control clients attached for watching right now (for tests and diagnostics). */
export function liveWatchClients(): number {
  return everyFeed.size;
}

/** Feeds being started, so concurrent watchers of one session share one client. */
const startingFeeds = new WeakMap<Tmux, Map<string, Promise<SessionFeed | undefined>>>();

/** The session's feed: the running one, the one being started, or a new one. */
function feedFor(tmux: Tmux, sessionId: string): Promise<SessionFeed | undefined> {
  const running = feeds.get(tmux)?.get(sessionId);
  if (running) return Promise.resolve(running);
  const starting = startingFeeds.get(tmux) ?? new Map<string, Promise<SessionFeed | undefined>>();
  startingFeeds.set(tmux, starting);
  let pending = starting.get(sessionId);
  if (!pending) {
    pending = startFeed(tmux, sessionId).finally(() => starting.delete(sessionId));
    starting.set(sessionId, pending);
  }
  return pending;
}

async function startFeed(tmux: Tmux, sessionId: string): Promise<SessionFeed | undefined> {
  while ((holds.get(tmux) ?? 0) > 0) await new Promise<void>((resolve) => unholds.add(resolve));
  let child: Deno.ChildProcess | undefined;
  const spawn = spawnControlClient(tmux.binary, socketArgs(tmux.socket), sessionId, {
    flags: ["ignore-size", "read-only"],
    readOnly: true,
  });
  const set = spawning.get(tmux) ?? new Set<Promise<unknown>>();
  spawning.set(tmux, set);
  const settled = spawn.catch(() => {});
  set.add(settled);
  try {
    child = await spawn;
  } catch {
    // tmux missing or not permitted: the caller polls instead, and reads
    // through the transport report the real problem.
    return undefined;
  } finally {
    set.delete(settled);
  }
  if (!child) return undefined;
  const bySession = feeds.get(tmux) ?? new Map<string, SessionFeed>();
  feeds.set(tmux, bySession);
  const feed = new SessionFeed(child, () => {
    if (bySession.get(sessionId) === feed) bySession.delete(sessionId);
  });
  everyFeed.add(feed);
  void feed.done.then(() => everyFeed.delete(feed));
  bySession.set(sessionId, feed);
  return feed;
}

/** Per server: callers keeping new watch clients from attaching (see {@link pauseOutput}). */
const holds = new WeakMap<Tmux, number>();
/** Feed starts waiting for the holds to end. */
const unholds = new Set<() => void>();
/** Per server: spawns of watch clients under way (past the hold). */
const spawning = new WeakMap<Tmux, Set<Promise<unknown>>>();

/**
 * Pauses `paneId`'s output to every watch client of `tmux` (tmux drops what
 * they had queued of it) and keeps new ones from attaching, until the
 * returned function resumes them; `%continue` then wakes the pane's watchers.
 * For respawn-pane: see tmux/respawn_safety.ts.
 */
export async function pauseOutput(tmux: Tmux, paneId: string): Promise<() => Promise<void>> {
  holds.set(tmux, (holds.get(tmux) ?? 0) + 1);
  const clients = await attachedClients(tmux);
  const each = (verb: string) =>
    Promise.all(clients.map((name) =>
      // A client that left meanwhile has nothing queued.
      tmux.run([["refresh-client", "-t", name, "-A", `${paneId}:${verb}`]]).catch(() => {})
    ));
  await each("pause");
  let resumed = false;
  return async () => {
    if (resumed) return;
    resumed = true;
    try {
      await each("continue");
    } finally {
      release(tmux);
    }
  };
}

function release(tmux: Tmux): void {
  const count = (holds.get(tmux) ?? 1) - 1;
  holds.set(tmux, count);
  if (count > 0) return;
  for (const wake of unholds) wake();
  unholds.clear();
}

/** Names of the watch clients of `tmux`, once those being spawned or attaching have attached. */
async function attachedClients(tmux: Tmux): Promise<string[]> {
  // A client leaving is no longer listed but may still lag behind the pane.
  await Promise.all([...(spawning.get(tmux) ?? []), leavesSettled()]);
  const running = [...(feeds.get(tmux)?.values() ?? [])];
  // tmux 3.3a crashes writing to a half-attached control client (see control_client.ts).
  const ready = await Promise.all(running.map((feed) => readyWithin(feed, ATTACH_TIMEOUT_MS)));
  // tmux names a client without a terminal after its process id.
  return running.filter((feed, i) => ready[i] && !feed.ended).map((f) => `client-${f.child.pid}`);
}

/** Resolves with `feed.ready`, or false after `ms`. */
async function readyWithin(feed: SessionFeed, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ok = await Promise.race([
    feed.ready,
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return ok;
}

async function attachedFeed(
  tmux: Tmux,
  sessionId: string,
  signal?: AbortSignal,
): Promise<SessionFeed | undefined> {
  const feed = await feedFor(tmux, sessionId);
  if (!feed) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ok = await Promise.race([
    feed.ready,
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ATTACH_TIMEOUT_MS);
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  if (!ok && feed.subscribers.size === 0) {
    feeds.get(tmux)?.delete(sessionId);
    await feed.close();
  }
  return ok ? feed : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
}

class Watch implements PaneWatch {
  #closed = false;
  readonly #sub: Subscriber;

  constructor(
    paneId: string,
    readonly sessionId: string | undefined,
    readonly feed: SessionFeed | undefined,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#sub = { paneId, pending: false };
    feed?.subscribers.add(this.#sub);
    signal?.addEventListener("abort", () => wake(this.#sub), { once: true });
  }

  get mechanism(): WakeMechanism {
    return this.feed && !this.feed.ended ? "control-mode" : "polling";
  }

  async next(ms: number): Promise<boolean> {
    if (this.#closed || this.signal?.aborted) return false;
    if (!this.feed || this.feed.ended) {
      await sleep(Math.min(ms, POLL_MS), this.signal);
      return !this.#closed && !this.signal?.aborted;
    }
    if (!this.#sub.pending) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#sub.wake = resolve;
        timer = setTimeout(resolve, Math.max(0, ms));
      });
      clearTimeout(timer);
      this.#sub.wake = undefined;
    }
    const woken = this.#sub.pending;
    this.#sub.pending = false;
    return woken && !this.#closed && !this.signal?.aborted;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    wake(this.#sub);
    const feed = this.feed;
    if (!feed) return;
    feed.subscribers.delete(this.#sub);
    if (feed.subscribers.size === 0) await feed.close();
  }
}

/**
 * Starts watching `paneId`: attaches (or joins) a control client on the
 * pane's session, else polls. The watch is armed when this resolves: output
 * printed from then on wakes it. Close it when done.
 */
export async function watchPaneOutput(
  tmux: Tmux,
  paneId: string,
  options: { signal?: AbortSignal } = {},
): Promise<PaneWatch> {
  const [found] = await tmux.run([
    ["display-message", "-p", "-t", paneTarget(paneId), "#{pane_id} #{session_id}"],
  ], { signal: options.signal });
  const [id, sessionId] = found.split(" ");
  // display-message prints empty fields for a pane that does not exist: the
  // caller's next read reports that; polling costs nothing meanwhile.
  if (id !== paneId || !sessionId) return new Watch(paneId, undefined, undefined, options.signal);
  const feed = await attachedFeed(tmux, sessionId, options.signal);
  return new Watch(paneId, sessionId, feed, options.signal);
}

/**
 * A watch of one pane that follows it to another session. tmux tells a
 * control client only about its own session's panes, and the layout or
 * window-close notification of the move wakes the old watch, so the read that
 * follows finds the pane elsewhere and passes its session to
 * {@link FollowingWatch.follow}.
 */
export class FollowingWatch implements PaneWatch {
  #watch: PaneWatch;
  #closed = false;

  private constructor(
    readonly tmux: Tmux,
    readonly paneId: string,
    readonly signal: AbortSignal | undefined,
    watch: PaneWatch,
  ) {
    this.#watch = watch;
  }

  /** Starts watching `paneId` in its session now, as {@link watchPaneOutput} does. */
  static async start(
    tmux: Tmux,
    paneId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<FollowingWatch> {
    return new FollowingWatch(
      tmux,
      paneId,
      options.signal,
      await watchPaneOutput(tmux, paneId, options),
    );
  }

  get mechanism(): WakeMechanism {
    return this.#watch.mechanism;
  }

  get sessionId(): string | undefined {
    return this.#watch.sessionId;
  }

  next(ms: number): Promise<boolean> {
    return this.#watch.next(ms);
  }

  /**
   * Re-arms the watch where the pane is when `sessionId` (the session a read
   * found it in) is not the one watched. True when the watched session
   * changed: output printed before the new watch was armed went unheard, so
   * read the pane again. Throws what arming throws; the old watch then
   * carries on.
   */
  async follow(sessionId: string): Promise<boolean> {
    const old = this.#watch;
    if (sessionId === old.sessionId || this.#closed) return false;
    const moved = await watchPaneOutput(this.tmux, this.paneId, { signal: this.signal });
    if (this.#closed) {
      // Closed while the new watch attached: nobody would ever end it.
      await moved.close();
      return false;
    }
    this.#watch = moved;
    await old.close();
    return moved.sessionId !== old.sessionId;
  }

  close(): Promise<void> {
    this.#closed = true;
    return this.#watch.close();
  }
}
