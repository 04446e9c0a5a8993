/**
 * What a tool is: its name, schemas, capability record and handler, and the
 * context handlers run in. Tool files call {@link defineTool}; the server
 * turns the definitions into `tools/list` entries and `tools/call` results.
 *
 * @module
 */

import type { z } from "zod";
import type { Caller } from "../tmux/caller.ts";
import type { Tmux } from "../tmux/client.ts";
import type { Settings } from "./settings.ts";
import type { Toolset } from "./toolsets.ts";

/** The honest classification of a tool, carried in `_meta` (listed in docs/tools.md). */
export interface Capability {
  /** The toolset the tool belongs to. */
  toolset: Toolset;
  /** What processes the tool can reach. */
  processReach: "none" | "configured-process" | "pane-input" | "pane-command";
  /** What it does to tmux objects. */
  tmuxEffects: ("observe" | "change" | "delete")[];
  /** What kinds of data its results carry. */
  outputClasses:
    ("tmux-metadata" | "terminal-content" | "process-environment" | "configured-command")[];
  /** Its results may contain secrets (terminal text, environment). */
  mayExposeSecrets: boolean;
  /** Its results may contain text written by programs the agent does not control. */
  mayReturnUntrustedContent: boolean;
  /** It can make later input act differently (keys, options, hooks). */
  amplifiesFutureInput: boolean;
}

/** The `_meta` key that carries the capability record. */
export const CAPABILITY_META_KEY = "com.git-pull.libtmux-mcp/capability";

/** What a nested call (from a batch tool) returned. */
export type CallOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: string };

/** Everything a handler may use. Handlers reach tmux only through `tmux`. */
export interface ToolContext {
  /** The driven tmux server. */
  readonly tmux: Tmux;
  /** The server's settings. */
  readonly settings: Settings;
  /** This server's own pane, if it runs inside tmux. */
  readonly caller: Caller;
  /** Fires when the client cancels the request. */
  readonly signal: AbortSignal;
  /** Reports progress when the client asked for it; a no-op otherwise. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Calls another selected tool by name, as the batch tools do. */
  call(tool: string, args: unknown): Promise<CallOutcome>;
  /** Names of the tools this server offers. */
  readonly selected: readonly string[];
  /**
   * `error` with the note a tool's own error gets when its hint names tools
   * this server does not offer: for errors a batch reports in its rows.
   */
  noteUnoffered(error: unknown): unknown;
  /** Tells subscribed clients that sessions, windows or panes changed. */
  topologyChanged(): void;
  /**
   * Bytes of the complete JSON-RPC response line if `structured` were this
   * call's result, its text rendered with `args`.
   */
  responseLineBytes(structured: Record<string, unknown>, args?: unknown): number;
}

/** A tool: contract, classification and behaviour in one record. */
export interface ToolDef<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
  N extends string = string,
> {
  /** snake_case tool name. */
  name: N;
  /** Human title. */
  title: string;
  /** What it does, after the class sentence the registry puts first. */
  description: string;
  /** Honest classification. */
  capability: Capability;
  /** Closed input schema (use `z.strictObject`). */
  input: I;
  /** Output schema of `structuredContent`. */
  output: O;
  /** Does the work; throws ToolError/TmuxError on failure. */
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>>;
  /**
   * The text block for clients that ignore structure, given the call's
   * arguments when known; compact generic lines (core/render_text.ts) when absent.
   */
  render?(result: z.input<O>, args?: z.output<I>): string;
  /**
   * What to do when a result without budgeted text cannot fit --max-bytes:
   * the narrower calls that read the same facts in parts.
   */
  overBudgetHint?: string;
  /**
   * True when the handler keeps its own result within a size limit (the read
   * batch caps the whole response line) instead of the --max-bytes budget.
   */
  sizesItsOwnResult?: boolean;
  /**
   * Rebuilds the tool once the selection is known, for tools whose schema
   * depends on which other tools are offered (the read batch nests them).
   */
  specialize?(selected: readonly AnyTool[]): AnyTool;
}

/** Declares a tool; the identity function that gives handlers their types. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject, N extends string>(
  def: ToolDef<I, O, N>,
): ToolDef<I, O, N> {
  return def;
}

// deno-lint-ignore no-explicit-any
export type AnyTool = ToolDef<any, any>;

/** The opening sentence of a description, chosen by the tool's class. */
export function classSentence(capability: Capability): string {
  if (capability.tmuxEffects.includes("delete")) {
    return "Can delete for good.";
  }
  if (capability.processReach === "pane-input" || capability.processReach === "pane-command") {
    return "Types into a pane's program.";
  }
  if (capability.tmuxEffects.includes("change")) {
    return "Changes tmux; types nothing.";
  }
  return "Read-only.";
}

/** The MCP tool annotations a client decides auto-approval by. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The annotations `capability` makes true: only observing is read-only and
 * idempotent; deleting, or typing into a program that may do anything, is
 * destructive; pane text and pane programs are the open world.
 */
export function annotationsOf(capability: Capability): Annotations {
  const observes = capability.tmuxEffects.every((effect) => effect === "observe") &&
    capability.processReach === "none";
  return {
    readOnlyHint: observes,
    destructiveHint: capability.tmuxEffects.includes("delete") ||
      capability.processReach === "pane-input" || capability.processReach === "pane-command",
    idempotentHint: observes,
    openWorldHint: capability.processReach !== "none" ||
      capability.outputClasses.includes("terminal-content"),
  };
}

/** Capability record of an inspect tool that returns only tmux metadata. */
export function readsMetadata(): Capability {
  return {
    toolset: "inspect",
    processReach: "none",
    tmuxEffects: ["observe"],
    outputClasses: ["tmux-metadata"],
    mayExposeSecrets: false,
    mayReturnUntrustedContent: false,
    amplifiesFutureInput: false,
  };
}

/** Capability record of an inspect tool that returns what panes show. */
export function readsTerminal(): Capability {
  return {
    toolset: "inspect",
    processReach: "none",
    tmuxEffects: ["observe"],
    outputClasses: ["tmux-metadata", "terminal-content"],
    mayExposeSecrets: true,
    mayReturnUntrustedContent: true,
    amplifiesFutureInput: false,
  };
}

/** A capability record of a tool that changes tmux without reading pane text. */
export function changesTmux(
  toolset: Toolset,
  tmuxEffects: Capability["tmuxEffects"],
  extra: { processReach?: Capability["processReach"]; amplifiesFutureInput?: boolean } = {},
): Capability {
  return {
    toolset,
    processReach: extra.processReach ?? "none",
    tmuxEffects,
    outputClasses: ["tmux-metadata"],
    mayExposeSecrets: false,
    mayReturnUntrustedContent: false,
    amplifiesFutureInput: extra.amplifiesFutureInput ?? false,
  };
}
