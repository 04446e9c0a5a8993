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
 * physical rows in `physical` (captured without -J) that it covers.
 * `firstRow` is the row number of the first physical row.
 */
export function joinWrappedRows(physical: string, joined: string, firstRow: number): JoinedLine[] {
  const rows = physical === "" ? [] : physical.split("\n");
  const lines = joined === "" ? [] : joined.split("\n");
  const result: JoinedLine[] = [];
  let p = 0;
  for (const text of lines) {
    result.push({ row: firstRow + p, text });
    // A wrapped line's rows are full rows whose text concatenates to the
    // joined line (trailing spaces aside): consume rows until it is covered.
    const target = text.trimEnd().length;
    let covered = (rows[p] ?? "").length;
    p++;
    while (covered < target && p < rows.length) {
      covered += rows[p].length;
      p++;
    }
  }
  return result;
}
