/**
 * Character sets of the search dialect as sorted, merged code point ranges
 * `[lo, hi, lo, hi, ...]`, with JavaScript's meaning of `\s \w \d .` and
 * its case folding without the u flag (non-unicode Canonicalize: simple
 * uppercase mapping, never non-ASCII to ASCII).
 *
 * @module
 */

import type { AST } from "@eslint-community/regexpp";
import { ToolError } from "../core/errors.ts";

/** The largest code point. */
export const MAX_CODE_POINT = 0x10ffff;

/** Sorted, merged `[lo, hi, lo, hi, ...]` code point ranges. */
export type Ranges = number[];

/** What `.` does not match. */
export const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const DIGITS: Ranges = [0x30, 0x39];
const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
// JavaScript's \s: WhiteSpace and LineTerminator.
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

export function escapeSet(kind: "digit" | "space" | "word", negate: boolean): Ranges {
  const set = kind === "digit" ? DIGITS : kind === "space" ? SPACE : WORD;
  return negate ? complement(set) : set;
}

export function classSet(node: AST.CharacterClass, ignoreCase: boolean): Ranges {
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

export function normalize(set: Ranges): Ranges {
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

export function complement(set: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < set.length; i += 2) {
    if (set[i] > next) out.push(next, set[i] - 1);
    next = set[i + 1] + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

// Case folding with JavaScript's non-unicode Canonicalize (ECMA-262 22.2.2.7.3).

let canonical: Uint16Array | undefined;
let orbitStart: Uint32Array | undefined;
let orbitMembers: Uint16Array | undefined;

/** Builds, once, each BMP code unit's canonical value and the orbits sharing one. */
function caseTables(): { canon: Uint16Array; start: Uint32Array; members: Uint16Array } {
  if (!canonical || !orbitStart || !orbitMembers) {
    const canon = new Uint16Array(0x10000);
    for (let block = 0; block < 0x10000; block += 256) {
      // A block at a time (one call instead of 256): when no character in
      // it changes length, the uppercase block maps them one to one.
      const units = Array.from({ length: 256 }, (_, i) => block + i);
      const upper = String.fromCharCode(...units).toUpperCase();
      for (let c = block; c < block + 256; c++) {
        const one = upper.length === 256
          ? upper.charCodeAt(c - block)
          : String.fromCharCode(c).toUpperCase();
        // Canonicalize keeps a character whose uppercase is not one code unit,
        // and never maps non-ASCII to ASCII (so ſ does not match s).
        const u = typeof one === "number" ? one : one.length === 1 ? one.charCodeAt(0) : c;
        canon[c] = c >= 0x80 && u < 0x80 ? c : u;
      }
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
export function orbitOf(codePoint: number): number[] {
  // Astral code points are two code units without the u flag, each its own
  // canonical value: they never fold.
  if (codePoint > 0xffff) return [codePoint];
  const { canon, start, members } = caseTables();
  const k = canon[codePoint];
  return Array.from(members.subarray(start[k], start[k + 1]));
}

/** Adds to `set` every code point that case-folds to one of its members. */
export function closeOverCase(set: Ranges, ignoreCase: boolean): Ranges {
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

export function isSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdfff;
}

export function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

export function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

export function combine(high: number, low: number): number {
  return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
}
