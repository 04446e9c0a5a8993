/**
 * Reading tmux's wrapped lines from two captures of the same rows, one with
 * `-N` (trailing spaces kept) and one with `-J` (the newline after a wrapped
 * row left out): search_panes maps joined lines back to the rows they start
 * on ({@link joinWrappedRows}); wait_for_text reads each row's wrap flag
 * ({@link wrapFlags}). They differ only on an empty row after a wrapped one,
 * which only the search must place (it needs the row; the wait only the text).
 *
 * @module
 */

/** A joined line and the row it starts on. */
export interface JoinedLine {
  /** Row of the line's first character: 0 is the top visible row, negative is history. */
  row: number;
  /** The whole logical line. */
  text: string;
}

/**
 * Pairs each line of `joined` (captured with -J) with the first of the
 * physical rows in `physical` (captured with -N, trailing spaces kept) that
 * it covers. `firstRow` is the row number of the first physical row.
 */
export function joinWrappedRows(physical: string, joined: string, firstRow: number): JoinedLine[] {
  const rows = physical === "" ? [] : physical.split("\n");
  const lines = joined === "" ? [] : joined.split("\n");
  const result: JoinedLine[] = [];
  let p = 0;
  for (const [i, text] of lines.entries()) {
    result.push({ row: firstRow + p, text });
    // tmux writes -J as the -N rows with the newline after each wrapped row
    // left out, so a line's rows concatenate to exactly its text. (Rows
    // trimmed of trailing spaces would not: a wrap at a space undercounts.)
    let covered = (rows[p] ?? "").length;
    p++;
    while (covered < text.length && p < rows.length) {
      covered += rows[p].length;
      p++;
    }
    // A wrapped row whose continuation was erased leaves an empty row that -J
    // still joins; an empty row cannot start a non-empty line, so it is one.
    while (p < rows.length && rows[p] === "" && (lines[i + 1] ?? "") !== "") p++;
  }
  return result;
}

/**
 * Which of `padded` (rows captured with `-N`: trailing spaces kept) tmux
 * wrapped onto the next row, read off `joined` (the same rows captured with
 * `-J`, which leaves out the newline after a wrapped row). Undefined when
 * the two do not describe the same rows. An empty row after a wrapped one
 * may be assigned the other way round; the joined text is the same.
 */
export function wrapFlags(padded: readonly string[], joined: string): boolean[] | undefined {
  const flags: boolean[] = [];
  let at = 0;
  for (let i = 0; i < padded.length; i++) {
    if (!joined.startsWith(padded[i], at)) return undefined;
    at += padded[i].length;
    const last = i === padded.length - 1;
    const wraps = !last && joined[at] !== "\n";
    if (!wraps && !last) at++;
    flags.push(wraps);
  }
  const rest = joined.slice(at);
  return rest === "" || rest === "\n" ? flags : undefined;
}
