/**
 * Mapping lines that tmux joined (`capture-pane -J`) back to the screen rows
 * they start on, so a search can join wrapped lines and still report rows.
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
