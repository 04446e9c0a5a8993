/**
 * The validator of the search dialect: parses a pattern as JavaScript
 * regular-expression syntax (Annex B: what `new RegExp(pattern, "i")`
 * accepts, no `u` flag) and refuses, with its 0-based UTF-16 offset, every
 * construct that is excluded or would not mean what it says: lookarounds,
 * backreferences, `\p{…}`, a `\u` without four hex digits, the `m`
 * modifier. Accepted look-alikes keep their JavaScript meaning
 * (docs/behaviour.md#search-patterns).
 *
 * @module
 */

import type { AST, RegExpSyntaxError } from "@eslint-community/regexpp";
import { ToolError } from "../core/errors.ts";

type Regexpp = typeof import("@eslint-community/regexpp");
let regexpp: Regexpp | undefined;

/**
 * Loads the parser, on first use like the matching engine (see
 * loadPatternEngine in pattern.ts, which calls this): most sessions never
 * search. {@link parseSearchPattern} needs it to have resolved.
 */
export async function loadPatternParser(): Promise<void> {
  regexpp ??= await import("@eslint-community/regexpp");
}

/** The longest pattern accepted, in UTF-8 bytes (the contract's limit). */
export const MAX_PATTERN_BYTES = 999;

const encoder = new TextEncoder();

/** Refuses a pattern (or literal) over {@link MAX_PATTERN_BYTES} UTF-8 bytes. */
export function checkPatternSize(pattern: string): void {
  // Bytes, not characters: the limit bounds the work of parsing and
  // compiling, and 500 two-byte characters are 1,000 bytes.
  const bytes = encoder.encode(pattern).length;
  if (bytes > MAX_PATTERN_BYTES) {
    throw new ToolError(
      `the pattern is ${bytes} UTF-8 bytes, over the limit of ${MAX_PATTERN_BYTES} from offset ${
        offsetPast(pattern, MAX_PATTERN_BYTES)
      } on`,
      "Search for a shorter, more specific pattern.",
    );
  }
}

/** The UTF-16 offset of the first character of `text` past its first `bytes` UTF-8 bytes. */
function offsetPast(text: string, bytes: number): number {
  let size = 0;
  let offset = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    size += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (size > bytes) return offset;
    offset += ch.length;
  }
  return offset;
}

/** Parses `pattern` in the search dialect; throws ToolError naming the refused construct. */
export function parseSearchPattern(pattern: string): AST.Pattern {
  checkPatternSize(pattern);
  const parser = regexpp;
  if (!parser) throw new Error("parseSearchPattern was called before loadPatternParser resolved");
  let ast: AST.Pattern;
  try {
    // No `u` flag: this is the dialect of `new RegExp(pattern, "i")`, which is
    // what people and models write (over-escaped punctuation like `\-` or
    // `\:` is a syntax error in unicode mode).
    ast = new parser.RegExpParser({ strict: false }).parsePattern(pattern, 0, pattern.length, {
      unicode: false,
      unicodeSets: false,
    });
  } catch (error) {
    if (error instanceof parser.RegExpSyntaxError) {
      throw new ToolError(
        `syntax error at offset ${error.index}: ${syntaxReason(error, pattern)}`,
        "Fix the regular expression (escape ( ) [ ] { } * + ? . | ^ $ \\ with a backslash), or set literal: true to search for the text itself.",
      );
    }
    throw error;
  }
  refuseUnsupported(ast, parser);
  return ast;
}

/** The parser's reason without the pattern it quotes (errors never echo the pattern). */
function syntaxReason(error: RegExpSyntaxError, pattern: string): string {
  const prefix = `Invalid regular expression: /${pattern}/: `;
  return error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : "invalid regular expression";
}

interface Refusal {
  construct: string;
  offset: number;
  hint: string;
}

/** What to write instead of a POSIX class inside brackets. */
const POSIX_CLASSES: Record<string, string> = {
  digit: "\\d",
  space: "\\s",
  alpha: "[A-Za-z]",
  alnum: "[A-Za-z0-9]",
  upper: "[A-Z]",
  lower: "[a-z]",
  xdigit: "[0-9A-Fa-f]",
  word: "\\w",
  blank: "[ \\t]",
  punct: "[!-/:-@[-`{-~]",
};

const LOOK_HINT = "Remove the %s, or set literal: true to search for the text itself.";

/** Records a refused construct at `offset`; the hint defaults to removing it. */
type Refuse = (construct: string, offset: number, hint?: string) => void;

/**
 * `[[:digit:]]` is valid JavaScript that means something else (a class
 * of `[`, `:`, `d`, … then a `]`), so it would match nothing a model meant.
 */
function refusePosixClass(node: AST.CharacterClass, refuse: Refuse): void {
  const posix = /^\[\[:([a-z]+):\]$/.exec(node.raw);
  if (posix) {
    const instead = POSIX_CLASSES[posix[1]];
    refuse(
      `POSIX class [:${posix[1]}:]`,
      node.start,
      `POSIX classes are not JavaScript syntax; write ${
        instead ?? "a class such as [a-z]"
      } instead.`,
    );
  }
}

/** `\p{…}` and a short `\u` outside a class: Annex B reads them as other text. */
function refuseLookAlikeEscape(node: AST.Character, refuse: Refuse): void {
  if (node.parent.type === "CharacterClass" || node.parent.type === "CharacterClassRange") {
    return; // inside a class every escape is a plain character
  }
  const raw = node.raw;
  if (raw === "\\p" || raw === "\\P") {
    refuse(
      "Unicode property escape",
      node.start,
      "Patterns are not in unicode mode; use a character class such as [a-z] instead, or escape the backslash to search for the text.",
    );
  } else if (raw === "\\u") {
    refuse(
      "incomplete \\u escape",
      node.start,
      "Write \\uXXXX with exactly four hex digits (\\u{...} is not supported).",
    );
  }
}

/** Throws the refusal of the unsupported construct that comes first in the pattern. */
function refuseUnsupported(ast: AST.Pattern, parser: Regexpp): void {
  const found: Refusal[] = [];
  const refuse: Refuse = (construct, offset, hint = LOOK_HINT.replace("%s", construct)) => {
    found.push({ construct, offset, hint });
  };
  parser.visitRegExpAST(ast, {
    onAssertionEnter(node) {
      if (node.kind === "lookahead") {
        refuse(node.negate ? "negative lookahead" : "lookahead", node.start);
      } else if (node.kind === "lookbehind") {
        refuse(node.negate ? "negative lookbehind" : "lookbehind", node.start);
      }
    },
    onBackreferenceEnter(node) {
      refuse(typeof node.ref === "number" ? "backreference" : "named backreference", node.start);
    },
    onCharacterClassEnter: (node) => refusePosixClass(node, refuse),
    onCharacterEnter: (node) => refuseLookAlikeEscape(node, refuse),
    onGroupEnter(node) {
      if (node.modifiers?.add.multiline) {
        refuse(
          "multiline modifier",
          node.modifiers.start,
          "Remove the m modifier: each line is matched on its own, so ^ and $ already mean line start and end.",
        );
      }
    },
  });
  if (found.length > 0) {
    // The visitor's order is the tree's; report the first in the text.
    const first = found.reduce((a, b) => (b.offset < a.offset ? b : a));
    throw new ToolError(
      `${first.construct} at offset ${first.offset} is not supported`,
      first.hint,
    );
  }
}
