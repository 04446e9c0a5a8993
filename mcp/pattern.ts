/**
 * The one pattern module every text-matching tool uses (`search_panes`,
 * `wait_for_text`): validates a pattern, compiles it for a linear-time
 * engine, and answers "does this line contain a match?".
 *
 * Dialect: JavaScript regular-expression syntax as `new RegExp(pattern, "i")`
 * reads it (no `u` flag), minus what {@link parseSearchPattern} refuses
 * (lookarounds, backreferences and their look-alikes, the `m` modifier).
 * Each line is matched on its own: `^`/`$` are line start and end.
 * Case-insensitive matching uses JavaScript's own rule (non-unicode
 * Canonicalize: simple uppercase mapping, never non-ASCII to ASCII), so `é`
 * matches `É` and `ß` matches only `ß`. One documented difference: text is
 * matched by code point, as with the `u` flag, so `.`, negated classes and
 * `\S \W \D` consume a whole emoji where JavaScript would consume half of it;
 * what would need half a character (a lone surrogate, an astral character
 * in a class or under a quantifier of its own) is refused.
 *
 * Engine, chosen by measurement (bench/search_bench.ts and a side run with
 * `--v8-flags=--enable-experimental-regexp-engine`, Deno 2.9.6 / V8 15.0):
 * npm `re2js` 2.10, the pure-JS port of RE2 (lazy DFA, falling back to a
 * bit-state backtracker or Pike VM, all linear in the text). V8's default
 * engine is never given a user pattern: it backtracks (`/(a+)+$/` on 31
 * characters took 86 s). V8's linear engine (`l` flag) lost on both counts
 * here: `(a+)+$` over 200,000 `a`s took 47 ms against re2js's 13 ms, and
 * 128,000 log lines matched case-sensitively took 750–1,280 ms against
 * 124–165 ms; worse, it needs a process-wide V8 flag and refuses the `i`
 * flag ("Cannot be executed in linear time") and `{2,1000}`, so it cannot do
 * the contract's default case-insensitive search at all.
 *
 * The validated JavaScript AST is translated node by node into an RE2
 * pattern, every character class spelled out as code point ranges with case
 * folding already applied, so no RE2-specific meaning of `\s`, `\w`, `.` or
 * `(?i)` leaks in. RE2 refuses repeat counts over 1000 and so do we, with the
 * offset. Matching costs text length times program size when the DFA gives
 * up (`a[ab]{200}[c]`-like patterns have exponentially many DFA states), so
 * programs over {@link MAX_PROGRAM_SIZE} instructions are refused.
 *
 * Common searches skip the engine: a line is first checked for a literal
 * every match must contain (`includes`), and a pattern that is only
 * literals is answered by that check alone on ASCII lines.
 *
 * @module
 */

import type { AST } from "@eslint-community/regexpp";
import type { RE2JS } from "re2js";
import { ToolError } from "./errors.ts";
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
  /** True when `line` contains a match. */
  test(line: string): boolean;
  /** The first match in `line` as UTF-16 offsets `[start, end)`, or null when there is none. */
  find(line: string): [number, number] | null;
}

let engine: typeof RE2JS | undefined;

/**
 * Loads the matching engine and the pattern parser. Most sessions never
 * search and loading them was over a tenth of start-up, so they load on
 * first use; call this (once is enough) before {@link compilePattern}.
 */
export async function loadPatternEngine(): Promise<void> {
  const [re2js] = await Promise.all([import("re2js"), loadPatternParser()]);
  engine ??= re2js.RE2JS;
}

/**
 * Validates and compiles `pattern`; throws ToolError (from mcp/errors.ts)
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

/** RE2 refuses repeat counts over 1000; refusing here names the offset. */
const MAX_REPEAT = 1000;
/** The largest compiled program accepted, in RE2 instructions (see the module doc). */
const MAX_PROGRAM_SIZE = 2000;
const MAX_CODE_POINT = 0x10ffff;

// ---------------------------------------------------------------------------
// Matchers

function compileLiteral(pattern: string, ignoreCase: boolean): Matcher {
  checkPatternSize(pattern);
  const codePoints = [...pattern].map((c) => c.codePointAt(0)!);
  const caseless = !ignoreCase || codePoints.every((c) => orbitOf(c).length === 1);
  if (caseless) {
    return {
      source: pattern,
      test: (line) => line.includes(pattern),
      find: (line) => {
        const at = line.indexOf(pattern);
        return at < 0 ? null : [at, at + pattern.length];
      },
    };
  }
  // Case-folded with the same rule as regular expressions: the literal runs
  // as a sequence of folded characters, behind an ASCII prefilter.
  if (codePoints.some(isSurrogate)) throw loneSurrogate(pattern.search(/[\ud800-\udfff]/));
  const re2 = compileRe2(codePoints.map((c) => emitChar(c, true)).join(""));
  const needle = NON_ASCII.test(pattern) ? null : pattern.toLowerCase();
  return {
    source: pattern,
    find: finder(re2),
    test: needle === null
      ? (line) => re2.test(line)
      : (line) => line.toLowerCase().includes(needle) && (!NON_ASCII.test(line) || re2.test(line)),
  };
}

function compileRegex(pattern: string, ignoreCase: boolean): Matcher {
  const ast = parseSearchPattern(pattern);
  const re2 = compileRe2(translateAlternatives(ast.alternatives, { ignoreCase, dotAll: false }));
  const filter = prefilter(ast, ignoreCase);
  const find = finder(re2);
  if (filter === null) return { source: pattern, test: (line) => re2.test(line), find };
  const { needles, lower, exact, literalAlternatives } = filter;
  if (exact) {
    return { source: pattern, test: (line) => needles.some((n) => line.includes(n)), find };
  }
  return {
    source: pattern,
    find,
    test: (line) => {
      const text = lower ? line.toLowerCase() : line;
      if (!needles.some((n) => text.includes(n))) return false;
      // On an ASCII line lowering is exact ASCII case folding, so a pattern
      // that is nothing but ASCII literals has matched; otherwise confirm.
      return (literalAlternatives && !NON_ASCII.test(line)) || re2.test(line);
    },
  };
}

/**
 * Locating a match goes through the engine even where `test` takes a
 * shortcut: it runs only on lines already known to match, so speed matters
 * less than finding exactly the match the pattern means.
 */
function finder(re2: RE2JS): (line: string) => [number, number] | null {
  return (line) => {
    const m = re2.matcher(line);
    return m.find() ? [m.start(), m.end()] : null;
  };
}

// A fixed pattern of ours, linear in V8; user patterns never reach V8.
const NON_ASCII = /[\u0080-\uffff]/;

function compileRe2(source: string): RE2JS {
  if (!engine) throw new Error("compilePattern was called before loadPatternEngine resolved");
  let re2: RE2JS;
  try {
    re2 = engine.compile(source);
  } catch {
    // The translation is valid RE2 by construction; what RE2 still refuses is
    // size (nested counted repeats multiply, e.g. (a{100}){100}).
    throw new ToolError(
      "the pattern is too large for the linear-time engine (nested counted repetitions multiply its size)",
      "Use smaller repeat counts or fewer nested repetitions.",
    );
  }
  // Matching is linear in the text times the program size whenever RE2's DFA
  // gives up (patterns like a[ab]{20}c have exponentially many DFA states):
  // measured ~37 ms per MB per instruction. A cap keeps that product bounded;
  // 2,000 still admits \w{3,1000} and a 999-character literal.
  const size = re2.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    throw new ToolError(
      `the pattern compiles to ${size} instructions, over the limit of ${MAX_PROGRAM_SIZE}`,
      "Use smaller counted repeats ({n,m}) or a shorter pattern.",
    );
  }
  return re2;
}

// ---------------------------------------------------------------------------
// Prefilter: a literal every match must contain, when one provably exists.

interface Prefilter {
  needles: string[];
  /** Needles are lowercase: test them against the lowered line. */
  lower: boolean;
  /** The needles are the whole pattern: no confirmation by the engine. */
  exact: boolean;
  /** Every alternative is exactly its (ASCII) needle, up to case. */
  literalAlternatives: boolean;
}

/**
 * One needle per top-level alternative: the longest run of unquantified
 * characters, which any match of that alternative contains verbatim. Under
 * ignoreCase only ASCII runs qualify: an ASCII letter's JavaScript case
 * orbit is exactly its two cases, and `toLowerCase` maps both to one, so the
 * lowered line contains the lowered needle whenever the line matches.
 */
function prefilter(ast: AST.Pattern, ignoreCase: boolean): Prefilter | null {
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

// ---------------------------------------------------------------------------
// Translation of the validated JavaScript AST to RE2 syntax.

interface Context {
  ignoreCase: boolean;
  dotAll: boolean;
}

function translateAlternatives(alternatives: AST.Alternative[], context: Context): string {
  return alternatives.map((a) => translateElements(a.elements, context)).join("|");
}

function translateElements(elements: AST.Element[], context: Context): string {
  let out = "";
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i];
    if (element.type === "Character" && isHighSurrogate(element.value)) {
      // Without the u flag an astral character is two Character nodes; RE2
      // reads text by code point, so join them back into one.
      const next = elements[i + 1];
      if (next?.type === "Character" && isLowSurrogate(next.value)) {
        out += emitChar(combine(element.value, next.value), context.ignoreCase);
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
    out += translateElement(element, context);
  }
  return out;
}

function translateElement(node: AST.Element, context: Context): string {
  switch (node.type) {
    case "Character":
      if (isSurrogate(node.value)) throw loneSurrogate(node.start);
      return emitChar(node.value, context.ignoreCase);
    case "CharacterSet":
      if (node.kind === "any") {
        return emitSet(context.dotAll ? [0, MAX_CODE_POINT] : complement(LINE_TERMINATORS));
      }
      if (node.kind === "property") throw new Error("unreachable: no property escapes without u");
      return emitSet(closeOverCase(escapeSet(node.kind, node.negate), context.ignoreCase));
    case "CharacterClass":
      return emitSet(classSet(node, context.ignoreCase));
    case "Assertion":
      switch (node.kind) {
        case "start":
          return "^"; // RE2 without (?m): start of text, i.e. of the line
        case "end":
          return "$"; // RE2 without (?m): end of text only (\z)
        case "word":
          return node.negate ? "\\B" : "\\b"; // both ASCII-word based, like JS without u
        default:
          throw new Error("unreachable: lookarounds are refused by the validator");
      }
    case "Group":
    case "CapturingGroup": {
      // Captures are never read: every group becomes non-capturing.
      const inner = node.type === "Group" && node.modifiers
        ? applyModifiers(node.modifiers, context)
        : context;
      return `(?:${translateAlternatives(node.alternatives, inner)})`;
    }
    case "Quantifier":
      return translateQuantifier(node, context);
    default:
      throw new Error(`unreachable: ${node.type} is refused by the validator`);
  }
}

function applyModifiers(modifiers: AST.Modifiers, context: Context): Context {
  const next = { ...context };
  if (modifiers.add.ignoreCase) next.ignoreCase = true;
  if (modifiers.add.dotAll) next.dotAll = true;
  if (modifiers.remove?.ignoreCase) next.ignoreCase = false;
  if (modifiers.remove?.dotAll) next.dotAll = false;
  return next;
}

function translateQuantifier(node: AST.Quantifier, context: Context): string {
  const { min, max } = node;
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
    throw new ToolError(
      `a repeat count over ${MAX_REPEAT} at offset ${node.start} is not supported`,
      `Use counts of at most ${MAX_REPEAT}, or an open bound such as {2,}.`,
    );
  }
  let suffix: string;
  if (min === 0 && max === Infinity) suffix = "*";
  else if (min === 1 && max === Infinity) suffix = "+";
  else if (min === 0 && max === 1) suffix = "?";
  else if (max === Infinity) suffix = `{${min},}`;
  else if (min === max) suffix = `{${min}}`;
  else suffix = `{${min},${max}}`;
  // Greediness cannot change whether a line matches, but keep it faithful.
  const atom = translateElement(node.element, context);
  return `(?:${atom})${suffix}${node.greedy ? "" : "?"}`;
}

function loneSurrogate(offset: number): ToolError {
  return new ToolError(
    `a lone surrogate at offset ${offset} is not supported`,
    "Text is matched by whole characters; write the complete character (both halves of the pair).",
  );
}

// ---------------------------------------------------------------------------
// Character sets as sorted, merged [lo, hi, lo, hi, ...] code point ranges.

type Ranges = number[];

const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const DIGITS: Ranges = [0x30, 0x39];
const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
// JavaScript's \s: WhiteSpace and LineTerminator (RE2's \s is ASCII only).
const SPACE: Ranges = normalize([
  0x09,
  0x0d,
  0x20,
  0x20,
  0xa0,
  0xa0,
  0x1680,
  0x1680,
  0x2000,
  0x200a,
  0x2028,
  0x2029,
  0x202f,
  0x202f,
  0x205f,
  0x205f,
  0x3000,
  0x3000,
  0xfeff,
  0xfeff,
]);

function escapeSet(kind: "digit" | "space" | "word", negate: boolean): Ranges {
  const set = kind === "digit" ? DIGITS : kind === "space" ? SPACE : WORD;
  return negate ? complement(set) : set;
}

function classSet(node: AST.CharacterClass, ignoreCase: boolean): Ranges {
  let set: Ranges = [];
  for (const element of node.elements) {
    if (element.type === "Character") set.push(element.value, element.value);
    else if (element.type === "CharacterClassRange") set.push(element.min.value, element.max.value);
    else if (element.type === "CharacterSet" && element.kind !== "property") {
      set.push(...escapeSet(element.kind, element.negate));
    } else throw new Error(`unreachable: ${element.type} needs the v flag`);
  }
  set = closeOverCase(normalize(set), ignoreCase);
  set = surrogatesToCodePoints(set, node.start);
  return node.negate ? complement(set) : set;
}

/**
 * Without the u flag a class holds UTF-16 code units. A class holding every
 * surrogate (e.g. `[\u0000-\uffff]`, `[\s\S]`) matches either half of any
 * astral character, so as a code point set it holds all of them; a class
 * holding only some surrogates would match half a character and is refused.
 */
function surrogatesToCodePoints(set: Ranges, offset: number): Ranges {
  let covered = 0;
  for (let i = 0; i < set.length; i += 2) {
    const lo = Math.max(set[i], 0xd800);
    const hi = Math.min(set[i + 1], 0xdfff);
    if (lo <= hi) covered += hi - lo + 1;
  }
  if (covered === 0) return set;
  if (covered === 0x800) return normalize([...set, 0x10000, MAX_CODE_POINT]);
  throw new ToolError(
    `a character class at offset ${offset} holds part of an astral character (such as an emoji) or a lone surrogate`,
    "Write astral characters outside classes, e.g. (?:X|Y) instead of [XY].",
  );
}

function normalize(set: Ranges): Ranges {
  const pairs: [number, number][] = [];
  for (let i = 0; i < set.length; i += 2) pairs.push([set[i], set[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= out[last] + 1) out[last] = Math.max(out[last], hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(set: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < set.length; i += 2) {
    if (set[i] > next) out.push(next, set[i] - 1);
    next = set[i + 1] + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

function emitSet(set: Ranges): string {
  // RE2 has no empty class; a complemented full range is one that matches nothing.
  if (set.length === 0) return `[^\\x{0}-\\x{10ffff}]`;
  let out = "[";
  for (let i = 0; i < set.length; i += 2) {
    out += set[i] === set[i + 1] ? hex(set[i]) : `${hex(set[i])}-${hex(set[i + 1])}`;
  }
  return out + "]";
}

function emitChar(codePoint: number, ignoreCase: boolean): string {
  if (ignoreCase) {
    const orbit = orbitOf(codePoint);
    if (orbit.length > 1) return `[${orbit.map(hex).join("")}]`;
  }
  return /[0-9A-Za-z]/.test(String.fromCharCode(codePoint)) && codePoint < 0x80
    ? String.fromCharCode(codePoint)
    : hex(codePoint);
}

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}

// ---------------------------------------------------------------------------
// Case folding with JavaScript's non-unicode Canonicalize (ECMA-262 22.2.2.7.3).

let canonical: Uint16Array | undefined;
let orbitStart: Uint32Array | undefined;
let orbitMembers: Uint16Array | undefined;

/** Builds, once, each BMP code unit's canonical value and the orbits sharing one. */
function caseTables(): { canon: Uint16Array; start: Uint32Array; members: Uint16Array } {
  if (!canonical || !orbitStart || !orbitMembers) {
    const canon = new Uint16Array(0x10000);
    for (let c = 0; c < 0x10000; c++) {
      const upper = String.fromCharCode(c).toUpperCase();
      // Canonicalize keeps a character whose uppercase is not one code unit,
      // and never maps non-ASCII to ASCII (so ſ does not match s).
      const u = upper.length === 1 ? upper.charCodeAt(0) : c;
      canon[c] = c >= 0x80 && u < 0x80 ? c : u;
    }
    const start = new Uint32Array(0x10001);
    for (let c = 0; c < 0x10000; c++) start[canon[c] + 1]++;
    for (let c = 0; c < 0x10000; c++) start[c + 1] += start[c];
    const fill = start.slice(0, 0x10000);
    const members = new Uint16Array(0x10000);
    for (let c = 0; c < 0x10000; c++) members[fill[canon[c]]++] = c;
    canonical = canon;
    orbitStart = start;
    orbitMembers = members;
  }
  return { canon: canonical, start: orbitStart, members: orbitMembers };
}

/** The code points equal to `codePoint` under case-insensitive comparison. */
function orbitOf(codePoint: number): number[] {
  // Astral code points are two code units without the u flag, each its own
  // canonical value: they never fold.
  if (codePoint > 0xffff) return [codePoint];
  const { canon, start, members } = caseTables();
  const k = canon[codePoint];
  return Array.from(members.subarray(start[k], start[k + 1]));
}

/** Adds to `set` every code point that case-folds to one of its members. */
function closeOverCase(set: Ranges, ignoreCase: boolean): Ranges {
  if (!ignoreCase) return set;
  const { canon, start, members } = caseTables();
  const added: Ranges = [];
  for (let i = 0; i < set.length; i += 2) {
    const hi = Math.min(set[i + 1], 0xffff);
    for (let c = set[i]; c <= hi; c++) {
      const k = canon[c];
      for (let j = start[k]; j < start[k + 1]; j++) {
        const m = members[j];
        if (m < set[i] || m > set[i + 1]) added.push(m, m);
      }
    }
  }
  return added.length === 0 ? set : normalize([...set, ...added]);
}

function isSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdfff;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function combine(high: number, low: number): number {
  return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
}
