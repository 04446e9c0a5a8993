/**
 * Translates the validated JavaScript AST (domain/pattern_validator.ts) into
 * the tree domain/pattern_program.ts compiles: every character, escape and
 * class becomes a set of code points with case folding already applied,
 * so JavaScript's meaning of `\s`, `\w`, `.` and `i` is kept exactly.
 *
 * Text is matched by code point, as with the `u` flag: an astral
 * character written as a surrogate pair is one set, and what would need
 * half a character (a lone surrogate, an astral character in a class or
 * under a quantifier of its own) is refused.
 *
 * @module
 */

import type { AST } from "@eslint-community/regexpp";
import { ToolError } from "../core/errors.ts";
import type { AssertKind, Node } from "./pattern_program.ts";
import {
  classSet,
  closeOverCase,
  combine,
  complement,
  escapeSet,
  isHighSurrogate,
  isLowSurrogate,
  isSurrogate,
  LINE_TERMINATORS,
  MAX_CODE_POINT,
  orbitOf,
} from "./pattern_sets.ts";

/** Larger repeat counts are refused, with the offset. */
export const MAX_REPEAT = 1000;

interface Context {
  ignoreCase: boolean;
  dotAll: boolean;
}

/** The tree of a validated pattern. */
export function treeOf(ast: AST.Pattern, ignoreCase: boolean): Node {
  return alternatives(ast.alternatives, { ignoreCase, dotAll: false });
}

/** The tree of a literal: its characters in sequence. */
export function literalTree(codePoints: number[], ignoreCase: boolean): Node {
  return { type: "seq", items: codePoints.map((c) => charNode(c, ignoreCase)) };
}

function alternatives(list: AST.Alternative[], context: Context): Node {
  const items = list.map((a) => elements(a.elements, context));
  return items.length === 1 ? items[0] : { type: "alt", items, offsets: list.map((a) => a.start) };
}

function elements(list: AST.Element[], context: Context): Node {
  const items: Node[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const element = list[i];
    offsets.push(element.start);
    if (element.type === "Character" && isHighSurrogate(element.value)) {
      // Without the u flag an astral character is two Character nodes; text
      // is read by code point, so join them back into one.
      const next = list[i + 1];
      if (next?.type === "Character" && isLowSurrogate(next.value)) {
        items.push(charNode(combine(element.value, next.value), context.ignoreCase));
        i++;
        continue;
      }
      if (next?.type === "Quantifier" && next.element.type === "Character") {
        throw new ToolError(
          `a quantifier on an astral character (such as an emoji) at offset ${element.start} is not supported`,
          "Wrap the character in a group, e.g. (?:X)+ instead of X+.",
        );
      }
    }
    items.push(translate(element, context));
  }
  return items.length === 1 ? items[0] : { type: "seq", items, offsets };
}

const ASSERTIONS: Record<string, AssertKind> = { start: 0, end: 1 };

function translate(node: AST.Element, context: Context): Node {
  switch (node.type) {
    case "Character":
      if (isSurrogate(node.value)) throw loneSurrogate(node.start);
      return charNode(node.value, context.ignoreCase);
    case "CharacterSet":
      if (node.kind === "any") {
        return set(context.dotAll ? [0, MAX_CODE_POINT] : complement(LINE_TERMINATORS));
      }
      if (node.kind === "property") throw new Error("unreachable: no property escapes without u");
      return set(closeOverCase(escapeSet(node.kind, node.negate), context.ignoreCase));
    case "CharacterClass":
      return set(classSet(node, context.ignoreCase));
    case "Assertion":
      if (node.kind === "start" || node.kind === "end") {
        return { type: "assert", kind: ASSERTIONS[node.kind] };
      }
      if (node.kind === "word") return { type: "assert", kind: node.negate ? 3 : 2 };
      throw new Error("unreachable: lookarounds are refused by the validator");
    case "Group":
    case "CapturingGroup": {
      const inner = node.type === "Group" && node.modifiers
        ? applyModifiers(node.modifiers, context)
        : context;
      return alternatives(node.alternatives, inner);
    }
    case "Quantifier":
      return quantifier(node, context);
    default:
      throw new Error(`unreachable: ${node.type} is refused by the validator`);
  }
}

function set(ranges: number[]): Node {
  return { type: "set", ranges };
}

function charNode(codePoint: number, ignoreCase: boolean): Node {
  if (!ignoreCase) return set([codePoint, codePoint]);
  return set(closeOverCase([codePoint, codePoint], true));
}

function applyModifiers(modifiers: AST.Modifiers, context: Context): Context {
  const next = { ...context };
  if (modifiers.add.ignoreCase) next.ignoreCase = true;
  if (modifiers.add.dotAll) next.dotAll = true;
  if (modifiers.remove?.ignoreCase) next.ignoreCase = false;
  if (modifiers.remove?.dotAll) next.dotAll = false;
  return next;
}

function quantifier(node: AST.Quantifier, context: Context): Node {
  const { min, max } = node;
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
    throw new ToolError(
      `a repeat count over ${MAX_REPEAT} at offset ${node.start} is not supported`,
      `Use counts of at most ${MAX_REPEAT}, or an open bound such as {2,}.`,
    );
  }
  // Greediness cannot change whether a line matches.
  return { type: "repeat", item: translate(node.element, context), min, max, offset: node.start };
}

function loneSurrogate(offset: number): ToolError {
  return new ToolError(
    `a lone surrogate at offset ${offset} is not supported`,
    "Text is matched by whole characters; write the complete character (both halves of the pair).",
  );
}

/** Exported for the literal path, which refuses lone surrogates too. */
export { loneSurrogate, orbitOf };
