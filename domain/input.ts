/**
 * Input safety (docs/behaviour.md#safety-guards): input reaches a pane only when it is not this
 * server's own, is alive, is in no mode (copy mode, view mode), and its keys
 * would not be copied into this server's own pane by synchronize-panes (nor,
 * for input meant for one pane alone, into any other pane).
 * tmux itself tests that right before the input, in the same round trip.
 *
 * @module
 */

import { commandBytes, ROUND_TRIP_BYTES } from "../tmux/chunks.ts";
import { runBounded } from "../tmux/client.ts";
import { anyPaneWhere, commandList, runIf } from "../tmux/guard.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { getPaneWith, paneLineCommand, type PaneView } from "../tmux/views.ts";
import { ownPaneRefusal } from "../core/caller_guard.ts";
import { longestFitting } from "../core/budget.ts";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import type { ToolContext } from "../core/registry.ts";

/** A pane's state as the input guard reads it in tmux. */
interface InputState {
  /** False when the target does not exist. */
  found: boolean;
  dead: boolean;
  inMode: boolean;
  /** Keys sent to the pane would also be typed into this server's own pane. */
  reachesCaller: boolean;
  /** Keys sent to the pane would also be typed into another pane (tested only for input meant for one pane alone). */
  mirrored: boolean;
  /** The alternate screen is on (tested only for input meant for a shell's prompt). */
  alternate: boolean;
}

/**
 * A format, true when keys sent to the pane would also reach `caller`: tmux
 * 3.3a copies a key to every other pane of the window when both the target
 * and that pane have synchronize-panes on (a pane option there).
 */
function reaches(caller: string | null): string {
  if (!caller) return "0";
  const callerSynced = anyPaneWhere(`#{&&:#{==:#{pane_id},${caller}},#{synchronize-panes}}`);
  return `#{&&:#{synchronize-panes},${callerSynced}}`;
}

/**
 * A format for each pane of `paneId`'s window, true when tmux 3.3a would copy
 * a key (not a paste) sent to `paneId` into it, once `paneId` itself has
 * synchronize-panes on: another pane that is alive, in no mode, visible (not
 * hidden by a zoom) and has synchronize-panes on (window_pane_copy_key).
 */
function copiedInto(paneId: string): string {
  const and = (a: string, b: string) => `#{&&:${a},${b}}`;
  return and(
    and(`#{!=:#{pane_id},${paneId}}`, "#{synchronize-panes}"),
    and(
      "#{?pane_dead,0,#{?pane_in_mode,0,1}}",
      "#{?window_zoomed_flag,#{pane_active},1}",
    ),
  );
}

/**
 * A format, true when keys sent to `paneId` would be typed into another pane
 * too; "0" unless `alone`.
 */
function mirrors(paneId: string, alone: boolean): string {
  if (!alone) return "0";
  return `#{&&:#{synchronize-panes},${anyPaneWhere(copiedInto(paneId))}}`;
}

/**
 * The command that prints, space-separated, the other panes tmux copies keys
 * sent to `paneId` into (synchronize-panes); an empty line when none.
 */
function listCopies(paneId: string): string[] {
  const each = `#{P:#{?${copiedInto(paneId)},#{pane_id} ,}}`;
  return paneLineCommand(paneId, `#{?#{synchronize-panes},${each},}`);
}

/** The pane ids in {@link listCopies}'s output line. */
function parseCopies(line: string | undefined): string[] {
  return (line ?? "").split(" ").filter((id) => id !== "");
}

/**
 * The format tmux tests before input: true while the pane exists, its
 * program runs, no mode would take the keys, and they would not reach
 * `caller` (nor, with `mirrored`, any other pane). A missing target leaves
 * every pane field empty (tmux 3.3a), hence the test of `pane_id`.
 */
function acceptsInput(caller: string | null, mirrored: string, alternate: string): string {
  return `#{?pane_id,#{?pane_dead,0,#{?pane_in_mode,0,#{?${
    reaches(caller)
  },0,#{?${mirrored},0,#{?${alternate},0,1}}}}},0}`;
}

/**
 * The fields {@link acceptsInput} tests, printed space-separated for
 * {@link parseState} (`pane_in_mode` is a count: 2 for view mode over copy mode).
 */
function stateFormat(caller: string | null, mirrored: string, alternate: string): string {
  return `#{pane_id} #{pane_dead} #{?pane_in_mode,1,0} #{?${
    reaches(caller)
  },1,0} #{?${mirrored},1,0} #{?${alternate},1,0}`;
}

/** The command that prints the pane's {@link stateFormat}, nothing when the pane does not exist. */
function readState(
  paneId: string,
  caller: string | null,
  mirrored: string,
  alternate: string,
): string[] {
  return paneLineCommand(paneId, stateFormat(caller, mirrored, alternate));
}

function parseState(fields: string[]): InputState {
  const [id, dead, inMode, reachesCaller, mirrored, alternate] = fields;
  return {
    found: !!id,
    dead: dead === "1",
    inMode: inMode === "1",
    reachesCaller: reachesCaller === "1",
    mirrored: mirrored === "1",
    alternate: alternate === "1",
  };
}

/** What the guard prints when it sent the input, and (followed by the state on the next line) when it refused. */
const SENT = "tmux-mcp-input-sent";
const REFUSED = "tmux-mcp-input-refused";
/** What the guard prints when the pane's shell was not waiting at its prompt. */
const NOT_AT_PROMPT = "tmux-mcp-input-not-at-prompt";

/**
 * The refusal of input meant for a shell's prompt when the shell is not
 * waiting there: a program it started holds the terminal, or it is still
 * starting, or running a prompt hook. Often brief: callers may try again.
 */
export class NotAtPrompt extends ToolError {
  constructor(paneId: string) {
    super(
      `the shell of pane ${paneId} is not waiting at its prompt: a program holds the terminal ` +
        "(a pager, an editor, a script or another shell started in it), or the shell is busy " +
        "(starting, or running a command or prompt hook), so it cannot be known that the shell " +
        "would read the line",
      "Talk to that program with send_keys, or wait for it to end (wait_for_text) and try again; " +
        "run the command in another pane (split_window makes one).",
    );
    this.name = "NotAtPrompt";
  }
}

/**
 * A shell script (for `if-shell`, format-expanded) that succeeds only while
 * the pane's shell waits at its prompt: it is asleep (blocked reading the
 * terminal), its process group owns the terminal, and no other process is
 * in that group (a command substitution, a program not yet in a group of
 * its own). On Linux the shell must also not sleep waiting for a child: a
 * job it just started sits in a group of its own before it takes the
 * terminal, and a line typed then is echoed by the terminal before the
 * prompt. From /proc on Linux, else from ps.
 */
function shellAtPrompt(): string {
  const script = [
    "if [ -r /proc/$p/stat ]; then read -r s < /proc/$p/stat; s=${s##*) }; set -- $s",
    '[ "$1" = S ] && [ "$6" = "$p" ] || exit 1',
    "w=; read -r w 2>/dev/null < /proc/$p/wchan; case $w in do_wait*|*sigsuspend*) exit 1;; esac",
    'for f in /proc/$p/task/*/children; do k=; read -r k < "$f"',
    "for c in $k; do t=; read -r t < /proc/$c/stat; t=${t##*) }; set -- $t",
    '[ "$3" = "$p" ] && exit 1; done; done; exit 0; fi',
    "ps -A -o pid= -o pgid= -o tpgid= -o stat= | awk -v p=$p " +
    "'$1==p{ok=($3==p&&$4~/^[SI]/)} $2==p&&$1!=p{bad=1} END{exit !(ok&&!bad)}'",
  ].join("\n");
  // tmux expands the script as a format: `##` is one `#`.
  return `p=#{pane_pid}\n${script.replaceAll("#", "##")}`;
}

/** Refuses typing into this server's own pane (before anything reaches tmux). */
function refuseOwnPane(paneId: string, caller: string | null): void {
  if (caller === paneId) {
    throw ownPaneRefusal(`pane ${paneId}`, {
      harm: "typing into it would reach the agent's own terminal",
      hint: "Use another pane (create_window or split_window make one).",
    });
  }
}

/** Throws the refusal `state` calls for, if any. */
function refuseUnsafeInput(paneId: string, state: Omit<InputState, "found">): void {
  if (state.dead) {
    throw new ToolError(
      `pane ${paneId} is dead (its program exited)`,
      "Restart it with respawn_pane, or use another pane.",
    );
  }
  if (state.inMode) {
    throw new ToolError(
      `pane ${paneId} is in a mode (such as copy mode, which a person scrolling back entered), so ` +
        "keys would go to the mode, not the program, and the input tools cannot leave it",
      "Use another pane, or ask the user to leave the mode (q in that pane) and try again once " +
        "get_pane_info shows inMode false.",
    );
  }
  if (state.reachesCaller) {
    throw new ToolError(
      `pane ${paneId} shares a window with the pane this server runs in, and synchronize-panes is ` +
        "on: the keys would also be typed into the agent's own terminal",
      "Turn synchronization off (set_synchronize_panes) or use a pane in another window.",
    );
  }
  if (state.alternate) {
    throw new ToolError(
      `pane ${paneId} shows the alternate screen (a full-screen program such as less or vi ` +
        "runs, or one that ended left it on), so the line would not reach a shell prompt",
      "Talk to that program with send_keys (q or :q often quits); if it has ended, run " +
        'send_keys text "tput rmcup" with enter: true, then try again.',
    );
  }
  if (state.mirrored) {
    throw new ToolError(
      `pane ${paneId} is in a window with synchronize-panes on, so the command line would also be ` +
        "typed into the window's other panes and run there",
      "Turn synchronization off (set_synchronize_panes with enabled: false) and run it again, or " +
        "use a pane in another window; to type into every pane on purpose, use send_keys.",
    );
  }
}

/**
 * Refuses input into a pane that is dead, in a mode (copy mode), or the
 * caller's own, running the reads `also` in the same round trip; resolves
 * with the pane's view and their outputs when input is safe. (The guard of
 * {@link sendInput} tests again, synchronize-panes included.)
 */
export async function checkInputTargetWith(
  ctx: ToolContext,
  paneId: string,
  also: string[][],
): Promise<[PaneView, string[]]> {
  refuseOwnPane(paneId, await ctx.caller.guardedPane(ctx.tmux));
  const [pane, outputs] = await getPaneWith(ctx.tmux, paneId, await callerPane(ctx), also);
  refuseUnsafeInput(paneId, { ...pane, reachesCaller: false, mirrored: false, alternate: false });
  return [pane, outputs];
}

/** Input for one pane: what {@link sendInput} sends, and when. */
export interface PaneInput {
  /** Commands that prepare the input (filling a buffer) and need no check. */
  setup?: string[][];
  /** The commands that reach the pane, in order. */
  input: string[][];
  /** Commands to run instead when tmux finds the pane unsafe (dropping a buffer, removing a mark). */
  refused?: string[][];
  /**
   * The input is for this pane alone (a command line to run): refuse when
   * synchronize-panes would copy its keys into other panes of the window.
   */
  alone?: boolean;
  /**
   * The input is a command line for the pane's shell, written for the shell
   * `command` names (its `pane_current_command`) and, given `pid`, for the
   * shell with that `pane_pid`: tmux types it only while that shell waits
   * at its prompt (see {@link shellAtPrompt}) and the alternate screen is
   * off, else it throws {@link NotAtPrompt}.
   */
  atPrompt?: { command: string; pid?: string };
  /**
   * Reads run once tmux found the pane safe, right before the input, in
   * the same round trip; {@link sendInputReading} resolves with their output.
   */
  before?: string[][];
  /**
   * Read, in the same round trip, which other panes synchronize-panes copies
   * the keys into (send_keys reports them); otherwise none are read.
   */
  reportCopies?: boolean;
}

/**
 * Sends input to a pane that passes the input-safety test. tmux itself tests
 * the pane right before the input (`if-shell -F`), so the pane cannot change
 * between check and input, and prints which branch it took; with the setup,
 * that is one round trip. Input too long for one round trip sends its first
 * part guarded and the rest after it. A refusal throws after tmux ran `refused`.
 * Resolves with the other panes synchronize-panes copies keys sent to the
 * pane into, as tmux saw them right before the input, when `reportCopies`
 * asks (keys only: tmux does not copy a paste); else with none.
 */
export async function sendInput(
  ctx: ToolContext,
  paneId: string,
  input: PaneInput,
): Promise<string[]> {
  return (await sendInputReading(ctx, paneId, input)).copies;
}

/**
 * {@link sendInput}, resolving also with the output of the reads
 * `before` (their lines joined, as tmux printed them).
 */
export async function sendInputReading(
  ctx: ToolContext,
  paneId: string,
  { setup = [], input, refused = [], alone = false, reportCopies = false, atPrompt, before = [] }:
    PaneInput,
): Promise<{ copies: string[]; before: string }> {
  const caller = await ctx.caller.guardedPane(ctx.tmux);
  refuseOwnPane(paneId, caller);
  const options = { signal: ctx.signal };
  const target = paneTarget(paneId);
  const mirrored = mirrors(paneId, alone);
  const alternate = atPrompt ? "#{alternate_on}" : "0";
  const accepts = acceptsInput(caller, mirrored, alternate);
  const otherwise = [
    ["display-message", "-p", REFUSED],
    readState(paneId, caller, mirrored, alternate),
    ...refused,
  ];
  // A list-panes over every pane: only for a caller that reports it.
  const copies = reportCopies ? [listCopies(paneId)] : [];
  const sent = [["display-message", "-p", SENT], ...copies, ...before];
  const guard = (count: number) => {
    const checked = runIf(target, accepts, [...sent, ...input.slice(0, count)], otherwise);
    return atPrompt ? promptGuard(target, checked, otherwise, refused, atPrompt) : checked;
  };
  // Most input fits whole: the guard is built (and measured) once then.
  // Input larger than a round trip by itself is never built whole.
  const small = input.reduce((sum, command) => sum + commandBytes(command), 0) <= ROUND_TRIP_BYTES;
  const whole = small ? guard(input.length) : undefined;
  const fitsWhole = whole !== undefined && commandBytes(whole) <= ROUND_TRIP_BYTES;
  const head = fitsWhole ? input.length : longestFitting(
    input.length,
    (count) => commandBytes(guard(count)) <= ROUND_TRIP_BYTES,
  );
  const guarded = fitsWhole ? whole : head > 0 ? guard(head) : undefined;
  if (!guarded) {
    // Not even the first command fits inside the guard: check, then send.
    if (atPrompt || before.length > 0) {
      throw new ToolError("the command line is too long", "Shorten it.");
    }
    const state = readState(paneId, caller, mirrored, alternate);
    return {
      copies: await checkThenSend(ctx, paneId, state, copies, [...setup, ...input]),
      before: "",
    };
  }
  const answer = await sendGuarded(ctx, setup, guarded);
  const detail = confirmedDetail(answer, paneId);
  await runBounded(ctx.tmux, input.slice(head), options);
  return {
    copies: reportCopies ? parseCopies(detail) : [],
    before: (answer ?? "").split("\n").slice(reportCopies ? 2 : 1).join("\n"),
  };
}

/** Runs `setup` then the `guarded` input, in one round trip when both fit; resolves with tmux's answer. */
async function sendGuarded(
  ctx: ToolContext,
  setup: string[][],
  guarded: string[],
): Promise<string | undefined> {
  const options = { signal: ctx.signal };
  const withSetup = [...setup, guarded];
  if (withSetup.reduce((sum, command) => sum + commandBytes(command), 0) <= ROUND_TRIP_BYTES) {
    return (await ctx.tmux.run(withSetup, options)).at(-1);
  }
  await runBounded(ctx.tmux, setup, options);
  return await ctx.tmux.one(guarded, options);
}

/**
 * `checked` run only while the shell in `target` is at its prompt (off the
 * alternate screen), else NOT_AT_PROMPT and `refused`.
 */
function promptGuard(
  target: string,
  checked: string[],
  otherwise: string[][],
  refused: string[][],
  atPrompt: { command: string; pid?: string },
): string[] {
  // The shell's state comes from a script tmux runs; the format tests,
  // which cannot change between test and keys, run right after it: the
  // line is written for one shell, and another may hold the pane by now.
  // The alternate screen is refused as such, before the script runs.
  const busy = [["display-message", "-p", NOT_AT_PROMPT], ...refused];
  const command = /^[\w.+-]+$/.test(atPrompt.command)
    ? `#{==:#{pane_current_command},${atPrompt.command}}`
    : "1";
  const pid = /^\d+$/.test(atPrompt.pid ?? "") ? `#{==:#{pane_pid},${atPrompt.pid}}` : "1";
  const sameShell = `#{&&:${command},${pid}}`;
  const atShell = [
    "if-shell",
    "-t",
    target,
    shellAtPrompt(),
    commandList([runIf(target, sameShell, [checked], busy)]),
    commandList(busy),
  ];
  return runIf(target, "#{alternate_on}", otherwise, [atShell]);
}

/**
 * Input too long to send inside the guard: reads the pane's state (and the
 * `copies` query), refuses an unsafe pane, then runs `commands`. Resolves
 * with the copies.
 */
async function checkThenSend(
  ctx: ToolContext,
  paneId: string,
  state: string[],
  copies: string[][],
  commands: string[][],
): Promise<string[]> {
  const options = { signal: ctx.signal };
  const [read, copied] = await ctx.tmux.run([state, ...copies], options);
  const checked = parseState(read.split(" "));
  if (!checked.found) throw noSuch("pane");
  refuseUnsafeInput(paneId, checked);
  await runBounded(ctx.tmux, commands, options);
  return parseCopies(copied);
}

/**
 * The line after the branch's word in tmux's `answer` (the copies after
 * SENT); throws the refusal for any other branch.
 */
function confirmedDetail(answer: string | undefined, paneId: string): string {
  // The line after the branch's word: the pane's state after REFUSED, the copies after SENT.
  const [said, detail = ""] = (answer ?? "").split("\n");
  if (said === NOT_AT_PROMPT) throw new NotAtPrompt(paneId);
  if (said !== SENT) {
    const refusal = parseState(detail.split(" "));
    if (said === REFUSED && !refusal.found) throw noSuch("pane");
    if (said === REFUSED) refuseUnsafeInput(paneId, refusal);
    // Not reached while tmux prints what it tested; an answer we cannot read
    // is never taken for a sent input.
    throw new ToolError(
      `tmux did not confirm that the input reached pane ${paneId}`,
      "Look at the pane (get_pane_info or capture_pane) before trying again.",
    );
  }
  return detail;
}
