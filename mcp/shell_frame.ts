/**
 * The frame `run_shell_command` types around a command, and the reading of
 * its output back from the pane.
 *
 * The command is never typed as the user wrote it: the typed line is always
 * one line of printable ASCII (no newline that would act as Enter, no tab
 * that would complete, no byte a shell's line editor could take for a key).
 * A short command rides in the line as one shell word (single-quoted, or
 * `printf` octal escapes for anything else); a long one is stored in a pane
 * user option and fetched by the shell. Either way here-documents, quotes,
 * comments and many lines reach `eval` intact. It runs in a subshell (`cd`, `export`, `set -e`, `exit` stay inside), prints
 * start and end markers that the shell assembles from two pieces (the echo of
 * the typed line never contains a whole marker), then stores the exit status
 * in a pane option and signals a per-call `wait-for` channel through tmux.
 * When the frame itself is killed (kill -9), the pane's shell does those last
 * steps in its place, so the pane is not left marked busy.
 *
 * @module
 */

/** Shells whose command line the frame is written for (POSIX sh syntax). */
const POSIX_SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ash",
  "ksh",
  "ksh93",
  "mksh",
  "lksh",
  "pdksh",
  "oksh",
  "yash",
  "posh",
  "busybox",
]);

/** The program name of `pane_current_command` without a path or login-shell dash. */
export function programName(currentCommand: string): string {
  return currentCommand.replace(/^-/, "").replace(/^.*\//, "");
}

/** True when `currentCommand` is a POSIX shell the frame can be typed into. */
export function isPosixShell(currentCommand: string | null): boolean {
  return currentCommand !== null && POSIX_SHELLS.has(programName(currentCommand));
}

/** Quotes `value` as one word for any POSIX shell. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Pane option naming the run whose line was typed into the pane and has not
 * ended: see {@link runningMark}.
 */
export const RUNNING_OPTION = "@tmux_mcp_running";

/** What {@link RUNNING_OPTION} says about a run. */
export interface RunningMark {
  /** The run's id. */
  id: string;
  /** The pid of the pane's shell the line was typed into (empty when tmux did not say). */
  owner: string;
  /** The shell began the run's frame (else its line may never have reached a command prompt). */
  started: boolean;
}

/**
 * The value of {@link RUNNING_OPTION}: `ID.PID` when the line is typed, then
 * `ID.PID.started` once the shell runs the frame. Only a started frame can
 * be running a command; a typed line the shell never ran (it waited for a
 * closing quote, its line editor was in vi command mode) never ends.
 */
export function runningMark(mark: RunningMark): string {
  return `${mark.id}.${mark.owner}${mark.started ? ".started" : ""}`;
}

/** Parses a {@link RUNNING_OPTION} value; null when it is not one. */
export function parseRunningMark(value: string): RunningMark | null {
  const match = /^([0-9a-f]+)\.(\d*)(\.started)?$/.exec(value.trim().replace(/^"(.*)"$/, "$1"));
  return match ? { id: match[1], owner: match[2], started: match[3] !== undefined } : null;
}

/**
 * Pane option holding the pane's `#{pane_path}` as it was when a run's line
 * was typed: a frame that begins changes the path (see {@link startedPath}),
 * and so may the command it runs, but a line the shell never ran does not.
 */
export const TYPED_PATH_OPTION = "@tmux_mcp_typed_path";

/**
 * The `#{pane_path}` an inline command's frame sets when it begins (with the
 * OSC 7 escape sequence) and clears when it ends.
 */
export function startedPath(id: string): string {
  return `tmux-mcp-run:${id}`;
}

/** Prefix of the pane options holding a run's command. */
export const COMMAND_OPTION_PREFIX = "@tmux_mcp_cmd_";
/** Prefix of the pane options holding a run's exit status. */
export const STATUS_OPTION_PREFIX = "@tmux_mcp_status_";

/** Longest command word typed inline; longer commands go through a pane option. */
export const INLINE_LIMIT = 2048;

/**
 * `command` as one shell word for `eval`, in printable ASCII: single quotes
 * when it is printable ASCII already, else a `printf` format with every other
 * byte (and `\`, `%`, `'`) as a three-digit octal escape.
 */
export function inlineWord(command: string): string {
  if (/^[\x20-\x7e]*$/.test(command)) return `'${command.replaceAll("'", `'\\''`)}'`;
  let format = "";
  for (const byte of new TextEncoder().encode(command)) {
    const safe = byte >= 0x20 && byte <= 0x7e && byte !== 0x27 && byte !== 0x5c && byte !== 0x25;
    format += safe ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `"$(printf '${format}')"`;
}

/** Everything one run needs to type its line and find its result. */
export interface Frame {
  /** Random id of the run (hex). */
  id: string;
  /** The `wait-for` channel the shell signals. */
  channel: string;
  /** Pane option that carries a long command to the shell; null when it is typed inline. */
  commandOption: string | null;
  /** Pane option where the shell stores the exit status. */
  statusOption: string;
  /** The line printed before the command's output. */
  startMarker: string;
  /** The text printed right after the command's output. */
  endMarker: string;
  /** The line typed into the pane (without Enter). */
  line: string;
}

/** What the frame needs to know about where it runs. */
export interface FrameTarget {
  /** The pane id (`%N`). */
  paneId: string;
  /** The tmux executable the shell should run. */
  tmuxBinary: string;
  /** The socket path of the driven server. */
  socketPath: string;
  /** Start the line with a space so shells set to ignore such lines keep it out of history. */
  suppressHistory: boolean;
  /** The pid of the pane's shell, as its {@link RUNNING_OPTION} mark records it. */
  owner: string;
}

/** A new random run id. */
export function newRunId(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(8)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Builds the frame of one run of `command`. */
export function buildFrame(target: FrameTarget, command: string, id = newRunId()): Frame {
  const tmux = `${shellQuote(target.tmuxBinary)} -S ${shellQuote(target.socketPath)}`;
  const pane = shellQuote(target.paneId);
  const channel = `tmux-mcp-run-${id}`;
  const word = inlineWord(command);
  const commandOption = word.length <= INLINE_LIMIT ? null : `${COMMAND_OPTION_PREFIX}${id}`;
  const statusOption = `${STATUS_OPTION_PREFIX}${id}`;
  const head = `<<tmux-mcp:${id}:`;
  // Each marker is printed from two words, so only the output holds it whole.
  const print = (tail: string) => `printf '%s%s\\n' '${head}' '${tail}'`;
  // The frame says that it began: only then can the run's command be
  // running (the busy check of the next run relies on it). A long command's
  // frame says so through the tmux client that fetches the command; an
  // inline one, which has no client there (one takes ~10 ms of CPU), sets
  // the pane's path with an escape sequence tmux keeps as #{pane_path}.
  const started = `set-option -pt ${pane} ${RUNNING_OPTION} ${
    runningMark({ id, owner: target.owner, started: true })
  }`;
  const setPath = (path: string) => `printf '\\033]7;%s\\007' '${path}'`;
  // Ends the run with the status in $__tmux_mcp_s: end marker, status,
  // busy mark, channel.
  const finish = [
    print("end>>"),
    // The path goes back to empty, tmux's own value; a shell that reports
    // its directory (OSC 7 at each prompt) sets it again.
    setPath(""),
    // The busy mark goes only while it is still this run's: a later run may
    // have taken the pane after deciding this line would never begin.
    `exec ${tmux} set-option -pt ${pane} ${statusOption} "$__tmux_mcp_s" \\; ` +
    `if-shell -F -t ${pane} ${shellQuote(`#{m:${id}.*,#{${RUNNING_OPTION}}}`)} ${
      shellQuote(
        `set-option -pu -t ${target.paneId} ${RUNNING_OPTION} ; ` +
          `set-option -pu -t ${target.paneId} ${TYPED_PATH_OPTION}`,
      )
    } \\; wait-for -S ${channel}`,
  ].join("; ");
  const frame = [
    // `trap : INT` keeps this subshell alive when C-c ends the command, so
    // the status is still stored and the channel still signalled.
    `(trap : INT`,
    commandOption === null
      ? `${setPath(startedPath(id))}; ${print("start>>")}; (eval ${word})`
      : `__tmux_mcp_c=$(${tmux} show-options -pqvt ${pane} ${commandOption} \\; ` +
        `set-option -put ${pane} ${commandOption} \\; ${started}) && ${print("start>>")} && ` +
        `(eval "$__tmux_mcp_c")`,
    `__tmux_mcp_s=$?`,
    `${finish})`,
  ].join("; ");
  // A frame that finishes ends in tmux, which exits 0. One that fails was
  // killed (kill -9, OOM) before it could say so, and would leave the pane
  // marked busy for good: the pane's shell, which outlives it, finishes the
  // run in its place with the status the frame died with (128 + signal;
  // `case` keeps $?). Not `frame || ...`: the left side of `||` is a context
  // where shells ignore `set -e`, also in the command's own subshell.
  const line = `${frame}; case $? in 0) ;; *) (__tmux_mcp_s=$?; ${finish}) ;; esac`;
  return {
    id,
    channel,
    commandOption,
    statusOption,
    startMarker: `${head}start>>`,
    endMarker: `${head}end>>`,
    line: `${target.suppressHistory ? " " : ""}${line}`,
  };
}

/** The command's output found between the markers of a frame. */
export interface FramedOutput {
  /** Output lines, oldest first. */
  lines: string[];
  /** The start marker was found (else the start scrolled out of the history, or never ran). */
  startFound: boolean;
  /** The end marker was found: the output is complete. */
  endFound: boolean;
}

/**
 * Finds a run's output in captured pane lines (`capture-pane -J`): searching
 * from the end, the line that ends with the end marker, then the line above
 * it that ends with the start marker. Text before the end marker on its line
 * is the last output line (output without a final newline). Without an end marker (still
 * running), everything after the start marker, blank screen rows dropped.
 */
export function parseFramedOutput(lines: readonly string[], frame: Frame): FramedOutput {
  let end = -1;
  let lastPart = "";
  for (let i = lines.length - 1; i >= 0; i--) {
    const at = lines[i].lastIndexOf(frame.endMarker);
    if (at >= 0 && lines[i].slice(at + frame.endMarker.length).trim() === "") {
      end = i;
      lastPart = lines[i].slice(0, at);
      break;
    }
  }
  const stop = end >= 0 ? end : lines.length;
  let start = -1;
  for (let i = stop - 1; i >= 0; i--) {
    // The marker usually stands alone, but when the echoed command line ends
    // exactly at the pane's edge tmux marks that row wrapped and -J joins the
    // marker onto it. The echo never holds the whole marker (it is printed in
    // two pieces), so a line ending with it is the marker line.
    if (lines[i].trimEnd().endsWith(frame.startMarker)) {
      start = i;
      break;
    }
  }
  let body = lines.slice(start + 1, stop);
  if (end >= 0) {
    if (lastPart !== "") body.push(lastPart);
  } else {
    let last = body.length;
    while (last > 0 && body[last - 1].trim() === "") last--;
    body = body.slice(0, last);
  }
  return { lines: body, startFound: start >= 0, endFound: end >= 0 };
}

/** Parses the exit status the shell stored; null when unset or not a number. */
export function parseStatus(value: string): number | null {
  const trimmed = value.trim();
  return /^\d{1,3}$/.test(trimmed) ? Number(trimmed) : null;
}
