/**
 * Prompts: short recipes a user can pick that route the model
 * to the right tools of this server, with the arguments filled in. Each
 * recipe names only tools that are selected, and a prompt whose essential
 * tools are not selected is not offered at all.
 *
 * @module
 */

import { errorText, ToolError } from "../core/errors.ts";
import { compilePattern, loadPatternEngine } from "../domain/pattern.ts";
import { INVALID_PARAMS, ResourceError } from "./resources.ts";
import type { Settings } from "../core/settings.ts";
import { PANE_ID } from "../tmux/targets.ts";
import { counted } from "../core/words.ts";
import { DOLLAR_SESSION_NAME } from "../domain/workspace.ts";

/** One argument of a prompt, as `prompts/list` shows it. */
export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

/** A prompt as `prompts/list` shows it. */
export interface PromptListing {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
}

/** What `prompts/get` answers. */
export interface RenderedPrompt {
  [key: string]: unknown;
  description: string;
  messages: { role: "user"; content: { type: "text"; text: string } }[];
}

/** What a recipe knows while rendering. */
interface Env {
  has(tool: string): boolean;
  waitMax: number;
}

interface PromptDef extends PromptListing {
  offered(env: Env): boolean;
  /** Refuses arguments the recipe's tool calls would refuse, before it is rendered. */
  check?(args: Record<string, string>): Promise<void>;
  render(args: Record<string, string>, env: Env): string;
}

/** A tool call written the way the model makes it: name and JSON arguments. */
function call(tool: string, args: Record<string, unknown>): string {
  return `${tool} ${JSON.stringify(args)}`;
}

function numbered(steps: (string | false | undefined)[]): string {
  return steps.filter((s): s is string => typeof s === "string")
    .map((s, i) => `${i + 1}. ${s}`).join("\n");
}

const PANE_ARG: PromptArgument = {
  name: "paneId",
  description: "The pane, like %3 (list_panes shows the ids).",
  required: true,
};

const runAndCheck: PromptDef = {
  name: "run_and_check",
  title: "Run a command and check it",
  description: "Run a shell command in a pane and report whether it succeeded, with its output.",
  arguments: [
    { name: "command", description: "The shell command to run.", required: true },
    PANE_ARG,
  ],
  offered: (env) => env.has("run_shell_command") || env.has("send_keys"),
  render({ command, paneId }, env) {
    const check = env.has("snapshot_pane") &&
      `Check the pane first: ${
        call("snapshot_pane", { paneId })
      }. It must be a shell waiting at its prompt: not dead, not inMode, no full-screen program (alternateScreen false). If it is busy, ask the user before going on.`;
    if (env.has("run_shell_command")) {
      return `Run a command in tmux pane ${paneId} and check the result.\n\n${
        numbered([
          check,
          `Run it: ${
            call("run_shell_command", { paneId, command, timeoutSeconds: env.waitMax })
          }. tmux reports completion and the exit status, so nothing has to be read off the screen.`,
          "Read the result: outcome completed with exitStatus 0 is success; any other exitStatus is a failure whose cause is in output.",
          `If outcome is timed_out, the command is still running (stillRunning): do not start it again; keep waiting for it with ${
            call("run_shell_command", {
              paneId,
              runId: "<the runId it returned>",
              timeoutSeconds: env.waitMax,
            })
          }, as often as needed: the result is the same as if the first call had waited the whole time.`,
          "If outcome is pane_exited, the shell in the pane ended: say so, do not retry blindly.",
          "Report the exit status and the lines of output that matter, not the whole output.",
        ])
      }`;
    }
    const marker = `${command}; echo "exit=$?"`;
    // A fast command is done before the wait begins, and a wait without a
    // cursor never matches what was already written.
    const cursor = env.has("wait_for_text") && env.has("capture_since");
    return `Run a command in tmux pane ${paneId} and check the result.\n\n${
      numbered([
        check,
        cursor &&
        `Take a cursor before typing, so the wait also sees output that comes back fast: ${
          call("capture_since", { paneId })
        }.`,
        `Type it with its exit status appended: ${
          call("send_keys", { paneId, text: marker, enter: true })
        }.`,
        env.has("wait_for_text")
          ? `Wait for it to finish: ${
            call("wait_for_text", {
              paneId,
              patterns: ["^exit=\\d+$"],
              ...(cursor ? { cursor: "<the cursor capture_since returned>" } : {}),
              timeoutSeconds: env.waitMax,
            })
          }; the tail holds the output and the exit=N line (0 is success). On timeout it is still running: wait again, do not retype it.`
          : "Read the pane until a line exit=N appears (0 is success).",
        "Report the exit status and the lines of output that matter.",
      ])
    }`;
  },
};

const watchUntil: PromptDef = {
  name: "watch_until",
  title: "Watch a pane until text appears",
  description: "Wait until a pane prints text matching a pattern, without polling.",
  arguments: [
    PANE_ARG,
    {
      name: "pattern",
      description:
        "A JavaScript regular expression (no lookarounds or backreferences) the output must match.",
      required: true,
    },
  ],
  offered: (env) => env.has("wait_for_text"),
  async check({ pattern }) {
    // The recipe's wait_for_text call reads the pattern as a regular
    // expression ignoring case (its defaults): the same validator refuses
    // here what that call would refuse, with the same words.
    await loadPatternEngine();
    try {
      compilePattern(pattern, { literal: false, ignoreCase: true });
    } catch (error) {
      if (error instanceof ToolError) {
        throw new ResourceError(errorText("watch_until", error), INVALID_PARAMS);
      }
      throw error;
    }
  },
  render({ paneId, pattern }, env) {
    return `Watch tmux pane ${paneId} until it prints text matching ${
      JSON.stringify(pattern)
    }.\n\n${
      numbered([
        `Wait: ${
          call("wait_for_text", { paneId, patterns: [pattern], timeoutSeconds: env.waitMax })
        }. Only output printed after the call starts can match. Add stopPatterns (such as ["error", "failed"]) to stop early on failure; pass literal: true to match the pattern as plain text.`,
        "outcome matched: done; the tail shows what was printed. outcome stopped: a stop pattern appeared first; report it.",
        `outcome timeout: not yet. Call wait_for_text again; never loop over captures${
          env.has("capture_since")
            ? " (capture_since returns only new output if you must read)"
            : ""
        }.`,
        `outcome pane_exited: the program in the pane ended${
          env.has("snapshot_pane")
            ? `; read its last screen with ${call("snapshot_pane", { paneId })}`
            : ""
        }.`,
        "presentAtEntry true means matching text was already on the screen before the wait: it may have happened already, so check before waiting longer.",
      ])
    }`;
  },
};

const diagnosePane: PromptDef = {
  name: "diagnose_pane",
  title: "Diagnose a pane",
  description: "Find out what a pane is doing and why it may be stuck or failing, without typing.",
  arguments: [PANE_ARG],
  offered: (env) => env.has("snapshot_pane"),
  render({ paneId }, env) {
    return `Diagnose tmux pane ${paneId}. Do not type into it while diagnosing.\n\n${
      numbered([
        `Read it in one call: ${
          call("snapshot_pane", { paneId })
        }. Note pane.dead, pane.inMode, pane.currentCommand, alternateScreen and the cursor row.`,
        env.has("capture_pane") &&
        `For what scrolled away: ${
          call("capture_pane", { paneId, includeHistory: true, maxLines: 200 })
        }.`,
        env.has("search_panes") &&
        `To find errors in the scrollback: ${
          call("search_panes", {
            pattern: "error|fail|exception|traceback|panic|denied",
            includeHistory: true,
          })
        }, keeping the matches of ${paneId}.`,
        env.has("wait_for_text") &&
        `If it seems busy, ${
          call("wait_for_text", { paneId, timeoutSeconds: 10 })
        } tells whether it still prints (outcome any_output) or is silent (timeout).`,
        `Interpret: dead means its program exited${
          env.has("respawn_pane") ? ` (${call("respawn_pane", { paneId })} restarts it)` : ""
        }; inMode means copy mode, which refuses input until someone presses q in it; alternateScreen means a full-screen program (editor, pager, top); a prompt on the cursor row (such as [y/N] or Password:) means it waits for input, and a password is for the user to type.`,
        "Report what runs in the pane, its state, the errors found, and the fix you propose.",
      ])
    }`;
  },
};

/** One window of a workspace: a name and an optional command to start in it. */
export interface WorkspaceWindow {
  name: string;
  command: string | null;
}

/** Reads `editor, server=npm run dev, logs=tail -f app.log` into windows. */
export function parseWindows(text: string): WorkspaceWindow[] {
  return text.split(",").map((item) => item.trim()).filter((item) => item !== "").map((item) => {
    const eq = item.indexOf("=");
    if (eq < 0) return { name: item, command: null };
    const command = item.slice(eq + 1).trim();
    return { name: item.slice(0, eq).trim(), command: command === "" ? null : command };
  });
}

const buildWorkspace: PromptDef = {
  name: "build_workspace",
  title: "Build a workspace",
  description:
    "Create a tmux session with named windows, optionally starting a command in each, and report the ids.",
  arguments: [
    {
      name: "sessionName",
      description: "Name of the session to create (not starting with $).",
      required: true,
    },
    {
      name: "windows",
      description:
        "Comma-separated window names; name=command starts a command in that window, e.g. editor, server=npm run dev, logs=tail -f app.log (a command cannot hold a comma: start such a command after the workspace is built)",
      required: true,
    },
  ],
  offered: (env) => env.has("create_session") && env.has("create_window"),
  render({ sessionName, windows }, env) {
    const wanted = workspaceWindows(sessionName, windows);
    // tmux stores ':' and '.' of a session name as '_', and a name is only
    // found as stored: every later call names the session by its id.
    const stored = sessionName.replace(/[:.]/g, "_");
    return `Build the tmux workspace "${sessionName}" with ${
      counted(wanted.length, "window")
    }.\n\n${numbered(workspaceSteps(env, sessionName, stored, wanted))}`;
  },
};

/** The windows `windows` names; refuses a session name or list create_* would refuse. */
function workspaceWindows(sessionName: string, windows: string): WorkspaceWindow[] {
  // create_session refuses it: the recipe would fail at its first call.
  if (sessionName.startsWith("$")) {
    throw new ResourceError(`sessionName ${DOLLAR_SESSION_NAME}`, INVALID_PARAMS);
  }
  const wanted = parseWindows(windows);
  if (wanted.length === 0 || wanted.some((w) => w.name === "")) {
    throw new ResourceError(
      "windows must name at least one window, as comma-separated names (name=command to start a command)",
      INVALID_PARAMS,
    );
  }
  return wanted;
}

/** How to start a command in a pane with the input tools offered; undefined with none. */
function commandStarter(env: Env): string | undefined {
  return env.has("send_keys") && env.has("run_shell_command")
    ? "send_keys with enter: true for commands that keep running (servers, watchers, tails), run_shell_command for commands that finish"
    : env.has("send_keys")
    ? "send_keys with enter: true"
    : env.has("run_shell_command")
    ? "run_shell_command (for commands that keep running, give a short timeoutSeconds: a timeout leaves them running and says so)"
    : undefined;
}

/** The steps of build_workspace; false leaves a step out. */
function workspaceSteps(
  env: Env,
  sessionName: string,
  stored: string,
  wanted: WorkspaceWindow[],
): (string | false | undefined)[] {
  const [first, ...rest] = wanted;
  const commands = wanted.filter((w) => w.command !== null);
  const starter = commandStarter(env);
  const sessionId = "<sessionId>";
  return [
    env.has("list_sessions") &&
    `Look first: ${call("list_sessions", {})}. If a session named ${JSON.stringify(stored)} exists${
      stored === sessionName ? "" : " (tmux stores ':' and '.' in a session name as '_')"
    }, do not create it again: use its sessionId as ${sessionId} below, compare its windows${
      env.has("list_windows") ? " (list_windows)" : ""
    } and create only the missing ones.`,
    `Create the session with its first window: ${
      call("create_session", { name: sessionName, windowName: first.name })
    }. Keep session.sessionId (${sessionId} below) and pane.paneId from the result.`,
    ...rest.map((w) =>
      `Create window ${JSON.stringify(w.name)}: ${
        call("create_window", { session: sessionId, name: w.name })
      }; keep pane.paneId.`
    ),
    commands.length > 0 && starter &&
    `Start the commands in their windows' panes (the paneId of each result), with ${starter}: ${
      commands.map((w) => `${JSON.stringify(w.name)}: ${JSON.stringify(w.command)}`).join("; ")
    }.`,
    commands.length > 0 && !starter &&
    "This server cannot type into panes (its input tools are not offered): tell the user which commands to start in which window.",
    // A program that fails at once has printed its error before any wait
    // begins, and wait_for_text sees only later output: read first.
    commands.length > 0 && env.has("snapshot_pane") &&
    `Confirm each started: ${
      call("snapshot_pane", { paneId: "<its paneId>" })
    } shows what it printed so far (an error followed by a shell prompt means it failed at once).`,
    commands.length > 0 && env.has("wait_for_text") &&
    `If a pane printed nothing yet, ${
      call("wait_for_text", { paneId: "<its paneId>", timeoutSeconds: 10 })
    } waits for its first output (it sees only output printed after it begins).`,
    env.has("list_windows") &&
    `Check the result: ${call("list_windows", { session: sessionId })}.`,
    "Report the session id and each window's name, window id and pane id.",
  ];
}

const ALL: PromptDef[] = [runAndCheck, watchUntil, diagnosePane, buildWorkspace];

/** The prompts offered for a selection of tools. */
export class Prompts {
  readonly #env: Env;

  /** Builds the prompts for the selected tools and the wait ceiling in `settings`. */
  constructor(selected: readonly string[], settings: Pick<Settings, "waitMaxSeconds">) {
    const tools = new Set(selected);
    this.#env = { has: (tool) => tools.has(tool), waitMax: settings.waitMaxSeconds };
  }

  /** The offered prompts, for `prompts/list`. */
  list(): PromptListing[] {
    return ALL.filter((p) => p.offered(this.#env)).map((
      { name, title, description, arguments: a },
    ) => ({
      name,
      title,
      description,
      arguments: a,
    }));
  }

  /** Renders prompt `name` with `args`; rejects with a ResourceError the client can act on. */
  async get(name: string, args: Record<string, string> | undefined): Promise<RenderedPrompt> {
    const prompt = ALL.find((p) => p.name === name && p.offered(this.#env));
    if (!prompt) {
      throw new ResourceError(
        `this server does not offer that prompt. Offered: ${
          this.list().map((p) => p.name).join(", ") || "none (their tools are not selected)"
        }`,
        INVALID_PARAMS,
      );
    }
    const values: Record<string, string> = {};
    for (const arg of prompt.arguments) {
      const value = args?.[arg.name]?.trim() ?? "";
      if (arg.required && value === "") {
        throw new ResourceError(
          `${name} needs the argument ${arg.name}: ${arg.description}`,
          INVALID_PARAMS,
        );
      }
      values[arg.name] = value;
    }
    if (values.paneId !== undefined && !PANE_ID.test(values.paneId)) {
      throw new ResourceError(
        "paneId must be a pane id: % followed by digits, like %3 (list_panes shows them)",
        INVALID_PARAMS,
      );
    }
    const unknown = Object.keys(args ?? {}).filter((key) =>
      !prompt.arguments.some((a) => a.name === key)
    );
    if (unknown.length > 0) {
      throw new ResourceError(
        `${name} has no argument named ${unknown.join(", ")}; its arguments are ${
          prompt.arguments.map((a) => a.name).join(", ")
        }`,
        INVALID_PARAMS,
      );
    }
    await prompt.check?.(values);
    return {
      description: prompt.description,
      messages: [{
        role: "user",
        content: { type: "text", text: prompt.render(values, this.#env) },
      }],
    };
  }
}
