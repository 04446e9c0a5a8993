/**
 * Hearing about a person's changes (sessions, windows, panes created,
 * renamed, killed) while anyone is subscribed to a resource: a listen-only
 * control client, attached to one session of the driven server from the
 * first subscription to the end of the last. tmux sends every control client
 * `%sessions-changed`, `%session-renamed` and the (unlinked-)window
 * notifications of every session, but pane-level changes (`%layout-change`)
 * only for the session the client is attached to. So the client also
 * subscribes to a format that spells out every session, window and pane
 * (`refresh-client -B`): tmux re-evaluates it about once a second and sends
 * `%subscription-changed tmux-mcp-topology …` at first and whenever it
 * differs, which covers panes split off or killed in any session, with no
 * timer on our side. (Whoever hears these lines compares the resource
 * listing, so a report that changes nothing sends nothing.)
 *
 * It is attached with `-E` (it does not copy this process's environment
 * into the session), `read-only`, `ignore-size` (it never sizes anyone's
 * windows) and `no-output` (no `%output` flood); the subscription is the only
 * command it sends. When its session ends it attaches to another one, if any
 * is left.
 *
 * @module
 */

import { socketArgs, type Tmux } from "./client.ts";
import { quoteArgument } from "./control_transport.ts";
import { killChild } from "./children.ts";
import { spawnControlClient } from "./control_client.ts";

/** Name of the format subscription that reports topology changes. */
export const TOPOLOGY_SUBSCRIPTION = "tmux-mcp-topology";

/**
 * Every session, window and pane, with the names and indexes the resource
 * listing shows. No commas: in a loop (`#{P:a,b}`) a comma starts the
 * format used for the current item only.
 */
const TOPOLOGY_FORMAT = "#{S:#{session_id}=#{session_name}" +
  "#{W:|#{window_id}.#{window_index}=#{window_name}#{P: #{pane_id}.#{pane_index}}};}";

/** How long the client may take to leave after its stdin closes. */
const EXIT_GRACE_MS = 1_000;

const decoder = new TextDecoder();

/** A listen-only control client; `start()` and `stop()` may be called any number of times. */
export class TopologyListener {
  #child: Deno.ChildProcess | undefined;
  #done: Promise<void> | undefined;
  #wanted = false;
  #starting: Promise<void> | undefined;

  /** `notify` receives every notification line (`%window-add @3`, …). */
  constructor(readonly tmux: Tmux, readonly notify: (line: string) => void) {}

  /** True while a client is attached (for tests and diagnostics). */
  get listening(): boolean {
    return this.#child !== undefined;
  }

  /** Attaches a client unless one is attached; resolves once it is (or could not be). */
  start(): Promise<void> {
    this.#wanted = true;
    if (this.#child) return Promise.resolve();
    this.#starting ??= this.#attach().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  /** Ends the client and waits until it has exited. */
  async stop(): Promise<void> {
    this.#wanted = false;
    await this.#starting;
    const child = this.#child;
    const done = this.#done;
    this.#child = undefined;
    if (!child || !done) return;
    await child.stdin.close().catch(() => {});
    const timer = setTimeout(() => killChild(child), EXIT_GRACE_MS);
    await done;
    clearTimeout(timer);
  }

  async #attach(): Promise<void> {
    let session: string | undefined;
    try {
      const ids = await this.tmux.one(["list-sessions", "-F", "#{session_id}"]);
      session = ids.split("\n").find((id) => id !== "");
    } catch {
      // No server (or no answer): nothing to listen to until a tool call creates one.
      return;
    }
    if (session === undefined || !this.#wanted) return;
    let child: Deno.ChildProcess;
    try {
      child = spawnControlClient(this.tmux.binary, socketArgs(this.tmux.socket), session, {
        flags: ["ignore-size", "read-only", "no-output"],
        readOnly: true,
      });
    } catch {
      // tmux missing or not permitted: tool calls report the real problem.
      return;
    }
    this.#child = child;
    this.#done = this.#read(child);
  }

  /** Subscribes the attached client to the topology format (tmux drops it if sent before attaching). */
  async #subscribe(child: Deno.ChildProcess): Promise<void> {
    const writer = child.stdin.getWriter();
    try {
      await writer.write(
        new TextEncoder().encode(
          `refresh-client -B ${quoteArgument(`${TOPOLOGY_SUBSCRIPTION}::${TOPOLOGY_FORMAT}`)}\n`,
        ),
      );
    } catch {
      // The client is already gone; #read sees it end and reattaches if wanted.
    } finally {
      writer.releaseLock();
    }
  }

  async #read(child: Deno.ChildProcess): Promise<void> {
    let partial = "";
    let subscribed = false;
    try {
      for await (const chunk of child.stdout) {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
        partial = lines.pop() ?? "";
        // Once stopped, its own leaving (%exit) is news to nobody.
        if (this.#child !== child) continue;
        for (const line of lines) {
          if (!line.startsWith("%")) continue;
          if (line.startsWith("%session-changed ") && !subscribed) {
            subscribed = true;
            void this.#subscribe(child);
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
    // Its session ended under it: listen on another one if any is left.
    if (this.#wanted) void this.start();
  }
}
