/**
 * The frame `run_shell_command` runs around a command, and the reading of
 * its output back from the pane.
 *
 * The typed line is short: the command as one quoted word (when it is one
 * printable ASCII line) and a call that makes the shell fetch the frame's
 * body from a pane option through its own server (`$TMUX`). The body runs
 * the command in a subshell (`cd`, `export`, `set -e`, `exit` stay inside),
 * then, once tmux has read all it printed and the server's waiter is
 * registered, has tmux store the exit status and the cursor in a pane option
 * and signal a per-run `wait-for` channel; the waiter copies the rows in the
 * same pass of tmux's command queue, before the shell prints anything else
 * (domain/run_result.ts). Nothing is printed into the pane but the command's
 * own output: where it begins is the row after the echo of the typed line
 * (which holds the run's unique option name), where it ends is the cursor at
 * the end. Escape sequences the terminal keeps as `#{pane_path}` (OSC 7) say
 * that the frame began and that tmux has read up to its end.
 *
 * A run changes no paste buffer: tmux 3.4+ announces buffer changes to every
 * control client, which can crash it while one attaches
 * (docs/decisions/009-frame-without-buffers.md).
 *
 * @module
 */

/** How a shell's command line is written. */
export type ShellKind = "posix" | "fish";

/** Shells whose command line the frame is written for, and how. */
const SHELLS: Record<string, ShellKind> = {
  sh: "posix",
  bash: "posix",
  zsh: "posix",
  dash: "posix",
  ash: "posix",
  ksh: "posix",
  ksh93: "posix",
  mksh: "posix",
  lksh: "posix",
  pdksh: "posix",
  oksh: "posix",
  yash: "posix",
  posh: "posix",
  busybox: "posix",
  fish: "fish",
};

/** The program name of `pane_current_command` without a path or login-shell dash. */
export function programName(currentCommand: string): string {
  return currentCommand.replace(/^-/, "").replace(/^.*\//, "");
}

/** The kind of shell `currentCommand` is; null when it is no shell the frame knows. */
export function shellKind(currentCommand: string | null): ShellKind | null {
  if (currentCommand === null) return null;
  return Object.hasOwn(SHELLS, programName(currentCommand))
    ? SHELLS[programName(currentCommand)]
    : null;
}

/** Quotes `value` as one word for any POSIX shell. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Quotes `value` as one word for fish (in its single quotes, `\` and `'` are escaped). */
export function fishQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value)
    ? value
    : `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
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
}

/** The value of {@link RUNNING_OPTION}: `ID.PID`. */
export function runningMark(mark: RunningMark): string {
  return `${mark.id}.${mark.owner}`;
}

/** Parses a {@link RUNNING_OPTION} value; null when it is not one. */
export function parseRunningMark(value: string): RunningMark | null {
  const match = /^([0-9a-z]+)\.(\d*)$/.exec(value.trim().replace(/^"(.*)"$/, "$1"));
  return match ? { id: match[1], owner: match[2] } : null;
}

/** Prefix of the pane options holding a run's exit status and end cursor. */
export const STATUS_OPTION_PREFIX = "@tmux_mcp_status_";
/**
 * Prefix of the pane options saying that a run's result is wanted. Set,
 * the frame stores its status and ends only once the waiter is registered
 * ({@link WATCH_OPTION_PREFIX}); unset, it stores nothing.
 */
export const AWAIT_OPTION_PREFIX = "@tmux_mcp_await_";
/** Prefix of the pane options the run's waiter sets once it waits on the channel. */
export const WATCH_OPTION_PREFIX = "@tmux_mcp_watch_";
/** Prefix of the pane options holding a frame's body (the rest is the run id). */
export const BODY_OPTION_PREFIX = "@tmux_mcp_body_";
/** Prefixes of every pane option a run sets. */
export const RUN_OPTION_PREFIXES = [
  STATUS_OPTION_PREFIX,
  AWAIT_OPTION_PREFIX,
  WATCH_OPTION_PREFIX,
  BODY_OPTION_PREFIX,
];
/** The value of a run's status option when the line reached something other than the pane's shell. */
export const REFUSED_STATUS = "refused";

/** Longest command typed in the line; longer ones (and multi-line ones) ride in the body. */
export const INLINE_LIMIT = 2048;
/** Rows of history the waiter copies with the output (more are read when the echo is not among them). */
export const TAIL_ROWS = 200;

/** The `#{pane_path}` a frame sets when it begins. */
export function startedPath(id: string): string {
  return `tmux-mcp-run:${id}`;
}

/** The `#{pane_path}` a frame sets once its command has ended. */
export function endedPath(id: string): string {
  return `tmux-mcp-end:${id}`;
}

/** The names one run uses in tmux, all made from its id. */
export interface RunNames {
  /** Random id of the run (lowercase letters and digits). */
  id: string;
  /** The `wait-for` channel the shell signals. */
  channel: string;
  /** Pane option holding the body the typed line fetches. */
  bodyOption: string;
  /** Pane option where the frame stores the exit status (and the end cursor). */
  statusOption: string;
  /** Pane option set while the run's result is wanted: only then does the frame store it. */
  awaitOption: string;
  /** Pane option the waiter sets once it is registered on the channel. */
  watchOption: string;
}

/** The names of run `id`. */
export function runNames(id: string): RunNames {
  return {
    id,
    channel: `tmux-mcp-run-${id}`,
    bodyOption: `${BODY_OPTION_PREFIX}${id}`,
    statusOption: `${STATUS_OPTION_PREFIX}${id}`,
    awaitOption: `${AWAIT_OPTION_PREFIX}${id}`,
    watchOption: `${WATCH_OPTION_PREFIX}${id}`,
  };
}

/** Everything one run needs to type its line and find its result. */
export interface Frame extends RunNames {
  /** The body (shell code) stored in {@link RunNames.bodyOption}: printable ASCII. */
  body: string;
  /** The line typed into the pane (without Enter). */
  line: string;
  /** Text only the echo of the typed line holds: the output begins on the row after it. */
  echoMark: string;
  /** What the typed line holds after {@link Frame.echoMark}. */
  echoTail: string;
}

/** What the frame needs to know about where it runs. */
export interface FrameTarget {
  /** The pane id (`%N`). */
  paneId: string;
  /** The tmux executable the body runs. */
  tmuxBinary: string;
  /** The socket path of the driven server. */
  socketPath: string;
  /** Start the line with a space so shells set to ignore such lines keep it out of history. */
  suppressHistory: boolean;
  /** The pid of the pane's shell: the body runs only in it. */
  owner: string;
  /** The shell's kind. */
  kind: ShellKind;
}

/** A new random run id: 6 characters, short enough for the typed line. */
export function newRunId(): string {
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => digits[b % 36]).join("");
}

/** True when `command` can be typed as one quoted word. */
export function typedInline(command: string): boolean {
  return command.length <= INLINE_LIMIT && /^[\x20-\x7e]*$/.test(command);
}

/** A tmux command list as shell words (`\;` between commands). */
function tmuxWords(tmux: string, commands: string[][]): string {
  return `${tmux} ${commands.map((c) => c.map(shellQuote).join(" ")).join(" \\; ")}`;
}

/** tmux quoting of one argument inside an `if-shell` command string. */
function tmuxArg(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The POSIX shell code that runs `runner` (a command that runs the command
 * held in `$__tmux_mcp_c`) and reports its end. `$__tmux_mcp_c` is set before.
 */
function posixFrame(target: FrameTarget, ids: RunNames, runner: string): string {
  const tmux = `${shellQuote(target.tmuxBinary)} -S ${shellQuote(target.socketPath)}`;
  const pane = target.paneId;
  const setPath = (path: string) => `printf '\\030\\033]7;%s\\007' '${path}'`;
  const finish = finishing(ids, pane);
  const status = (value: string) => [
    "if-shell",
    "-F",
    "-t",
    pane,
    `#{${ids.awaitOption}}`,
    `set-option -p -t ${pane} ${ids.statusOption} ${value}`,
  ];
  const report = reportCommand(tmux, ids, pane);
  // __S__ sits inside a single-quoted word: the shell's value is spliced in.
  const reportStatus = tmuxWords(tmux, [status("__S__"), ...finish]);
  const frame = [
    // `trap : INT` keeps the frame alive when C-c ends the command.
    "(trap : INT",
    `${setPath(startedPath(ids.id))}`,
    runner,
    "__tmux_mcp_s=$?",
    // CAN ends an escape sequence the command left open; ESC [ J clears the
    // rows below the cursor, which are not output.
    `printf '\\030\\033[J\\033]7;%s\\007' '${endedPath(ids.id)}'`,
    "__tmux_mcp_n=0",
    `until ${report} 2>/dev/null; do __tmux_mcp_n=$((__tmux_mcp_n+1)); ` +
    `if [ "$__tmux_mcp_n" -ge 300 ]; then ${
      reportStatus.replace("__S__", `'"$__tmux_mcp_s"'`)
    }; break; fi; ` +
    "sleep 0.01 2>/dev/null || sleep 1; done",
    `${setPath("")})`,
  ].join("; ");
  // A frame killed (kill -9) before it reported: the code around it reports
  // the status it died with (`case` keeps $?).
  const rescue = `case $? in 0) ;; *) ${reportStatus.replace("__S__", `'"$?"'`)} ;; esac`;
  return `${frame}; ${rescue}`;
}

/**
 * The tmux client the frame runs once its command ended: it stores status
 * and cursor for a result that is wanted, then ends the run ({@link
 * finishing}). It fails until tmux has read the frame's end escape and, when
 * the result is wanted, until the server's waiter is registered: its copy of
 * the rows runs right after the signal, before tmux reads the shell's next
 * output. `"$__tmux_mcp_s"` (the status) is spliced into its command string.
 */
function reportCommand(tmux: string, ids: RunNames, pane: string): string {
  const stored = [
    `set-option -p -t ${pane} ${ids.statusOption} __S__`,
    `set-option -paF -t ${pane} ${ids.statusOption} ${
      tmuxArg(" #{cursor_x} #{cursor_y} #{pane_height}")
    }`,
  ].join(" ; ");
  const synced = [
    `if-shell -F -t ${pane} ${tmuxArg(`#{${ids.awaitOption}}`)} ${tmuxArg(stored)}`,
    ...finishing(ids, pane).map((c) => c.map(tmuxArg).join(" ")),
  ].join(" ; ");
  const ready = `#{&&:#{==:#{pane_path},${endedPath(ids.id)}},` +
    `#{||:#{==:#{${ids.awaitOption}},},#{${ids.watchOption}}}}`;
  // The status (digits) goes into the command string from the shell.
  const [before, after] = synced.split("__S__");
  return `${tmux} if-shell -F -t ${pane} ${shellQuote(ready)} ${shellQuote(before)}"$__tmux_mcp_s"${
    shellQuote(after)
  } ${shellQuote("show-options -v @tmux-mcp-unsynced")}`;
}

/**
 * The tmux commands that end a run: drop the busy mark while it is still
 * this run's, drop the body's option, signal the channel.
 */
function finishing(ids: RunNames, pane: string): string[][] {
  const unmark = [
    "if-shell",
    "-F",
    "-t",
    pane,
    `#{m:${ids.id}.*,#{${RUNNING_OPTION}}}`,
    `set-option -pu -t ${pane} ${RUNNING_OPTION}`,
  ];
  return [
    unmark,
    ["set-option", "-pu", "-t", pane, ids.bodyOption],
    ["wait-for", "-S", ids.channel],
  ];
}

/** `command` as a POSIX sh assignment to `$__tmux_mcp_c` in printable ASCII on one line. */
function octalAssignment(command: string): string {
  let format = "";
  for (const byte of new TextEncoder().encode(`${command}x`)) {
    const safe = byte >= 0x20 && byte <= 0x7e && byte !== 0x27 && byte !== 0x5c && byte !== 0x25;
    format += safe ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, "0")}`;
  }
  // The x keeps the newlines a command substitution would strip.
  return `__tmux_mcp_c=$(printf '${format}'); __tmux_mcp_c=\${__tmux_mcp_c%x}`;
}

/** The refusal a body reports when the shell that runs it is not the pane's own. */
function refusal(target: FrameTarget, ids: RunNames, quote: (s: string) => string): string {
  const tmux = `${quote(target.tmuxBinary)} -S ${quote(target.socketPath)}`;
  return `${tmux} ${
    [
      ["set-option", "-p", "-t", target.paneId, ids.statusOption, REFUSED_STATUS],
      ["set-option", "-pu", "-t", target.paneId, ids.bodyOption],
      ["wait-for", "-S", ids.channel],
    ].map((c) => c.map(quote).join(" ")).join(" \\; ")
  }`;
}

/** Builds the frame of one run of `command`. */
export function buildFrame(target: FrameTarget, command: string, id = newRunId()): Frame {
  const ids = runNames(id);
  const inline = typedInline(command);
  // With no target, tmux would take the active pane of the session's
  // current window, which need not be this one.
  const fetch = `tmux show -pvt${target.paneId} ${ids.bodyOption}`;
  const space = target.suppressHistory ? " " : "";
  let body: string;
  let line: string;
  if (target.kind === "posix") {
    // The body must stay printable ASCII: tmux 3.4+ prints an option's
    // control characters as escapes (docs/tmux-quirks.md#format-output).
    const take = inline ? "__tmux_mcp_c=$__m; unset __m" : octalAssignment(command);
    // $$ is the pane's shell in any subshell of it, and no other process.
    body = `trap : INT; ${take}; if [ "$$" != ${target.owner || "0"} ]; then ${
      refusal(target, ids, shellQuote)
    }; else ${posixFrame(target, ids, '(eval "$__tmux_mcp_c")')}; fi`;
    line = inline
      ? `${space}(__m=${shellQuote(command)};eval "$(${fetch})")`
      : `${space}(eval "$(${fetch})")`;
  } else {
    // fish has no subshell: a POSIX sh runs the frame, and a fish child the
    // command. The body is one line: fish splits a command substitution's
    // output into lines.
    const frame = posixFrame(target, ids, '"$1" -c "$__tmux_mcp_c"');
    const take = inline ? "__tmux_mcp_c=$2" : octalAssignment(command);
    const fishTmux = `${fishQuote(target.tmuxBinary)} -S ${fishQuote(target.socketPath)}`;
    const rescue = `${fishTmux} ${
      [
        ["set-option", "-p", "-t", target.paneId, ids.statusOption],
        ...finishing(ids, target.paneId),
      ].map((c) => c.map(fishQuote).join(" ")).join(" \\; ")
    }`.replace(`${ids.statusOption} \\;`, `${ids.statusOption} $status \\;`);
    body = [
      "set -l __tmux_mcp_c $__m",
      "set -e __m",
      `if test "$fish_pid" != ${target.owner || "0"}`,
      refusal(target, ids, fishQuote),
      "else",
      `/bin/sh -c ${
        fishQuote(`trap : INT; ${take}; ${frame}`)
      } sh $__fish_bin_dir/fish $__tmux_mcp_c`,
      `or ${rescue}`,
      "end",
    ].join("; ");
    line = inline
      ? `${space}set __m ${fishQuote(command)};eval (${fetch})`
      : `${space}eval (${fetch})`;
  }
  return {
    ...ids,
    body,
    line,
    echoMark: fetch,
    echoTail: line.slice(line.lastIndexOf(fetch) + fetch.length),
  };
}

/** What the frame stored in its status option. */
export interface FrameStatus {
  /** The exit status; null when the value is not one. */
  exitStatus: number | null;
  /** The line reached a program other than the pane's shell, which ran nothing. */
  refused: boolean;
  /** The cursor and pane height when tmux copied the rows; null when it did not. */
  end: { x: number; y: number; height: number } | null;
}

/** Parses the value of a frame's status option. */
export function parseFrameStatus(value: string): FrameStatus {
  const trimmed = value.trim().replace(/^"(.*)"$/, "$1");
  if (trimmed === REFUSED_STATUS) return { exitStatus: null, refused: true, end: null };
  const [status, x, y, height] = trimmed.split(" ");
  const exitStatus = /^\d{1,3}$/.test(status ?? "") ? Number(status) : null;
  const end = [x, y, height].every((n) => /^\d+$/.test(n ?? ""))
    ? { x: Number(x), y: Number(y), height: Number(height) }
    : null;
  return { exitStatus, refused: false, end };
}

/** A run's output found in the rows the frame copied. */
export interface FramedOutput {
  /** Output lines, oldest first. */
  lines: string[];
  /** The echo of the typed line was found (else the output began above the rows read). */
  startFound: boolean;
}

/**
 * The output in `rows` (`capture-pane -J` up to the bottom of the screen),
 * given the cursor at its end: the rows below the cursor are not output, nor
 * the cursor's row when the cursor is at its start (the output ended with a
 * newline); the output begins after the last line holding the echo mark.
 * An echo that filled its last row exactly is joined with the output's first
 * line: what follows `echoTail` (the rest of the typed line) is output then.
 */
export function parseFramedOutput(
  rows: readonly string[],
  end: { x: number; y: number; height: number },
  echoMark: string,
  echoTail?: string,
): FramedOutput {
  let lines = rows.slice(0, Math.max(0, rows.length - (end.height - 1 - end.y)));
  if (end.x === 0 && lines.length > 0 && lines.at(-1)!.trim() === "") lines = lines.slice(0, -1);
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].includes(echoMark)) {
      start = i;
      break;
    }
  }
  const output = lines.slice(start + 1);
  if (start >= 0 && echoTail !== undefined) {
    const echo = lines[start];
    const rest = echo.slice(echo.lastIndexOf(echoMark) + echoMark.length);
    if (rest.startsWith(echoTail) && rest.length > echoTail.length) {
      output.unshift(rest.slice(echoTail.length));
    }
  }
  return { lines: output, startFound: start >= 0 };
}

/**
 * The output in the whole history `whole` when the rows the frame copied
 * (`tail`, all output) hold no echo: from the last echo mark before a place
 * where `tail` appears whole. Null when it cannot be placed.
 */
export function widenOutput(
  whole: readonly string[],
  tail: readonly string[],
  echoMark: string,
): string[] | null {
  let echo = -1;
  for (let i = whole.length - 1; i >= 0; i--) {
    if (whole[i].includes(echoMark)) {
      echo = i;
      break;
    }
  }
  if (echo < 0 || tail.length === 0) return null;
  for (let k = echo + 1; k + tail.length <= whole.length; k++) {
    if (tail.every((line, j) => whole[k + j] === line)) {
      return whole.slice(echo + 1, k + tail.length);
    }
  }
  return null;
}
