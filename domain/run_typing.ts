/**
 * Typing a `run_shell_command` line: the frame built for the pane's shell
 * and typed only while tmux finds that shell at its prompt, looking again
 * for a moment while it is not. A pane's shell is remembered from its last
 * line, so the next one is typed without a look first (tmux still checks
 * the shell's command and pid where it types).
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";
import type { ToolContext } from "../core/registry.ts";
import { chunkText } from "../tmux/chunks.ts";
import { paneTarget } from "../tmux/targets.ts";
import { SERVER_PID } from "../tmux/wait_for.ts";
import { earlierRun } from "./earlier_runs.ts";
import { checkInputTargetWith, NotAtPrompt, sendInputReading } from "./input.ts";
import {
  buildFrame,
  type Frame,
  programName,
  RUNNING_OPTION,
  type RunningMark,
  runningMark,
  shellKind,
} from "./shell_frame.ts";

/**
 * How long the shell may take to be waiting at its prompt (a new pane's
 * start-up files, an earlier run that is ending, a prompt hook) before the
 * run is refused.
 */
const PROMPT_GRACE_MS = 3_000;
/** The longest pause between looks; the first are short (a shell that just ran a command is back in ms). */
const PROMPT_POLL_MS = 50;

/** What a run types: the command, where, and whether to keep it out of the shell's history. */
export interface RunLine {
  paneId: string;
  command: string;
  suppressHistory: boolean;
}

/** A line typed: its frame, the shell's pid, the server's pid and the pane's options before it. */
export interface TypedLine {
  frame: Frame;
  owner: string;
  serverPid: string;
  listing: string;
}

/**
 * Types the run's line once the pane's shell waits at its prompt, looking
 * again for a moment while it does not (a new pane's start-up files, an
 * earlier run that is ending, a prompt hook). When the shell never comes
 * back and an earlier run of ours is what holds it, throws `earlierBusy`'s
 * error instead of the refusal.
 */
export async function typeRunLine(
  ctx: ToolContext,
  args: RunLine,
  id: string,
  earlierBusy: (earlier: RunningMark) => Error,
): Promise<TypedLine> {
  const key = `${ctx.tmux.label} ${args.paneId}`;
  const known = shells.get(key);
  if (known) {
    // The shell the pane's last line was typed into: tmux checks that it is
    // still the pane's (its command and pid) where it types, so no look first.
    try {
      return await typeInto(ctx, args, id, known);
    } catch (error) {
      if (!(error instanceof NotAtPrompt)) throw error;
      shells.delete(key);
    }
  }
  const target = paneTarget(args.paneId);
  const deadline = performance.now() + PROMPT_GRACE_MS;
  let pause = 2;
  for (;;) {
    const [pane, [options]] = await checkInputTargetWith(ctx, args.paneId, [
      ["show-options", "-p", "-t", target],
    ]);
    const kind = shellKind(pane.currentCommand);
    const owner = String(pane.pid ?? "");
    const earlier = earlierRun(options, owner);
    try {
      if (kind === null) throw notAShell(args.paneId, pane.currentCommand);
      return await typeInto(ctx, args, id, { command: pane.currentCommand ?? "", owner });
    } catch (error) {
      const retry = error instanceof NotAtPrompt || (kind === null && error instanceof ToolError);
      if (!retry || performance.now() >= deadline || ctx.signal.aborted) {
        throw error instanceof NotAtPrompt && earlier ? earlierBusy(earlier) : error;
      }
      pause = Math.min(pause * 2, PROMPT_POLL_MS);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** A pane's shell: its `pane_current_command` (a shell {@link shellKind} knows) and pid. */
interface PaneShell {
  command: string;
  owner: string;
}

/** The shell each pane's last line was typed into, by socket + pane. */
const shells = new Map<string, PaneShell>();
/** Panes remembered at most (a long-lived server sees many). */
const SHELLS_MAX = 256;

/** Types the run's line for `shell`, which tmux checks is the pane's. */
async function typeInto(
  ctx: ToolContext,
  args: RunLine,
  id: string,
  shell: PaneShell,
): Promise<TypedLine> {
  const frame = buildFrame(
    {
      paneId: args.paneId,
      tmuxBinary: ctx.tmux.binary,
      socketPath: await ctx.tmux.socketPath(),
      suppressHistory: args.suppressHistory,
      owner: shell.owner,
      kind: shellKind(shell.command) ?? "posix",
    },
    args.command,
    id,
  );
  const [serverPid, ...listing] = (await typeLine(ctx, args.paneId, frame, shell)).split("\n");
  if (shells.size >= SHELLS_MAX) shells.clear();
  shells.set(`${ctx.tmux.label} ${args.paneId}`, shell);
  return { frame, owner: shell.owner, serverPid, listing: listing.join("\n") };
}

function notAShell(paneId: string, currentCommand: string | null): ToolError {
  const name = currentCommand ? programName(currentCommand) : "an unknown program";
  return new ToolError(
    `pane ${paneId} runs ${name} in the foreground, not a shell (sh, bash, zsh, dash, ksh, fish), ` +
      "so a typed command line would go to that program",
    "Talk to that program with send_keys, or run the command in a pane with a shell " +
      "(split_window or create_window make one).",
  );
}

/**
 * Types the frame's line, guarded by tmux: only while the pane's shell
 * (`command`, pid `owner`) waits at its prompt. Resolves with the server's
 * pid and the pane's options (`show-options -p`) read right before the line.
 */
async function typeLine(
  ctx: ToolContext,
  paneId: string,
  frame: Frame,
  { owner, command }: PaneShell,
): Promise<string> {
  const target = paneTarget(paneId);
  const [first, ...rest] = chunkText(frame.body);
  // alone: synchronize-panes would type the line into the window's other
  // panes, run it there too, and let their frames report to this run.
  const { before } = await sendInputReading(ctx, paneId, {
    alone: true,
    atPrompt: { command, pid: owner },
    // The shell waits at its prompt: no earlier run is going, and the
    // options show how each ended.
    before: [SERVER_PID, ["show-options", "-p", "-t", target]],
    setup: [
      ["set-option", "-p", "-t", target, frame.bodyOption, first],
      ...rest.map((chunk) => ["set-option", "-ap", "-t", target, frame.bodyOption, chunk]),
    ],
    // The marks change only with the line typed: a refusal leaves an
    // earlier run's mark for the busy message of the next look.
    input: [
      ["set-option", "-p", "-t", target, RUNNING_OPTION, runningMark({ id: frame.id, owner })],
      ["set-option", "-p", "-t", target, frame.awaitOption, "1"],
      // C-u first: text left on the prompt would otherwise be glued to the line.
      ["send-keys", "-t", target, "C-u"],
      ["send-keys", "-t", target, "-l", "--", frame.line],
      ["send-keys", "-t", target, "Enter"],
    ],
    refused: [["set-option", "-pu", "-t", target, frame.bodyOption]],
  });
  return before;
}
