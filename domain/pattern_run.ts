/**
 * Runs a compiled pattern (domain/pattern_program.ts) over a line: a
 * bit-parallel simulation of its position automaton, so each character
 * costs a fixed number of word operations that the compiler bounds.
 *
 * Every function here is self-contained (no imports, no module-level
 * values): domain/match_worker.ts sends their source text to a worker built
 * from a blob, which needs no read permission and no module loading.
 *
 * @module
 */

/** A compiled automaton: plain data, so it can be posted to a worker. */
export interface Program {
  /** 32-bit words in a state set. */
  words: number;
  /** The accepting position: in the set at a boundary means a match ends there. */
  end: number;
  /** Positions that may start a match. */
  first: Int32Array;
  /** Consuming positions p whose follow set holds p + 1. */
  shift: Int32Array;
  /** Consuming positions whose follow set holds themselves. */
  loop: Int32Array;
  /** Consuming positions a match may end with. */
  final: Int32Array;
  /** Distances k > 1 of the edges p -> p + k kept as masks. */
  jumpBy: Int32Array;
  /** For each of `jumpBy`, the positions p with that edge, `words` ints each. */
  jumpMasks: Int32Array;
  /** Other edges, 6 ints each: source words lo, hi, offset, target words lo, hi, offset. */
  groups: Int32Array;
  /** Masks of word ranges that groups and assertions point into. */
  spans: Int32Array;
  /**
   * Assertions, 6 ints each: position, kind (0 ^, 1 $, 2 \b, 3 \B),
   * target words lo, hi, offset, and 1 when a match may end with it.
   */
  asserts: Int32Array;
  /** Some assertion leads to an earlier one: closure needs repeated passes. */
  back: boolean;
  /** Mask index of each ASCII character. */
  ascii: Int32Array;
  /** Sorted starts of the alphabet's intervals (the first is 0). */
  breaks: Int32Array;
  /** Mask index of each interval. */
  intervalMask: Int32Array;
  /** Consuming positions accepting each character class, `words` ints each. */
  masks: Int32Array;
  /** Assertion positions. */
  assertMask: Int32Array;
  /**
   * Per mask index, 1 when the character can begin a match; all 1 when a
   * match can be empty. With nothing but `first` live, other characters are skipped.
   */
  lead: Uint8Array;
}

/** A literal every match must contain, when one provably exists. */
export interface Filter {
  needles: string[];
  /** Needles are lowercase: test them against the lowered line. */
  lower: boolean;
  /** The needles are the whole pattern: no confirmation by the automaton. */
  exact: boolean;
  /** Every alternative is exactly its (ASCII) needle, up to case. */
  literalAlternatives: boolean;
}

/** A pattern ready to run: the automaton, its mirror image (to locate a match's start) and a filter. */
export interface Compiled {
  forward: Program;
  reverse: Program;
  filter: Filter | null;
}

/** True when `line` contains a match of `c`. */
export function testLine(c: Compiled, line: string): boolean {
  const f = c.filter;
  if (f !== null) {
    const text = f.lower ? line.toLowerCase() : line;
    let found = false;
    for (const needle of f.needles) {
      if (text.includes(needle)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
    if (f.exact) return true;
    // On an ASCII line lowering is exact ASCII case folding, so a pattern
    // that is nothing but ASCII literals has matched.
    if (f.literalAlternatives && !/[\u0080-\uffff]/.test(line)) return true;
  }
  return matchEnd(c.forward, line) >= 0;
}

/**
 * A match in `line` as UTF-16 offsets `[start, end)`, or null: the match
 * that ends first, from its leftmost start.
 */
export function findLine(c: Compiled, line: string): [number, number] | null {
  const end = matchEnd(c.forward, line);
  if (end < 0) return null;
  return [matchStart(c.reverse, line, end), end];
}

/** The first index from `i` whose character can begin a match (a surrogate may), or the end. */
function skipToLead(p: Program, line: string, i: number): number {
  const len = line.length;
  const lead = p.lead;
  while (i < len) {
    const c = line.charCodeAt(i);
    if ((c >= 0xd800 && c <= 0xdfff) || lead[maskIndex(p, c)] !== 0) return i;
    i++;
  }
  return len;
}

/** The first boundary where a match ends, or -1. */
export function matchEnd(p: Program, line: string): number {
  if (p.words === 1) return matchEndSmall(p, line);
  const words = p.words;
  const len = line.length;
  const state = new Int32Array(words);
  const consumed = new Int32Array(words);
  const endWord = p.end >> 5;
  const endBit = 1 << (p.end & 31);
  const hasAsserts = p.asserts.length > 0;
  const masks = p.masks;
  const done = new Uint8Array(p.asserts.length / 6);
  state.set(p.first);
  let idle = true;
  let i = 0;
  for (;;) {
    // Only `first` is live: skip to a character that can begin a match.
    if (idle) i = skipToLead(p, line, i);
    if (hasAsserts && anyOf(state, p.assertMask)) closeAssertions(p, state, line, i, done);
    if ((state[endWord] & endBit) !== 0) return i;
    if (i >= len) return -1;
    // A pair of surrogates is one code point; a lone one is itself.
    const code = line.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    const m = maskIndex(p, code) * words;
    let any = 0;
    for (let w = 0; w < words; w++) {
      const v = state[w] & masks[m + w];
      consumed[w] = v;
      any |= v;
    }
    idle = any === 0;
    if (idle) state.set(p.first);
    else advance(p, consumed, state, p.first);
  }
}

/**
 * {@link matchEnd} for programs of one word (up to 32 positions, most
 * patterns): the state is a number, the follow step inline.
 */
export function matchEndSmall(p: Program, line: string): number {
  const len = line.length;
  const first = p.first[0];
  const shift = p.shift[0];
  const loop = p.loop[0];
  const final = p.final[0];
  const assertMask = p.assertMask[0];
  const endBit = 1 << p.end;
  const { masks, groups, spans, asserts, jumpBy, jumpMasks } = p;
  let state = first;
  let idle = true;
  let i = 0;
  for (;;) {
    if (idle) i = skipToLead(p, line, i);
    if ((state & assertMask) !== 0) state = closeSmall(asserts, spans, state, line, i, endBit);
    if ((state & endBit) !== 0) return i;
    if (i >= len) return -1;
    // A pair of surrogates is one code point; a lone one is itself.
    const code = line.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    const d = state & masks[maskIndex(p, code)];
    idle = d === 0;
    if (idle) {
      state = first;
      continue;
    }
    state = first | ((d & shift) << 1) | (d & loop);
    for (let j = 0; j < jumpBy.length; j++) state |= (d & jumpMasks[j]) << jumpBy[j];
    if ((d & final) !== 0) state |= endBit;
    for (let k = 0; k < groups.length; k += 6) {
      if ((d & spans[groups[k + 2]]) !== 0) state |= spans[groups[k + 5]];
    }
  }
}

/** {@link closeAssertions} for one-word programs; returns the new state. */
export function closeSmall(
  a: Int32Array,
  spans: Int32Array,
  state: number,
  line: string,
  i: number,
  endBit: number,
): number {
  const len = line.length;
  const before = i > 0 && isWordUnit(line.charCodeAt(i - 1));
  const after = i < len && isWordUnit(line.charCodeAt(i));
  let done = 0;
  let again = true;
  while (again) {
    again = false;
    for (let k = 0, n = 0; k < a.length; k += 6, n++) {
      if ((done & (1 << n)) !== 0 || (state & (1 << a[k])) === 0) continue;
      const kind = a[k + 1];
      const holds = kind === 0
        ? i === 0
        : kind === 1
        ? i === len
        : kind === 2
        ? before !== after
        : before === after;
      if (!holds) continue;
      done |= 1 << n;
      if (a[k + 3] >= a[k + 2]) state |= spans[a[k + 4]];
      if (a[k + 5] !== 0) state |= endBit;
      again = true;
    }
  }
  return state;
}

/** True when `a` and `b` share a bit. */
export function anyOf(a: Int32Array, b: Int32Array): boolean {
  for (let w = 0; w < a.length; w++) if ((a[w] & b[w]) !== 0) return true;
  return false;
}

/** The leftmost boundary from which a match ends at `end` (`r` is the reversed program). */
export function matchStart(r: Program, line: string, end: number): number {
  const words = r.words;
  const state = new Int32Array(words);
  const consumed = new Int32Array(words);
  const none = new Int32Array(words);
  const endWord = r.end >> 5;
  const endBit = 1 << (r.end & 31);
  const masks = r.masks;
  const done = new Uint8Array(r.asserts.length / 6);
  state.set(r.first);
  let best = end;
  let i = end;
  for (;;) {
    if (anyOf(state, r.assertMask)) closeAssertions(r, state, line, i, done);
    if ((state[endWord] & endBit) !== 0) best = i;
    if (i <= 0) return best;
    let code = line.charCodeAt(--i);
    if (code >= 0xdc00 && code <= 0xdfff && i > 0) {
      const high = line.charCodeAt(i - 1);
      if (high >= 0xd800 && high <= 0xdbff) {
        code = (high - 0xd800) * 0x400 + (code - 0xdc00) + 0x10000;
        i--;
      }
    }
    const m = maskIndex(r, code) * words;
    let any = 0;
    for (let w = 0; w < words; w++) {
      const v = state[w] & masks[m + w];
      consumed[w] = v;
      any |= v;
    }
    if (any === 0) return best;
    advance(r, consumed, state, none);
  }
}

/** `state` becomes `base` plus the follow set of `consumed`. */
export function advance(p: Program, consumed: Int32Array, state: Int32Array, base: Int32Array) {
  const words = p.words;
  const shift = p.shift;
  const loop = p.loop;
  const final = p.final;
  let carry = 0;
  let ends = 0;
  for (let w = 0; w < words; w++) {
    const d = consumed[w];
    const s = d & shift[w];
    state[w] = base[w] | (s << 1) | carry | (d & loop[w]);
    carry = s >>> 31;
    ends |= d & final[w];
  }
  if (ends !== 0) state[p.end >> 5] |= 1 << (p.end & 31);
  for (let j = 0; j < p.jumpBy.length; j++) {
    const k = p.jumpBy[j];
    const m = j * words;
    let over = 0;
    for (let w = 0; w < words; w++) {
      const s = consumed[w] & p.jumpMasks[m + w];
      state[w] |= (s << k) | over;
      over = s >>> (32 - k);
    }
  }
  const g = p.groups;
  const spans = p.spans;
  for (let k = 0; k < g.length; k += 6) {
    let hit = false;
    for (let w = g[k], o = g[k + 2]; w <= g[k + 1]; w++, o++) {
      if ((consumed[w] & spans[o]) !== 0) {
        hit = true;
        break;
      }
    }
    if (hit) { for (let w = g[k + 3], o = g[k + 5]; w <= g[k + 4]; w++, o++) state[w] |= spans[o]; }
  }
}

/** Adds the follow sets of the assertions in `state` that hold at boundary `i`. */
export function closeAssertions(
  p: Program,
  state: Int32Array,
  line: string,
  i: number,
  done: Uint8Array,
) {
  const a = p.asserts;
  const spans = p.spans;
  const len = line.length;
  const before = i > 0 && isWordUnit(line.charCodeAt(i - 1));
  const after = i < len && isWordUnit(line.charCodeAt(i));
  done.fill(0);
  let again = true;
  while (again) {
    again = false;
    for (let k = 0, n = 0; k < a.length; k += 6, n++) {
      const pos = a[k];
      if (done[n] !== 0 || (state[pos >> 5] & (1 << (pos & 31))) === 0) continue;
      const kind = a[k + 1];
      const holds = kind === 0
        ? i === 0
        : kind === 1
        ? i === len
        : kind === 2
        ? before !== after
        : before === after;
      if (!holds) continue;
      done[n] = 1;
      for (let w = a[k + 2], o = a[k + 4]; w <= a[k + 3]; w++, o++) state[w] |= spans[o];
      if (a[k + 5] !== 0) state[p.end >> 5] |= 1 << (p.end & 31);
      again = p.back;
    }
  }
}

/** JavaScript's word character without the u flag: ASCII only. */
export function isWordUnit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f ||
    (c >= 0x61 && c <= 0x7a);
}

/** The index of the mask of the consuming positions that accept `code`. */
export function maskIndex(p: Program, code: number): number {
  if (code < 128) return p.ascii[code];
  const b = p.breaks;
  let lo = 0;
  let hi = b.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (b[mid] <= code) lo = mid;
    else hi = mid - 1;
  }
  return p.intervalMask[lo];
}

/** The functions above, in an order a worker's script can define them. */
export const RUNTIME = [
  testLine,
  findLine,
  matchEnd,
  matchEndSmall,
  skipToLead,
  closeSmall,
  matchStart,
  anyOf,
  advance,
  closeAssertions,
  isWordUnit,
  maskIndex,
];
