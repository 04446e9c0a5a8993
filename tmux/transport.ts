/**
 * The contract between the tmux entry point and the ways of reaching tmux:
 * one process per call, or a persistent control-mode client.
 *
 * @module
 */

/**
 * Bound of a round trip that reads a pane's history (`capture-pane -S -`):
 * tmux 3.3a builds such a capture whole before it sends a byte, about 5 s
 * per million lines here (plus 2 s to send them), and history-limit may be
 * 2,000,000 lines. The default bound (10 s) made such reads fail as "tmux did
 * not answer" however few lines the caller wanted.
 */
export const HISTORY_READ_TIMEOUT_MS = 60_000;

/** Options of one round trip. */
export interface RunOptions {
  /** Give up (and reap anything started) after this many milliseconds. */
  timeoutMs?: number;
  /** Abort the round trip when this signal fires. */
  signal?: AbortSignal;
}

/**
 * Runs a list of tmux commands in one round trip, in order, with nothing else
 * interleaved, and resolves with each command's standard output (without its
 * final newline). A command that fails rejects the whole call with a
 * {@link import("./errors.ts").TmuxError}; commands after it do not run.
 */
export interface Transport {
  /** A short name for logs and benchmarks: "process" or "control". */
  readonly name: string;
  /** Runs `commands` (each an argument vector without the tmux binary). */
  run(commands: string[][], options?: RunOptions): Promise<string[]>;
  /** Releases every process and resource the transport holds. */
  close(): Promise<void>;
}
