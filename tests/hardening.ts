/**
 * Shared pieces of the hardening tests (sweep, concurrency, faults, leaks):
 * a seeded PRNG, validation against the JSON Schemas the server lists, a
 * multi-session topology fixture, and process-table probes (ps)
 * for what a server leaves behind.
 *
 * @module
 */

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { type ProcessRow, processTable, TmuxFixture } from "./harness.ts";

/** mulberry32: a tiny seeded PRNG, so a failing sweep can be replayed exactly. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A JSON Schema object as `tools/list` carries it. */
export type Schema = Record<string, unknown>;

// zod writes JSON Schema 2020-12 (the server drops the `$schema` line);
// nullable fields are `type: [T, "null"]`, a union ajv accepts when told.
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
const compiled = new WeakMap<Schema, ValidateFunction>();

/** What is wrong with `value` against `schema` (ajv, compiled once per schema), one line each. */
export function validate(schema: Schema, value: unknown): string[] {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  if (check(value)) return [];
  return (check.errors ?? []).map((e) => `$${e.instancePath}: ${e.message}`);
}

/** Ids of a topology, as tmux lists them. */
export interface Topology {
  /** Session ids (`$N`). */
  sessions: string[];
  /** Session names. */
  names: string[];
  /** Window ids (`@N`). */
  windows: string[];
  /** Pane ids (`%N`). */
  panes: string[];
}

/** Reads the fixture's sessions, windows and panes; empty lists when no server runs. */
export async function readTopology(fx: TmuxFixture): Promise<Topology> {
  let rows: string[];
  try {
    rows = (await fx.tmux(
      "list-panes",
      "-a",
      "-F",
      "#{session_id}\t#{window_id}\t#{pane_id}\t#{session_name}",
    )).split("\n").filter((row) => row !== "");
  } catch {
    rows = [];
  }
  const unique = (i: number) => [...new Set(rows.map((row) => row.split("\t")[i]))];
  return { sessions: unique(0), windows: unique(1), panes: unique(2), names: unique(3) };
}

/**
 * A fixture with two sessions (`alpha`: two windows, the first split in two;
 * `beta`: two windows, the second split in two), kept alive without sessions.
 */
export async function startTopology(): Promise<TmuxFixture> {
  const fx = await TmuxFixture.start({ session: "alpha", width: 120, height: 40 });
  await fx.tmux(
    ...["set-option", "-s", "exit-empty", "off", ";"],
    ...["split-window", "-d", "-t", "alpha:0", ";"],
    ...["new-window", "-d", "-t", "alpha", ";"],
    ...["new-session", "-d", "-s", "beta", "-x", "120", "-y", "40", ";"],
    ...["new-window", "-d", "-t", "beta", ";"],
    ...["split-window", "-d", "-t", "beta:1"],
  );
  return fx;
}

/** Processes whose command line mentions `socketPath`, other than `serverPid`. */
export async function socketProcesses(
  socketPath: string,
  serverPid: number,
): Promise<ProcessRow[]> {
  return (await processTable()).filter((p) => p.pid !== serverPid && p.args.includes(socketPath));
}

/** Resident set size (VmRSS) of `pid` in KiB. */
export async function rssKiB(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  const value = Number(new TextDecoder().decode(out.stdout).trim());
  if (!out.success || !Number.isFinite(value) || value <= 0) throw new Error(`no RSS for ${pid}`);
  return value;
}

/**
 * Polls `probe` until it finds nothing or 15 s pass, and returns the last
 * finding: reaping follows an answer closely, and the poll ends at the first
 * empty result (the deadline only bounds a real leak).
 */
export async function settled<T>(probe: () => Promise<T[]>): Promise<T[]> {
  const deadline = Date.now() + 15_000;
  let found = await probe();
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = await probe();
  }
  return found;
}

/** Rejects with `what` when `promise` has not settled within `ms` (a failure bound). */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
