/**
 * Keyboard input shared by `send_keys` and `send_keys_batch`: which tmux key
 * names are accepted, which literal text may be typed, and the tmux commands
 * that type one operation. Everything is checked before anything is sent.
 *
 * @module
 */

import { z } from "zod";
import { chunkText } from "../tmux/chunks.ts";
import { paneTarget } from "../tmux/targets.ts";
import { ToolError } from "../core/errors.ts";
import { counted } from "../core/words.ts";
import { chordsAsIn33 } from "../tmux/version.ts";

/** Named keys tmux 3.3 understands (key-string.c), lower-cased for lookup. */
const NAMED_KEYS = new Set(
  [
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    "IC",
    "Insert",
    "DC",
    "Delete",
    "Home",
    "End",
    "NPage",
    "PageDown",
    "PgDn",
    "PPage",
    "PageUp",
    "PgUp",
    "Tab",
    "BTab",
    "Space",
    "BSpace",
    "Enter",
    "Escape",
    "Up",
    "Down",
    "Left",
    "Right",
    "KP/",
    "KP*",
    "KP-",
    "KP+",
    "KP.",
    "KPEnter",
    ...Array.from({ length: 10 }, (_, i) => `KP${i}`),
  ].map((name) => name.toLowerCase()),
);

/**
 * True when `name` is a tmux key name: an optional chain of modifiers
 * (`C-`, `M-`, `S-`, or `^` for Ctrl) before a named key (`Enter`, `F5`,
 * `PageDown`...) or one printable character.
 */
export function isKeyName(name: string): boolean {
  let rest = name;
  if (rest.length > 1 && rest.startsWith("^")) rest = rest.slice(1);
  else rest = splitModifiers(rest)[1];
  if (NAMED_KEYS.has(rest.toLowerCase())) return true;
  const chars = [...rest];
  // One printable character; control characters and whitespace have names.
  return chars.length === 1 && !/[\p{Cc}\p{Cf}\p{Z}]/u.test(rest);
}

/** `name` as its modifiers (`C-`, `M-`, `S-`, in any case) and the key they modify. */
function splitModifiers(name: string): [string[], string] {
  const modifiers: string[] = [];
  let rest = name;
  while (rest.length > 2 && /^[CMScms]-/.test(rest)) {
    modifiers.push(rest.slice(0, 2));
    rest = rest.slice(2);
  }
  return [modifiers, rest];
}

/**
 * The name tmux 3.3a can send for the key `name` (a valid key name). tmux
 * reads a Shift modifier on Tab or on a letter but has no bytes for it
 * (outside extended-keys mode), and send-keys then types the key's name as
 * text: "S-Tab" arrived as five letters. A terminal sends Shift+Tab as BTab
 * and Shift+a as A, so that is what they become (in extended-keys mode tmux
 * sends BTab exactly as it would S-Tab).
 */
export function sendableKey(name: string): string {
  if (name.startsWith("^")) return name;
  const [modifiers, key] = splitModifiers(name);
  const others = modifiers.filter((m) => m[0].toUpperCase() !== "S");
  if (others.length === modifiers.length) return name;
  if (/^b?tab$/i.test(key)) return `${others.join("")}BTab`;
  if (/^[A-Za-z]$/.test(key)) return `${others.join("")}${key.toUpperCase()}`;
  return name;
}

/** Keys whose Shift chord send-keys cannot send (3.3: typed as the name; 3.4+: sent unshifted). */
const SHIFT_UNSENT = new Set(["space", "bspace", "enter", "escape"]);
/** Keys whose Ctrl chord send-keys cannot send (3.3: nothing; 3.4+: the name, or the bare key). */
const CTRL_UNSENT = new Set(["tab", "btab", "bspace", "enter", "escape"]);

/**
 * True when tmux's send-keys cannot send the chord `name` (after
 * {@link sendableKey}) to a program that did not turn on extended keys:
 * measured with `cat -v` in the pane (docs/tmux-quirks.md). An agent asking
 * for a new line would submit the line, get letters, or believe a key went.
 */
export function unsendable(name: string, version: string | undefined): boolean {
  if (name.startsWith("^")) return false;
  const [modifiers, key] = splitModifiers(sendableKey(name));
  const base = key.toLowerCase();
  const has = (m: string) => modifiers.some((x) => x[0].toUpperCase() === m);
  return (has("S") && SHIFT_UNSENT.has(base)) || (has("C") && CTRL_UNSENT.has(base)) ||
    (has("M") && base === "btab" && !chordsAsIn33(version ?? ""));
}

/** What `version`'s send-keys does with an {@link unsendable} chord, for the refusal. */
function unsentAs(version: string | undefined): string {
  return version && chordsAsIn33(version)
    ? "it types such a key's name as text, or sends nothing"
    : "it sends the key without the modifier, or types its name as text";
}

/**
 * Refuses the first key that is not a tmux key name, or (given the tmux
 * `version`) one that tmux cannot send, saying which position it held.
 */
export function checkKeys(keys: readonly string[], where = "", version?: string): void {
  keys.forEach((key, i) => {
    if (!isKeyName(key)) {
      throw new ToolError(
        `${where}keys[${i}] is not a tmux key name`,
        "Use names such as C-c, M-x, Enter, Escape, Tab, BSpace, Space, Up, Down, Left, Right, " +
          "Home, End, PageUp, PageDown, F1-F12, or a single character, optionally with C-, M- or " +
          "S- in front; type plain text with text instead.",
      );
    }
    if (unsendable(key, version)) {
      throw new ToolError(
        `${where}keys[${i}] is a chord ${version ?? "tmux"} cannot send: ${unsentAs(version)}`,
        "Send the key without that modifier (Enter, Space, Escape, BSpace, Tab), or the keys " +
          "the program documents for the same action (for a new line without submitting, many " +
          "chat programs take M-Enter; a shell deletes a word with C-w).",
      );
    }
  });
}

/** A character that must not be typed as literal text: every control character but tab. */
// deno-lint-ignore no-control-regex
const TYPED_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;

/** Refuses literal text with control characters (a newline would act as Enter). */
export function checkTypedText(text: string, where = ""): void {
  if (TYPED_CONTROL.test(text)) {
    throw new ToolError(
      `${where}text contains a control character other than tab (a newline would press Enter)`,
      "Send Enter, C-c and other control keys through keys (or enter: true), " +
        "and multi-line text through paste_text.",
    );
  }
}

/** The input schema pieces of one typing operation, undescribed (a batch's rows repeat them). */
export const bareTypingFields = {
  text: z.string().max(100_000).nullish(),
  keys: z.array(z.string().min(1).max(32)).min(1).max(64).nullish(),
};

/** {@link bareTypingFields} described, as send_keys lists them. */
export const typingFields = {
  text: bareTypingFields.text.describe("Typed literally, no key names."),
  keys: bareTypingFields.keys.describe(
    'tmux key names pressed after the text, e.g. ["C-c"], ["Escape", ":", "w", "Enter"].',
  ),
};

/** One typing operation. */
export interface Typing {
  /** Literal text. */
  text?: string | null;
  /** Key names after the text. */
  keys?: readonly string[] | null;
  /** Press Enter last. */
  enter?: boolean | null;
}

/**
 * Checks `op` completely (nothing is sent for an invalid operation); with
 * the tmux `version`, also refuses keys that version cannot send.
 */
export function checkTyping(op: Typing, where = "", version?: string): void {
  if ((op.text === undefined || op.text === null || op.text === "") && !op.keys?.length) {
    throw new ToolError(
      // `where` is a path prefix ("operations[1]."); a sentence follows it here.
      `${where.replace(/\.$/, ": ")}there is nothing to send`,
      'Give text, keys, or both (to press only Enter, pass keys: ["Enter"]).',
    );
  }
  if (op.text) checkTypedText(op.text, where);
  if (op.keys) checkKeys(op.keys, where, version);
}

/** The tmux commands that type `op` into `paneId`, text first, then keys, then Enter. */
export function typingCommands(paneId: string, op: Typing): string[][] {
  const target = paneTarget(paneId);
  const commands: string[][] = [];
  if (op.text) {
    for (const chunk of chunkText(op.text)) {
      commands.push(["send-keys", "-t", target, "-l", "--", chunk]);
    }
  }
  if (op.keys?.length) {
    commands.push(["send-keys", "-t", target, "--", ...op.keys.map(sendableKey)]);
  }
  if (op.enter) commands.push(["send-keys", "-t", target, "Enter"]);
  return commands;
}

/** A short description of what `op` sent, for results. */
export function describeTyping(op: Typing): string {
  const parts: string[] = [];
  if (op.text) {
    const n = [...op.text].length;
    parts.push(`${counted(n, "character")} of text`);
  }
  if (op.keys?.length) parts.push(`keys ${op.keys.map(sendableKey).join(" ")}`);
  if (op.enter) parts.push("Enter");
  return parts.join(", then ");
}

/** The result field naming the panes synchronize-panes also typed an operation into. */
export const alsoSentTo = z.array(z.string()).describe(
  "Other panes of the window that tmux also typed these keys into because synchronize-panes is " +
    "on (each with the option on, alive, in no mode and not hidden by a zoom); empty when none.",
);

/** The text-block clause for {@link alsoSentTo}: empty when the keys reached one pane. */
export function alsoSentToText(panes: readonly string[]): string {
  if (panes.length === 0) return "";
  return ` (synchronize-panes also typed it into ${counted(panes.length, "other pane")}: ${
    panes.join(", ")
  })`;
}
