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
