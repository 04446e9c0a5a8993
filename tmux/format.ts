/**
 * Building tmux format strings and parsing what tmux prints for them.
 *
 * Values may contain tabs, spaces, newlines, `;` and bytes that are not
 * UTF-8 (a pane's current path can hold anything a file name can), so fields
 * are separated by a control character followed by a random token chosen per
 * process, and every record starts with its own marker. A value would have to
 * contain the token to confuse the parser, and the token never leaves this
 * process except inside the format string tmux expands.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { CUT_MARK, CUT_MARK_BYTES, keepHeadBytes } from "./utf8.ts";

const TOKEN = crypto.getRandomValues(new Uint32Array(2)).reduce(
  (text, n) => text + n.toString(16).padStart(8, "0"),
  "",
);
const FIELD_SEP = `\x1f${TOKEN}|`;
const RECORD_START = `\x1e${TOKEN}|`;

/** A typed field of a format: the tmux variable and how to read its text. */
export interface Field<T> {
  /** The tmux format variable, e.g. `pane_id`, or a complete `#{...}` expression. */
  readonly variable: string;
  /** Converts the printed text into the field's value. */
  readonly parse: (raw: string) => T;
}

/** A record description: result key to field. */
export type Schema = Record<string, Field<unknown>>;

/** The value type a {@link Schema} parses into. */
export type Row<S extends Schema> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** Text as printed. */
export function text(variable: string): Field<string> {
  return { variable, parse: (raw) => raw };
}

/** Text, or null when tmux printed nothing. */
export function optionalText(variable: string): Field<string | null> {
  return { variable, parse: (raw) => (raw === "" ? null : raw) };
}

/**
 * The most UTF-8 bytes a {@link label} keeps, its cut mark included: programs
 * set labels (pane title, running command, window name) to any length, and
 * one pane's view must fit the smallest --max-bytes. Session names are no
 * labels: they are set only through tmux commands and are looked up by name.
 */
export const LABEL_MAX_BYTES = 256;

/**
 * Text of at most {@link LABEL_MAX_BYTES} UTF-8 bytes: a longer value keeps
 * its start and ends in {@link CUT_MARK}, which the bound includes. For
 * labels a program can make as long as it likes (a title set by an escape
 * sequence), so one object's view always fits a result.
 */
export function label(variable: string): Field<string> {
  return { variable, parse: cutLabel };
}

/** {@link label}, or null when tmux printed nothing. */
export function optionalLabel(variable: string): Field<string | null> {
  return { variable, parse: (raw) => (raw === "" ? null : cutLabel(raw)) };
}

function cutLabel(raw: string): string {
  // Three UTF-8 bytes per UTF-16 unit at most: shorter strings need no encoding.
  if (raw.length * 3 <= LABEL_MAX_BYTES) return raw;
  const head = keepHeadBytes(raw, LABEL_MAX_BYTES - CUT_MARK_BYTES);
  return head === raw ? raw : head + CUT_MARK;
}

/** An integer; NaN-free: an empty or odd value becomes 0. */
export function int(variable: string): Field<number> {
  return { variable, parse: (raw) => toInt(raw) ?? 0 };
}

/** An integer, or null when tmux printed nothing. */
export function optionalInt(variable: string): Field<number | null> {
  return { variable, parse: toInt };
}

/** A tmux flag (`1` is true). */
export function flag(variable: string): Field<boolean> {
  return { variable, parse: (raw) => raw === "1" };
}

function toInt(raw: string): number | null {
  if (!/^-?\d+$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** The tmux format string that prints one record of `schema` per object. */
export function formatOf(schema: Schema): string {
  const parts = Object.values(schema).map((field) =>
    field.variable.startsWith("#{") ? field.variable : `#{${field.variable}}`
  );
  return RECORD_START + parts.join(FIELD_SEP);
}

/** Parses tmux output printed with {@link formatOf}`(schema)` into rows. */
export function parseRows<S extends Schema>(schema: S, output: string): Row<S>[] {
  const keys = Object.keys(schema);
  const records = output.split(RECORD_START);
  if (records[0].trim() !== "") throw new FormatError("unexpected text before the first record");
  const rows: Row<S>[] = [];
  for (const record of records.slice(1)) {
    const body = record.endsWith("\n") ? record.slice(0, -1) : record;
    const values = body.split(FIELD_SEP);
    if (values.length !== keys.length) {
      throw new FormatError(`a record had ${values.length} fields, expected ${keys.length}`);
    }
    const row: Record<string, unknown> = {};
    keys.forEach((key, i) => (row[key] = schema[key].parse(values[i])));
    rows.push(row as Row<S>);
  }
  return rows;
}

/** tmux printed something the parser cannot read: a bug or an incompatible tmux. */
export class FormatError extends TmuxError {
  /** `detail` says what was wrong with the output. */
  constructor(detail: string) {
    super(
      "failed",
      `could not read tmux's output: ${detail}`,
      "Check that tmux is version 3.2 or newer; if it is, report this with the tmux version.",
    );
    this.name = "FormatError";
  }
}

/**
 * Escapes `#` so tmux treats a name, title or directory as text, not a
 * format. tmux copies a run of `#` followed by `[` (a style) as it is, so
 * such a run stays single; every other `#` is doubled.
 */
export function escapeFormat(value: string): string {
  return value.replace(
    /#+/g,
    (run, at: number) => value[at + run.length] === "[" ? run : run + run,
  );
}
