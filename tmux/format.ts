/**
 * Building tmux format strings and parsing what tmux prints for them.
 *
 * Every text field is printed through tmux's `q:` modifier, which puts a
 * backslash before `\\`, `<`, `|`, `>` and other shell characters in the
 * value. So an unescaped `<`, `|` or `>` can only come from the format
 * itself: they mark records and fields, and nothing a program in a pane
 * controls (its path, title, command name) can forge them. tmux 3.4 and
 * newer then print control characters as `\ooo` or `\n`-style escapes
 * (3.3a prints them raw); `q:` never puts a backslash before a digit or
 * such a letter, so one reading serves both (docs/tmux-quirks.md).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { CUT_MARK, CUT_MARK_BYTES, keepHeadBytes } from "./utf8.ts";

const RECORD_START = "<";
const FIELD_SEP = "|";
const RECORD_END = ">";

/** A typed field of a format: the tmux variable and how to read its text. */
export interface Field<T> {
  /** The tmux format variable, e.g. `pane_id`, or a complete `#{...}` expression. */
  readonly variable: string;
  /** Converts the printed text into the field's value. */
  readonly parse: (raw: string) => T;
  /** Printed through `q:`: any text. Unquoted fields print only digits or flags. */
  readonly quoted?: boolean;
}

/** A record description: result key to field. */
export type Schema = Record<string, Field<unknown>>;

/** The value type a {@link Schema} parses into. */
export type Row<S extends Schema> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** Text as printed. */
export function text(variable: string): Field<string> {
  return { variable, parse: (raw) => raw, quoted: true };
}

/** Text, or null when tmux printed nothing. */
export function optionalText(variable: string): Field<string | null> {
  return { variable, parse: (raw) => (raw === "" ? null : raw), quoted: true };
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
  return { variable, parse: cutLabel, quoted: true };
}

/** {@link label}, or null when tmux printed nothing. */
export function optionalLabel(variable: string): Field<string | null> {
  return { variable, parse: (raw) => (raw === "" ? null : cutLabel(raw)), quoted: true };
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
  const parts = Object.values(schema).map(fieldFormat);
  return RECORD_START + parts.join(FIELD_SEP) + RECORD_END;
}

function fieldFormat(field: Field<unknown>): string {
  const expression = field.variable.startsWith("#{");
  if (field.quoted && expression) {
    throw new Error(`text field ${field.variable} must be a variable`);
  }
  if (expression) return field.variable;
  return field.quoted ? `#{q:${field.variable}}` : `#{${field.variable}}`;
}

/** Parses tmux output printed with {@link formatOf}`(schema)` into rows. */
export function parseRows<S extends Schema>(schema: S, output: string): Row<S>[] {
  return parseRecords(output).map((values) => rowOf(schema, values));
}

/** One record's field values (from {@link parseRecords}) read as a row of `schema`. */
export function rowOf<S extends Schema>(schema: S, values: string[]): Row<S> {
  const keys = Object.keys(schema);
  if (values.length !== keys.length) {
    throw new FormatError(`a record had ${values.length} fields, expected ${keys.length}`);
  }
  const row: Record<string, unknown> = {};
  keys.forEach((key, i) => (row[key] = schema[key].parse(values[i])));
  return row as Row<S>;
}

const SPECIAL = /[\\<|>]/g;

/**
 * The records of output printed with formats from {@link formatOf} (one or
 * several per line), each as its fields' values with escapes undone.
 */
export function parseRecords(output: string): string[][] {
  const records: string[][] = [];
  let fields: string[] | null = null;
  let value = "";
  let at = 0;
  for (const match of output.matchAll(SPECIAL)) {
    const i = match.index;
    if (i < at) continue; // the character after a backslash, already read
    const before = output.slice(at, i);
    if (fields === null) {
      if (before.trim() !== "" || match[0] !== RECORD_START) throw outside(before, match[0]);
      fields = [];
      at = i + 1;
      continue;
    }
    value += before;
    if (match[0] === "\\") {
      const [text, length] = unescapeAt(output, i);
      value += text;
      at = i + length;
    } else if (match[0] === RECORD_START) {
      throw new FormatError("a record started inside another");
    } else {
      fields.push(value);
      value = "";
      at = i + 1;
      if (match[0] === RECORD_END) {
        records.push(fields);
        fields = null;
      }
    }
  }
  if (fields !== null) throw new FormatError("the output ended inside a record");
  if (output.slice(at).trim() !== "") {
    throw new FormatError("unexpected text after the last record");
  }
  return records;
}

/**
 * The text of each record in output printed with several formats at once
 * (e.g. `-P -F` with a window's and a pane's format), in order, for
 * {@link parseRows} with each format's schema.
 */
export function splitRecords(output: string): string[] {
  const texts: string[] = [];
  let start = -1;
  let skip = -1;
  for (const match of output.matchAll(SPECIAL)) {
    const i = match.index;
    if (i <= skip) continue;
    if (match[0] === "\\") skip = i + 1;
    else if (match[0] === RECORD_START && start === -1) start = i;
    else if (match[0] === RECORD_END && start !== -1) {
      texts.push(output.slice(start, i + 1));
      start = -1;
    }
  }
  return texts;
}

function outside(before: string, next: string): FormatError {
  return new FormatError(
    before.trim() !== "" || next === "\\"
      ? "unexpected text before a record"
      : `a record marker ${next} outside a record`,
  );
}

/** C-style escapes tmux 3.4+ prints for control characters (vis(3) with VIS_CSTYLE). */
const C_STYLE: Record<string, string> = {
  n: "\n",
  r: "\r",
  b: "\b",
  a: "\x07",
  v: "\v",
  t: "\t",
  f: "\f",
  s: " ",
  e: "\x1b",
  E: "\x1b",
};

const OCTAL_RUN = /(?:\\[0-7]{1,3})+/y;
const bytesDecoder = new TextDecoder();

/**
 * Reads the escape at `output[at]` (a backslash): `q:`'s backslash before a
 * character, or tmux 3.4+'s escape of a control character or of a byte that
 * is not UTF-8 (a run of those is decoded together, as the raw bytes would
 * be). Returns the text and the escape's length.
 */
export function unescapeAt(output: string, at: number): [string, number] {
  const next = output[at + 1] ?? "";
  if (next >= "0" && next <= "7") {
    OCTAL_RUN.lastIndex = at;
    const run = OCTAL_RUN.exec(output)![0];
    const bytes = run.split("\\").slice(1).map((digits) => parseInt(digits, 8) & 0xff);
    return [bytesDecoder.decode(new Uint8Array(bytes)), run.length];
  }
  if (next in C_STYLE) return [C_STYLE[next], 2];
  return [next, 2];
}

/** tmux printed something the parser cannot read. */
export class FormatError extends TmuxError {
  /** `detail` says what was wrong with the output (never the output itself). */
  constructor(detail: string) {
    super(
      "failed",
      `could not read tmux's output: ${detail}`,
      "A tmux hook that prints (set-hook with display-message -p or run-shell) does this on the " +
        "process transport: use the control one. Else it is a bug in tmux-mcp: please report " +
        "it with the tool, its arguments and `tmux -V`.",
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
