/**
 * A persistent control-mode client (`tmux -C attach-session`) that carries
 * each round trip as one command line, so steady-state calls start no
 * process; while none is attached, round trips go through a
 * {@link ProcessTransport} instead. Each round trip is framed by markers and
 * a terminator, and any misalignment replaces the client: the framing and
 * why are in docs/decisions/002-control-mode-framing.md.
 *
 * @module
 */

import { rereadable, spawnControlClient } from "./control_client.ts";
import { isNoServer, TmuxError } from "./errors.ts";
import { ProcessTransport } from "./process_transport.ts";
import type { RunOptions, Transport } from "./transport.ts";
import { closedError, ControlClient, lostErrors } from "./control_connection.ts";

export { commandLine, quoteArgument } from "./control_quote.ts";

/** Bound of one attach attempt (list-sessions, start, `%session-changed`). */
const ATTACH_TIMEOUT_MS = 5_000;
/** Backoff between failed attach attempts (made at start, then only by run()). */
const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;
/**
 * How long a read waits for an attach in flight before it goes as a process
 * instead. An attach takes a few milliseconds, less than starting a process
 * for the read, and the server attaches as it starts, so a client's first
 * calls meet one in flight.
 */
const ATTACH_WAIT_MS = 100;
/** A client that dies sooner than this after attaching counts as a failure. */
const SHORT_LIFE_MS = 1_000;
/**
 * How often, while the control client serves, the socket is asked (one
 * process) which server it leads to: a socket file removed (a /tmp cleaner,
 * a person) leaves the client talking to a server nobody else can reach, and
 * a server started on the path since is the one every process reaches.
 */
const VERIFY_MS = 10_000;
/**
 * The check runs only at a call that follows this long without one: a burst
 * of calls starts no process (zero per call in steady state, and none
 * competing with the calls for the machine's cores), and an agent's calls,
 * spaced by its thinking, still check about every {@link VERIFY_MS}.
 */
const VERIFY_IDLE_MS = 2_000;
/** Delay from tmux's answer to a round trip due for the socket check to the check. */
const CHECK_DELAY_MS = 10;

/**
 * Commands that must not run on the hidden control client: they wait in the
 * client's queue (`wait-for` would return at once, `run-shell`/`if-shell`
 * block every later command), show their output on an attached client
 * (`run-shell` opens a view mode in a pane a person sees), or act on "the
 * current client", which would be ours. A one-shot process gives them the
 * behaviour of tmux scripted from a shell, which is what callers expect.
 * Interactive commands (prompts, menus, choosers) would wait forever for
 * input on our client; from a process they fail at once ("no current client").
 */
const PROCESS_ONLY = new Set([
  "run-shell",
  "run",
  "wait-for",
  "wait",
  "if-shell",
  "if",
  "attach-session",
  "attach",
  "detach-client",
  "detach",
  "switch-client",
  "switchc",
  "refresh-client",
  "refresh",
  "suspend-client",
  "suspendc",
  "confirm-before",
  "confirm",
  "command-prompt",
  "display-menu",
  "menu",
  "display-popup",
  "popup",
  "display-panes",
  "displayp",
  "choose-buffer",
  "choose-client",
  "choose-tree",
]);

/** True when a round trip has to run as its own tmux process. */
function needsOwnProcess(commands: string[][]): boolean {
  // Indexed, not destructured: a rest pattern would copy every command's arguments.
  return commands.some((command) => {
    const name = command[0];
    if (!PROCESS_ONLY.has(name)) return false;
    // `if-shell -F` only evaluates a format: no shell, no waiting.
    if (name === "if-shell" || name === "if") {
      return !command.slice(1).some((a) => /^-[A-Za-z]*F/.test(a));
    }
    return true;
  });
}

/** Round trips served by each path, for benchmarks and tests. */
export interface ControlStats {
  /** Round trips carried by the control client. */
  readonly control: number;
  /** Round trips carried by one-shot processes. */
  readonly fallback: number;
  /** Successful attaches of a control client. */
  readonly attaches: number;
}

/** Options of a {@link ControlTransport}. */
export interface ControlOptions {
  /** Interval of the check that the socket still leads to the client's server (ms). */
  verifyMs?: number;
  /** Quiet time before a call after which that call may start the check (ms). */
  verifyIdleMs?: number;
  /** Longest wait of a read for an attach in flight before it goes as a process (ms). */
  attachWaitMs?: number;
}

/**
 * A transport that keeps one control-mode client attached to an existing
 * session and falls back to one process per round trip while it cannot.
 */
export class ControlTransport implements Transport {
  readonly name = "control";
  readonly #fallback: ProcessTransport;
  readonly #marker = `tmux-mcp-${crypto.randomUUID()}`;
  readonly #listeners = new Set<(line: string) => void>();
  readonly #stats = { control: 0, fallback: 0, attaches: 0 };
  #client: ControlClient | undefined;
  /** Every client not yet reaped, including ended ones, so close() can await them. */
  readonly #clients = new Set<ControlClient>();
  #connecting: Promise<boolean> | undefined;
  #closing: Promise<void> | undefined;
  #nextAttemptAt = 0;
  #backoffMs = MIN_BACKOFF_MS;
  readonly #verifyMs: number;
  readonly #verifyIdleMs: number;
  readonly #attachWaitMs: number;
  #verifyAt = 0;
  #verifying = false;
  /** When the control client was last given a round trip. */
  #lastSentAt = 0;

  /** `binary` is the tmux executable; `globalArgs` select the socket (and config). */
  constructor(
    readonly binary: string,
    readonly globalArgs: string[],
    readonly socketLabel: string,
    options: ControlOptions = {},
  ) {
    this.#fallback = new ProcessTransport(binary, globalArgs, socketLabel);
    this.#verifyMs = options.verifyMs ?? VERIFY_MS;
    this.#verifyIdleMs = options.verifyIdleMs ?? VERIFY_IDLE_MS;
    this.#attachWaitMs = options.attachWaitMs ?? ATTACH_WAIT_MS;
  }

  /** A snapshot of how many round trips each path served. */
  get stats(): ControlStats {
    return { ...this.#stats };
  }

  /** The session the control client is attached to, if one is attached. */
  get attachedSession(): string | undefined {
    return this.#client?.live ? this.#client.sessionId : undefined;
  }

  /** The process id of the control client, if one is attached. */
  get clientPid(): number | undefined {
    return this.#client?.live ? this.#client.pid : undefined;
  }

  /**
   * Subscribes to the control client's notification lines (`%window-add @3`,
   * `%sessions-changed`, `%exit`, …); they only flow while attached.
   * Returns the function that unsubscribes.
   */
  onNotification(listener: (line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs the commands over the control client, or one process while there is
   * none. Reads wait a little for an attach in flight; the others would hold
   * it up (it waits for them: control_client.ts).
   */
  run(commands: string[][], options: RunOptions = {}): Promise<string[]> {
    const attaching = this.#connecting;
    if (attaching === undefined || this.#closing || !rereadable(commands)) {
      return this.#route(commands, options);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, this.#attachWaitMs)));
    return Promise.race([attaching.catch(() => false), waited]).then(() => {
      clearTimeout(timer);
      return this.#route(commands, options);
    });
  }

  /** The round trip over the control client when one serves it, else as a process. */
  #route(commands: string[][], options: RunOptions): Promise<string[]> {
    if (this.#closing) return Promise.reject(closedError());
    if (commands.length === 0) return Promise.resolve([]);
    const client = this.#client;
    if (client?.usable && !needsOwnProcess(commands)) {
      this.#stats.control++;
      const check = this.#checkDue();
      const sent = client.send(commands, options);
      if (check) {
        // After tmux's answer: the check's process would hold up this call.
        const later = () => void setTimeout(() => this.#verify(client), CHECK_DELAY_MS);
        sent.then(later, later);
      }
      // Reads change nothing, so one the connection dropped (its session
      // was killed, the server exited) is asked again of a process, which
      // also gives the answers of a server without sessions or without tmux.
      if (!rereadable(commands)) return sent;
      return sent.catch((error: unknown) => {
        if (!(error instanceof TmuxError && lostErrors.has(error))) throw error;
        this.#stats.fallback++;
        return this.#fallback.run(commands, options);
      });
    }
    // A stuck client is killed; its end clears the way for a fresh attach.
    if (client?.wedged) client.kill();
    if (!client && !this.#connecting && Date.now() >= this.#nextAttemptAt) void this.connect();
    this.#stats.fallback++;
    return this.#fallback.run(commands, options);
  }

  /**
   * Attaches now unless attached (joining an attempt already in flight);
   * resolves with whether a control client is attached afterwards.
   */
  connect(): Promise<boolean> {
    if (this.#closing) return Promise.resolve(false);
    if (this.#client?.live) return Promise.resolve(true);
    this.#connecting ??= this.#attach().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /** Ends the control client and waits for it to exit; idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#connecting;
      this.#client = undefined;
      await Promise.all([...this.#clients].map((client) => client.close()));
    })();
    return this.#closing;
  }

  /**
   * Whether the round trip being sent is due to check the socket: at most
   * every {@link VERIFY_MS}, and only after {@link VERIFY_IDLE_MS} without
   * round trips (one is then counted as checking).
   */
  #checkDue(): boolean {
    const now = Date.now();
    const quietFor = now - this.#lastSentAt;
    this.#lastSentAt = now;
    if (this.#verifying || now < this.#verifyAt || quietFor < this.#verifyIdleMs) return false;
    this.#verifying = true;
    return true;
  }

  /**
   * Asks the socket whether it still leads to `client`'s server; if not (no
   * server, or another one), ends the client: reads in flight are asked
   * again of a process, and the next run attaches to whatever server the
   * socket leads to now.
   */
  #verify(client: ControlClient): void {
    if (this.#closing) return;
    void this.#fallback.run([["display-message", "-p", "#{pid}"]], {
      timeoutMs: ATTACH_TIMEOUT_MS,
    }).then(
      ([pid]) => pid !== client.serverPid,
      // A slow or failing tmux proves nothing about the socket; only its absence does.
      isNoServer,
    ).then((stale) => {
      this.#verifying = false;
      this.#verifyAt = Date.now() + this.#verifyMs;
      if (stale && this.#client === client) client.kill();
    });
  }

  async #attach(): Promise<boolean> {
    let client: ControlClient | undefined;
    try {
      // A client that is ending (its session or server went away) is waited
      // for: its end clears the slot for the new one.
      await this.#client?.done;
      const [rows] = await this.#fallback.run([["list-sessions", "-F", "#{pid} #{session_id}"]], {
        timeoutMs: ATTACH_TIMEOUT_MS,
      });
      const [serverPid, session] = rows.split("\n").find((row) => row !== "")?.split(" ") ?? [];
      if (session === undefined || this.#closing) return this.#failed();
      client = await this.#start(session);
      if (!client) return this.#failed();
      client.serverPid = serverPid;
      const timer = setTimeout(() => client?.kill(), ATTACH_TIMEOUT_MS);
      const attached = await client.ready;
      clearTimeout(timer);
      if (!attached || this.#closing) {
        await client.close();
        return this.#failed();
      }
      this.#client = client;
      this.#verifyAt = Date.now() + this.#verifyMs;
      this.#stats.attaches++;
      this.#backoffMs = MIN_BACKOFF_MS;
      this.#nextAttemptAt = 0;
      return true;
    } catch {
      // No server, tmux missing or refused: the fallback reports those to callers.
      await client?.close();
      return this.#failed();
    }
  }

  #failed(): false {
    this.#nextAttemptAt = Date.now() + this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    return false;
  }

  /** Spawns a client for `session`; undefined when the transport closed meanwhile. */
  async #start(session: string): Promise<ControlClient | undefined> {
    // no-output: no %output flood from panes; commands go through this client.
    const child = await spawnControlClient(this.binary, this.globalArgs, session, {
      flags: ["ignore-size", "no-output"],
      stillWanted: () => !this.#closing,
    });
    if (!child) return undefined;
    const client = new ControlClient(child, this.#marker, this.socketLabel, (line) => {
      for (const listener of this.#listeners) {
        try {
          listener(line);
        } catch {
          // A faulty listener must not break the framing of replies.
        }
      }
    }, (ended) => {
      if (this.#client !== ended) return;
      this.#client = undefined;
      // Reattach lazily on the next run(); a client that died at once backs off.
      if (Date.now() - ended.startedAt < SHORT_LIFE_MS) this.#failed();
      else this.#nextAttemptAt = 0;
    });
    this.#clients.add(client);
    void client.done.then(() => this.#clients.delete(client));
    return client;
  }
}
