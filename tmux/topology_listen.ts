/**
 * Hearing about a person's changes (sessions, windows, panes created,
 * renamed, killed) while anyone is subscribed to a resource: a listen-only
 * control client, subscribed to a format that spells out every session,
 * window and pane, runs from the first subscription to the end of the last.
 * Why: docs/decisions/003-topology-listener.md.
 *
 * @module
 */

import { socketArgs, type Tmux } from "./client.ts";
import { quoteArgument } from "./control_transport.ts";
import { leaveControlClient, markAttached, spawnControlClient } from "./control_client.ts";

/** Name of the format subscription that reports topology changes. */
export const TOPOLOGY_SUBSCRIPTION = "tmux-mcp-topology";

/**
 * Every session (with its name, which the sessions view shows), window and
 * pane, by id: what the resource list and the sessions view are made of. No
 * window names: neither shows them, and automatic-rename changes them at
 * every command a pane runs, which would make each a check. No commas: in a
 * loop (`#{P:a,b}`) a comma starts the format used for the current item only.
 */
const TOPOLOGY_FORMAT = "#{S:#{session_id}=#{session_name}#{W:|#{window_id}#{P: #{pane_id}}};}";

/** First wait before attaching again when there was nothing to attach to. */
const RETRY_MIN_MS = 250;
/** Longest wait between attempts: a new session is heard within about this long. */
const RETRY_MAX_MS = 2_000;

/** Longest wait in {@link TopologyListener.start} for tmux to attach the client. */
const ATTACH_WAIT_MS = 3_000;

/** How long the client may take to leave after its stdin closes. */
const EXIT_GRACE_MS = 1_000;

/** Notifications after which the subscribed pane may be gone. */
const PANE_MAY_HAVE_GONE = [
  "%layout-change ",
  "%window-close ",
  "%unlinked-window-close ",
  "%window-pane-changed ",
  "%session-window-changed ",
];

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A listen-only control client; `start()` and `stop()` may be called any number of times. */
export class TopologyListener {
  #child: Deno.ChildProcess | undefined;
  #done: Promise<void> | undefined;
  #wanted = false;
  #starting: Promise<void> | undefined;
  /** The client and pane the subscription was last sent for. */
  #subscribed: { child: Deno.ChildProcess; pane: string } | undefined;
  /** The newest subscription request. */
  #wantedSubscription!: { child: Deno.ChildProcess; session: string };
  #subscribing = false;
  #resubscribe = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #retryMs = RETRY_MIN_MS;

  /** `notify` receives every notification line (`%window-add @3`, …). */
  constructor(readonly tmux: Tmux, readonly notify: (line: string) => void) {}

  /** True while a client is attached (for tests and diagnostics). */
  get listening(): boolean {
    return this.#child !== undefined;
  }

  /** Attaches a client unless one is attached; resolves once it is (or could not be). */
  start(): Promise<void> {
    this.#wanted = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    if (this.#child) return Promise.resolve();
    this.#starting ??= this.#attach().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  /** Ends the client and waits until it has exited. */
  async stop(): Promise<void> {
    this.#wanted = false;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#retryMs = RETRY_MIN_MS;
    await this.#starting;
    const child = this.#child;
    const done = this.#done;
    this.#child = undefined;
    if (!child || !done) return;
    await leaveControlClient(child, () => child.stdin.close(), done, EXIT_GRACE_MS);
  }

  async #attach(): Promise<void> {
    let session: string | undefined;
    try {
      const ids = await this.tmux.one(["list-sessions", "-F", "#{session_id}"]);
      session = ids.split("\n").find((id) => id !== "");
    } catch {
      // No server (or no answer): nothing to listen to until one is back.
    }
    if (!this.#wanted) return;
    if (session === undefined) return this.#retryLater();
    let child: Deno.ChildProcess | undefined;
    try {
      child = await spawnControlClient(this.tmux.binary, socketArgs(this.tmux.socket), session, {
        flags: ["ignore-size", "read-only", "no-output"],
        readOnly: true,
        stillWanted: () => this.#wanted,
      });
    } catch {
      // tmux missing or not permitted: tool calls report the real problem.
      return this.#retryLater();
    }
    if (!child) return;
    this.#child = child;
    const attached = Promise.withResolvers<void>();
    this.#done = this.#read(child, attached.resolve);
    // Resolved only once tmux has attached it: a command that makes tmux 3.3a
    // notify while the client is half attached crashes the server
    // (control_client.ts), and the caller's next step (or a person's) may be
    // one.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      attached.promise,
      this.#done,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ATTACH_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** Attaches again later, each wait twice the last up to {@link RETRY_MAX_MS}. */
  #retryLater(): void {
    if (!this.#wanted || this.#retry !== undefined) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(delay * 2, RETRY_MAX_MS);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#wanted) void this.start();
    }, delay);
  }

  /**
   * Binds the subscription of `child` to a live pane of `session` (tmux
   * drops a subscription sent before attaching): keeps the current pane while
   * it exists, else takes the session's active pane. Checks run one at a time,
   * each for the newest request, so a client that replaced another is never
   * skipped. A pane, never the session: a session subscription crashes tmux
   * (docs/tmux-quirks.md#session-format-subscription-of-a-client-leaving-a-killed-session-crash).
   */
  async #subscribe(child: Deno.ChildProcess, session: string): Promise<void> {
    this.#wantedSubscription = { child, session };
    if (this.#subscribing) {
      this.#resubscribe = true;
      return;
    }
    this.#subscribing = true;
    try {
      do {
        this.#resubscribe = false;
        const { child, session } = this.#wantedSubscription;
        const current = this.#subscribed?.child === child ? this.#subscribed.pane : undefined;
        const pane = await this.#livePane(current, session);
        if (pane === undefined || pane === current || this.#child !== child) continue;
        const target = `${TOPOLOGY_SUBSCRIPTION}:${pane}:${TOPOLOGY_FORMAT}`;
        const writer = child.stdin.getWriter();
        try {
          await writer.write(encoder.encode(`refresh-client -B ${quoteArgument(target)}\n`));
          this.#subscribed = { child, pane };
        } catch {
          // The client is already gone; #read sees it end and reattaches if wanted.
        } finally {
          writer.releaseLock();
        }
      } while (this.#resubscribe);
    } finally {
      this.#subscribing = false;
    }
  }

  /** `current` if that pane still exists, else the session's active pane; undefined if neither. */
  async #livePane(current: string | undefined, session: string): Promise<string | undefined> {
    for (const target of [current, session]) {
      if (target === undefined) continue;
      try {
        // display-message prints nothing (or fails) for a target that is gone.
        const id = (await this.tmux.one(["display-message", "-p", "-t", target, "#{pane_id}"]))
          .trim();
        if (id.startsWith("%")) return id;
      } catch {
        // Gone, or no answer (the server is going: the client's end reattaches).
      }
    }
    return undefined;
  }

  /** Reads `child`'s notifications until it ends; `onAttached` when tmux has attached it. */
  async #read(child: Deno.ChildProcess, onAttached: () => void): Promise<void> {
    let partial = "";
    /** The client's session, once attached. */
    let session: string | undefined;
    try {
      for await (const chunk of child.stdout) {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
        partial = lines.pop() ?? "";
        // Once stopped, its own leaving (%exit) is news to nobody.
        if (this.#child !== child) continue;
        for (const line of lines) {
          if (!line.startsWith("%")) continue;
          if (line.startsWith("%session-changed ")) {
            // The first one is the attach; a later one moved the client
            // (its session ended under detach-on-destroy off).
            if (session === undefined) {
              markAttached(child);
              onAttached();
              this.#retryMs = RETRY_MIN_MS;
            }
            session = line.split(" ")[1];
            // A new session: a pane there, even if the old one still exists.
            if (this.#subscribed?.child === child) this.#subscribed = undefined;
            void this.#subscribe(child, session);
          } else if (session !== undefined && PANE_MAY_HAVE_GONE.some((p) => line.startsWith(p))) {
            void this.#subscribe(child, session);
          }
          this.notify(line);
        }
      }
    } catch {
      // A broken pipe is the end of the client.
    }
    await child.stdin.close().catch(() => {});
    await child.status;
    if (this.#child !== child) return;
    this.#child = undefined;
    if (!this.#wanted) return;
    // Its session ended under it: listen on another one if any is left. A
    // client that never attached (its session went first, or tmux refused
    // it) waits its turn, so a failing attach is not retried in a loop.
    if (session === undefined) this.#retryLater();
    else void this.start();
  }
}
