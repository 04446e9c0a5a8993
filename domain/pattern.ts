/**
 * The one pattern module every text-matching tool uses (`search_panes`,
 * `wait_for_text`): validates a pattern (JavaScript syntax, minus what
 * {@link parseSearchPattern} refuses), compiles it, and answers "does this
 * line contain a match?". Each line is matched on its own, by code point.
 * No user pattern ever reaches V8's backtracking engine: the engine and why
 * are in docs/decisions/001-pattern-engine.md.
 *
 * @module
 */

import type { AST } from "@eslint-community/regexpp";
import { ToolError } from "../core/errors.ts";
import { buildProgram, MAX_COST, type Node, TooCostly } from "./pattern_program.ts";
import { type Compiled, type Filter, findLine, testLine } from "./pattern_run.ts";
import { isSurrogate } from "./pattern_sets.ts";
import { literalTree, loneSurrogate, orbitOf, treeOf } from "./pattern_tree.ts";
import { checkPatternSize, loadPatternParser, parseSearchPattern } from "./pattern_validator.ts";

/** How a pattern is read. */
export interface PatternOptions {
  literal: boolean;
  ignoreCase: boolean;
}

/** A compiled pattern. */
export interface Matcher {
  /** The pattern as the caller gave it. */
  readonly source: string;
  /** What a worker runs (domain/match_worker.ts). */
  readonly compiled: Compiled;
  /** True when `line` contains a match. */
  test(line: string): boolean;
  /** A match in `line` as UTF-16 offsets `[start, end)`, or null when there is none. */
  find(line: string): [number, number] | null;
}

/**
 * Loads the pattern parser. Most sessions never search and loading it is a
 * noticeable part of start-up, so it loads on first use; call this (once
 * is enough) before {@link compilePattern}.
 */
export async function loadPatternEngine(): Promise<void> {
  await loadPatternParser();
}

/**
 * Validates and compiles `pattern`; throws ToolError (from core/errors.ts)
 * when refused. Needs {@link loadPatternEngine} to have resolved.
 */
export function compilePattern(pattern: string, options: PatternOptions): Matcher {
  const key = `${options.literal ? "L" : "R"}${options.ignoreCase ? "i" : "c"}${pattern}`;
  const cached = cache.get(key);
  if (cached) {
    // Re-insert so the map's insertion order is least-recently-used first.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const matcher = options.literal
    ? compileLiteral(pattern, options.ignoreCase)
    : compileRegex(pattern, options.ignoreCase);
  cache.set(key, matcher);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return matcher;
}

// wait_for_text re-tests the same few patterns on every poll; searches repeat.
const CACHE_SIZE = 128;
const cache = new Map<string, Matcher>();

function matcherOf(source: string, compiled: Compiled): Matcher {
  return {
    source,
    compiled,
    test: (line) => testLine(compiled, line),
    find: (line) => findLine(compiled, line),
  };
}

function compileLiteral(pattern: string, ignoreCase: boolean): Matcher {
  checkPatternSize(pattern);
  const codePoints = [...pattern].map((c) => c.codePointAt(0)!);
  const caseless = !ignoreCase || codePoints.every((c) => orbitOf(c).length === 1);
  if (codePoints.some(isSurrogate)) throw loneSurrogate(pattern.search(/[\ud800-\udfff]/));
  const tree = literalTree(codePoints, ignoreCase);
  // Case-folded literals run as a sequence of folded characters behind an
  // ASCII prefilter; others are answered by `includes` alone.
  const filter: Filter | null = caseless
    ? { needles: [pattern], lower: false, exact: true, literalAlternatives: true }
    : NON_ASCII.test(pattern)
    ? null
    : { needles: [pattern.toLowerCase()], lower: true, exact: false, literalAlternatives: true };
  return matcherOf(pattern, programs(tree, filter, null));
}

function compileRegex(pattern: string, ignoreCase: boolean): Matcher {
  const ast = parseSearchPattern(pattern);
  const tree = treeOf(ast, ignoreCase);
  return matcherOf(pattern, programs(tree, prefilter(ast, ignoreCase), tree));
}

// A fixed pattern of ours, linear in V8; user patterns never reach V8.
const NON_ASCII = /[\u0080-\uffff]/;

/** Both automata of `tree`; a refusal names what made it too costly (`blame` is the regex's tree). */
function programs(tree: Node, filter: Filter | null, blame: Node | null): Compiled {
  try {
    return { forward: buildProgram(tree, false), reverse: buildProgram(tree, true), filter };
  } catch (error) {
    if (!(error instanceof TooCostly)) throw error;
    const hint =
      `Use smaller counts in {n,m} (an open bound such as {2,} or + costs little), or a shorter pattern; the limit is ${MAX_COST}.`;
    const repeat = error.offset ?? (blame ? costliestRepeat(blame) : null);
    if (repeat !== null) {
      throw new ToolError(`the repetition at offset ${repeat} ${error.detail}`, hint);
    }
    const from = blame ? costlyPart(blame) : null;
    throw new ToolError(
      from === null
        ? `the pattern ${error.detail}`
        : `the pattern ${error.detail}, from the part at offset ${from} on`,
      hint,
    );
  }
}

/**
 * Where a pattern without repetitions goes over the budget: the offset of
 * the first top-level element (or alternative) whose addition does.
 */
function costlyPart(tree: Node): number | null {
  if ((tree.type !== "seq" && tree.type !== "alt") || !tree.offsets) return null;
  const fits = (count: number) => {
    try {
      const part = { ...tree, items: tree.items.slice(0, count) };
      buildProgram(part, false);
      buildProgram(part, true);
      return true;
    } catch {
      return false;
    }
  };
  let lo = 0; // fits
  let hi = tree.items.length; // does not
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return tree.offsets[hi - 1];
}

/** The offset of the repetition that expands to the most positions, or null. */
function costliestRepeat(tree: Node): number | null {
  let best: { offset: number; size: number } | null = null;
  const size = (node: Node): number => {
    switch (node.type) {
      case "set":
      case "assert":
        return 1;
      case "seq":
      case "alt":
        return node.items.reduce((sum, item) => sum + size(item), 0);
      case "repeat": {
        const inner = size(node.item);
        const total = inner * (node.max === Infinity ? Math.max(node.min, 1) : node.max);
        if (best === null || total > best.size) best = { offset: node.offset, size: total };
        return total;
      }
    }
  };
  size(tree);
  return (best as { offset: number } | null)?.offset ?? null;
}

// ---------------------------------------------------------------------------
// Prefilter: a literal every match must contain, when one provably exists.

/**
 * One needle per top-level alternative: the longest run of unquantified
 * characters, which any match of that alternative contains verbatim. Under
 * ignoreCase only ASCII runs qualify: an ASCII letter's JavaScript case
 * orbit is exactly its two cases, and `toLowerCase` maps both to one, so the
 * lowered line contains the lowered needle whenever the line matches.
 */
function prefilter(ast: AST.Pattern, ignoreCase: boolean): Filter | null {
  const needles: string[] = [];
  let exact = true;
  let lower = false;
  let literalAlternatives = true;
  for (const alternative of ast.alternatives) {
    const runs: string[] = [];
    let run = "";
    let onlyCharacters = true;
    for (const element of alternative.elements) {
      const ok = element.type === "Character" &&
        (!ignoreCase || element.value < 0x80);
      if (ok) run += String.fromCharCode(element.value);
      else {
        onlyCharacters = false;
        runs.push(run);
        run = "";
      }
    }
    runs.push(run);
    const best = runs.reduce((a, b) => (b.length > a.length ? b : a));
    if (best.length === 0) return null;
    const folds = ignoreCase && /[a-z]/i.test(best);
    lower ||= folds;
    // Exact when the alternative is nothing but this literal and case cannot
    // change it: then `includes` is the whole match.
    if (!onlyCharacters || folds) exact = false;
    if (!onlyCharacters) literalAlternatives = false;
    needles.push(folds ? best.toLowerCase() : best);
  }
  return { needles, lower, exact, literalAlternatives };
}
