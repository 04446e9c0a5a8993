/**
 * Compiles a pattern's tree (built by domain/pattern.ts from the validated
 * JavaScript AST) into the position automaton that domain/pattern_run.ts
 * runs: one position per character set or assertion, counted repetitions
 * expanded, edges p -> p + 1 as a shift mask, the rest as grouped edges.
 *
 * Matching costs a fixed number of word operations per character, which
 * this module computes; a pattern over the budget is refused, naming the
 * repetition that made it big. No backtracking, no cache that can be
 * thrashed: the bound holds for every text.
 *
 * @module
 */

import type { Program } from "./pattern_run.ts";

/** A pattern's tree: sets of code points, assertions, sequences, alternatives, repetitions. */
export type Node =
  | { type: "set"; ranges: number[] }
  | { type: "assert"; kind: AssertKind }
  | { type: "seq"; items: Node[]; offsets?: number[] }
  | { type: "alt"; items: Node[]; offsets?: number[] }
  | { type: "repeat"; item: Node; min: number; max: number; offset: number };

/** 0 `^`, 1 `$`, 2 `\b`, 3 `\B`. */
export type AssertKind = 0 | 1 | 2 | 3;

/** Positions after expanding repetitions: bounds the state set (and compile time). */
export const MAX_POSITIONS = 4000;
/**
 * The largest per-character cost accepted, in word operations as counted
 * by {@link cost}; chosen by bench/search_bench.ts so that the worst
 * accepted pattern stays under 1 s per MB.
 */
export const MAX_COST = 1000;

/** Why a tree was refused: the text of the message and where its cause starts. */
export class TooCostly extends Error {
  constructor(
    readonly offset: number | null,
    readonly detail: string,
    readonly cost: number | null = null,
  ) {
    super(detail);
  }
}

interface Frag {
  first: number[];
  last: number[];
  nullable: boolean;
}

const CONSUMING = -1;
const ASSERT_INTS = 6;
const END = 4;

class Builder {
  /** Per position: its code point ranges, or none for assertions and the end. */
  ranges: (number[] | null)[] = [];
  /** Per position: CONSUMING, an AssertKind or END. */
  kinds: number[] = [];
  edges: [number[], number[]][] = [];
  /** The outermost repetition being expanded, to blame for size. */
  expanding: number | null = null;
  /** The end position, once placed. */
  end = -1;
  /** Assertions a match may end with. */
  finalAsserts = new Set<number>();

  constructor(readonly reverse: boolean) {}

  position(kind: number, ranges: number[] | null): number {
    if (this.ranges.length >= MAX_POSITIONS) {
      throw new TooCostly(
        this.expanding,
        `expands to over ${MAX_POSITIONS} character positions`,
      );
    }
    this.ranges.push(ranges);
    this.kinds.push(kind);
    return this.ranges.length - 1;
  }

  build(node: Node): Frag {
    switch (node.type) {
      case "set": {
        const p = this.position(CONSUMING, node.ranges);
        return { first: [p], last: [p], nullable: false };
      }
      case "assert": {
        const p = this.position(node.kind, null);
        return { first: [p], last: [p], nullable: false };
      }
      case "seq": {
        const items = this.reverse ? [...node.items].reverse() : node.items;
        return items.reduce((acc, item) => this.concat(acc, this.build(item)), EMPTY);
      }
      case "alt": {
        const parts = node.items.map((item) => this.build(item));
        return {
          first: parts.flatMap((f) => f.first),
          last: parts.flatMap((f) => f.last),
          nullable: parts.some((f) => f.nullable),
        };
      }
      case "repeat":
        return this.repeat(node);
    }
  }

  repeat(node: Extract<Node, { type: "repeat" }>): Frag {
    const outer = this.expanding === null;
    if (outer) this.expanding = node.offset;
    try {
      let acc = EMPTY;
      if (node.max === Infinity) {
        // X{m,} is m - 1 copies then X+ (X* when m is 0).
        for (let i = 1; i < node.min; i++) acc = this.concat(acc, this.build(node.item));
        const x = this.build(node.item);
        this.edge(x.last, x.first);
        return this.concat(acc, { ...x, nullable: x.nullable || node.min === 0 });
      }
      for (let i = 0; i < node.min; i++) acc = this.concat(acc, this.build(node.item));
      // (X(X(X)?)?)?: built left to right so that positions keep text order.
      const copies: Frag[] = [];
      for (let i = node.min; i < node.max; i++) copies.push(this.build(node.item));
      if (copies.length > 0 && !copies[0].nullable) {
        // Each copy follows the one before; any copy can end the repetition.
        for (let i = 0; i + 1 < copies.length; i++) this.edge(copies[i].last, copies[i + 1].first);
        const last = copies.flatMap((copy) => copy.last);
        return this.concat(acc, { first: copies[0].first, last, nullable: true });
      }
      let tail = EMPTY;
      for (let i = copies.length - 1; i >= 0; i--) {
        tail = { ...this.concat(copies[i], tail), nullable: true };
      }
      return this.concat(acc, tail);
    } finally {
      if (outer) this.expanding = null;
    }
  }

  concat(a: Frag, b: Frag): Frag {
    this.edge(a.last, b.first);
    return {
      first: a.nullable ? [...a.first, ...b.first] : a.first,
      last: b.nullable ? [...a.last, ...b.last] : b.last,
      nullable: a.nullable && b.nullable,
    };
  }

  edge(from: number[], to: number[]): void {
    if (from.length > 0 && to.length > 0) this.edges.push([from, to]);
  }
}

const EMPTY: Frag = { first: [], last: [], nullable: true };

/** The automaton of `tree`, mirrored when `reverse` (to run from a match's end back to its start). */
export function buildProgram(tree: Node, reverse: boolean): Program {
  const b = new Builder(reverse);
  const frag = b.build(tree);
  const end = b.position(END, null);
  b.edge(frag.last, [end]);
  const first = frag.nullable ? [...frag.first, end] : frag.first;
  const words = (b.ranges.length + 31) >> 5;
  b.end = end;
  const chars = alphabet(b.ranges, words);
  // Jump masks cost every word of the state, groups only their own span:
  // keep whichever layout is cheaper for this pattern.
  const program = [layout(b, first, chars, true), layout(b, first, chars, false)]
    .reduce((x, y) => (cost(y) < cost(x) ? y : x));
  const c = cost(program);
  if (c > MAX_COST) {
    throw new TooCostly(null, `costs ${c} operations per character to match, over ${MAX_COST}`, c);
  }
  return program;
}

/** Word operations per character of text, the bound the budget is on. */
export function cost(p: Program): number {
  // Weights measured by bench/search_bench.ts: a group costs about as much
  // as eight words of the bit loops, an assertion ten, a jump mask six a word.
  let total = (4 + 6 * p.jumpBy.length) * p.words;
  for (let k = 0; k < p.groups.length; k += 6) {
    total += 8 + p.groups[k + 1] - p.groups[k] + p.groups[k + 4] - p.groups[k + 3];
  }
  const count = p.asserts.length / ASSERT_INTS;
  for (let k = 0; k < p.asserts.length; k += ASSERT_INTS) {
    total += 10 + Math.max(0, p.asserts[k + 3] - p.asserts[k + 2]);
  }
  if (p.back) total += count * count;
  return total;
}

/** The edges of `b` sorted by how the runtime follows them. */
interface Edges {
  shift: Int32Array;
  loop: Int32Array;
  final: Int32Array;
  jumps: Map<number, Int32Array>;
  /** Groups by source set: sources, targets. */
  grouped: Map<string, [number[], number[]]>;
  /** Each assertion's targets. */
  assertTargets: Map<number, number[]>;
}

function sortEdges(b: Builder, words: number, end: number, jumping: boolean): Edges {
  const e: Edges = {
    shift: new Int32Array(words),
    loop: new Int32Array(words),
    final: new Int32Array(words),
    jumps: new Map(),
    grouped: new Map(),
    assertTargets: new Map(),
  };
  for (const [from, all] of b.edges) {
    // Reaching the end is a mask of its own: as a target it would stretch spans.
    const to = all.filter((q) => q !== end);
    const consuming: number[] = [];
    for (const p of from) {
      if (b.kinds[p] === CONSUMING) {
        consuming.push(p);
        if (to.length < all.length) e.final[p >> 5] |= 1 << (p & 31);
      } else {
        e.assertTargets.set(p, [...(e.assertTargets.get(p) ?? []), ...to]);
        if (to.length < all.length) b.finalAsserts.add(p);
      }
    }
    if (consuming.length === 0) continue;
    if (jumping && jumpAll(consuming, to, e.shift, e.loop, e.jumps, words)) continue;
    let rest = to;
    if (consuming.length === 1) {
      const p = consuming[0];
      if (to.includes(p + 1)) e.shift[p >> 5] |= 1 << (p & 31);
      if (to.includes(p)) e.loop[p >> 5] |= 1 << (p & 31);
      rest = to.filter((q) => q !== p && q !== p + 1);
    }
    if (rest.length === 0) continue;
    const key = consuming.join(",");
    const entry = e.grouped.get(key);
    if (entry) entry[1].push(...rest);
    else e.grouped.set(key, [consuming, [...rest]]);
  }
  return e;
}

type Alphabet = ReturnType<typeof alphabet>;

function layout(b: Builder, first: number[], chars: Alphabet, jumping: boolean): Program {
  const words = (b.ranges.length + 31) >> 5;
  const e = sortEdges(b, words, b.end, jumping);
  const spans: number[] = [];
  const span = (set: number[]): [number, number, number] => {
    if (set.length === 0) return [0, -1, 0];
    const lo = Math.min(...set) >> 5;
    const hi = Math.max(...set) >> 5;
    const offset = spans.length;
    for (let w = lo; w <= hi; w++) spans.push(0);
    for (const p of set) spans[offset + (p >> 5) - lo] |= 1 << (p & 31);
    return [lo, hi, offset];
  };
  const groups = [...e.grouped.values()].flatMap(([from, to]) => [...span(from), ...span(to)]);
  const jumpBy = [...e.jumps.keys()].sort((x, y) => x - y);
  const asserts: number[] = [];
  let back = false;
  for (const [p, to] of [...e.assertTargets].sort((x, y) => x[0] - y[0])) {
    asserts.push(p, b.kinds[p], ...span(to), b.finalAsserts.has(p) ? 1 : 0);
    if (to.some((q) => q <= p && b.kinds[q] !== CONSUMING && b.kinds[q] !== END)) back = true;
  }
  return {
    words,
    end: b.end,
    first: bits(first, words),
    assertMask: bits(b.kinds.flatMap((k, p) => (k === CONSUMING || k === END ? [] : [p])), words),
    lead: leadOf(chars.masks, words, leaders(b, first, e.assertTargets)),
    shift: e.shift,
    loop: e.loop,
    final: e.final,
    jumpBy: Int32Array.from(jumpBy),
    jumpMasks: Int32Array.from(jumpBy.flatMap((k) => [...e.jumps.get(k)!])),
    groups: Int32Array.from(groups),
    spans: Int32Array.from(spans),
    asserts: Int32Array.from(asserts),
    back,
    ...chars,
  };
}

/** Edges this short forward become a shifted mask, not a group. */
const MAX_JUMP = 31;
/** Larger edges (sources times targets) stay groups: a group is one test. */
const MAX_JUMP_PAIRS = 16;

/**
 * Records the edge `from` -> `to` as per-distance masks (0 the loop mask,
 * 1 the shift mask, up to {@link MAX_JUMP} a jump mask) when every pair is
 * that close ahead; false, recording nothing, otherwise.
 */
function jumpAll(
  from: number[],
  to: number[],
  shift: Int32Array,
  loop: Int32Array,
  jumps: Map<number, Int32Array>,
  words: number,
): boolean {
  if (from.length * to.length > MAX_JUMP_PAIRS) return false;
  if (!from.every((p) => to.every((q) => q >= p && q - p <= MAX_JUMP))) return false;
  for (const p of from) {
    for (const q of to) {
      const k = q - p;
      const mask = k === 0 ? loop : k === 1 ? shift : jumps.get(k) ?? new Int32Array(words);
      if (k > 1) jumps.set(k, mask);
      mask[p >> 5] |= 1 << (p & 31);
    }
  }
  return true;
}

/**
 * The consuming positions reachable from `first` through assertions (as
 * if every assertion held), or null when the end is: a match can be empty.
 */
function leaders(b: Builder, first: number[], follow: Map<number, number[]>): number[] | null {
  const seen = new Set<number>();
  const out: number[] = [];
  const stack = [...first];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    if (b.kinds[p] === END) return null;
    if (b.kinds[p] === CONSUMING) out.push(p);
    else stack.push(...(follow.get(p) ?? []), ...(b.finalAsserts.has(p) ? [b.end] : []));
  }
  return out;
}

/** Per mask: 1 when it holds one of `positions` (every mask when null). */
function leadOf(masks: Int32Array, words: number, positions: number[] | null): Uint8Array {
  const count = masks.length / words;
  const out = new Uint8Array(count);
  for (let m = 0; m < count; m++) {
    out[m] = positions === null ||
        positions.some((p) => (masks[m * words + (p >> 5)] & (1 << (p & 31))) !== 0)
      ? 1
      : 0;
  }
  return out;
}

function bits(set: number[], words: number): Int32Array {
  const out = new Int32Array(words);
  for (const p of set) out[p >> 5] |= 1 << (p & 31);
  return out;
}

/**
 * Splits the code points into intervals no set boundary falls inside, and
 * gives each the mask of the positions accepting it (identical masks shared).
 */
function alphabet(ranges: (number[] | null)[], words: number) {
  // Copies of a repetition share their set: one bitset per distinct set,
  // toggled at its boundaries (sets hold disjoint positions).
  const owners = new Map<number[], Int32Array>();
  ranges.forEach((set, p) => {
    if (set === null) return;
    const bits = owners.get(set) ?? new Int32Array(words);
    bits[p >> 5] |= 1 << (p & 31);
    owners.set(set, bits);
  });
  const events = new Map<number, [Int32Array, boolean][]>([[0, []]]);
  const at = (c: number) => events.get(c) ?? (events.set(c, []), events.get(c)!);
  for (const [set, bits] of owners) {
    for (let i = 0; i < set.length; i += 2) {
      at(set[i]).push([bits, true]);
      at(set[i + 1] + 1).push([bits, false]);
    }
  }
  const breaks = [...events.keys()].sort((x, y) => x - y);
  const live = new Int32Array(words);
  const index = new Map<string, number>();
  const masks: number[] = [];
  const intervalMask: number[] = [];
  for (const c of breaks) {
    for (const [bits, on] of events.get(c)!) {
      for (let w = 0; w < words; w++) live[w] = on ? live[w] | bits[w] : live[w] & ~bits[w];
    }
    const key = live.join(",");
    let id = index.get(key);
    if (id === undefined) {
      id = index.size;
      index.set(key, id);
      masks.push(...live);
    }
    intervalMask.push(id);
  }
  const ascii = new Int32Array(128);
  for (let c = 0, j = 0; c < 128; c++) {
    while (j + 1 < breaks.length && breaks[j + 1] <= c) j++;
    ascii[c] = intervalMask[j];
  }
  return {
    ascii,
    breaks: Int32Array.from(breaks),
    intervalMask: Int32Array.from(intervalMask),
    masks: Int32Array.from(masks),
  };
}
