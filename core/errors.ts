/**
 * Errors as values a user can act on. A tool throws a {@link ToolError} (or
 * tmux/ throws a TmuxError); the registry turns either into the contract's
 * `isError` result: `<tool> failed: <what happened>. <what to do>`.
 *
 * @module
 */

import { TmuxError } from "../tmux/errors.ts";

/** A refusal or failure of a tool, with what happened and what to do. */
export class ToolError extends Error {
  /** `message` says what happened (never echoing a rejected value); `hint` what to do. */
  constructor(message: string, readonly hint: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Formats any thrown value as the contract's one-line error text for `tool`. */
export function errorText(tool: string, error: unknown): string {
  if (error instanceof ToolError || error instanceof TmuxError) {
    return `${tool} failed: ${trimStop(error.message)}. ${error.hint}`;
  }
  // An unexpected exception is a bug in this server; say so without leaking
  // arguments (the message of a JS error may quote them).
  const kind = error instanceof Error ? error.name : typeof error;
  return `${tool} failed: an internal error occurred (${kind}). Try again; if it repeats, report it with the tool name and the steps that led to it.`;
}

function trimStop(text: string): string {
  return text.replace(/[.\s]+$/, "");
}

/**
 * `error` with a note added to its hint when the hint names tools this
 * server does not offer (`unoffered`): a model told to call create_session,
 * which the selection left out, must learn that it cannot. `toolsets` says
 * which toolsets are on.
 */
export function noteUnoffered(
  error: unknown,
  unoffered: readonly string[],
  toolsets: string,
): unknown {
  if (!(error instanceof ToolError || error instanceof TmuxError)) return error;
  const named = unoffered.filter((name) => new RegExp(`\\b${name}\\b`).test(error.hint));
  if (named.length === 0) return error;
  return new ToolError(
    error.message,
    `${trimStop(error.hint)}. Not offered by this server: ${named.join(", ")} (${toolsets}).`,
  );
}
