// A screen as numbered rows of text: the frame both MCP's screens (for agents) and termd/testing's
// failure messages (for people) draw, each with its own marks around it.

export interface NumberedRows {
  /** The rows to print, in order: index into the lines, and its number padded to one width. */
  rows: { index: number; label: string }[];
  /** The last row printed (from - 1 when none is): the rows after it up to `to` are blank. */
  last: number;
  /** How wide a number is: the padding for lines drawn between the rows. */
  width: number;
}

/**
 * Rows [from, to) of `lines` without the blank rows at the end (a row `keep` names is kept, blank or
 * not: the cursor's, a highlighted one), numbered `index - firstRow` (scrollback rows above the
 * screen come out negative), every number padded to the widest in the range.
 */
export function numberedRows(
  lines: readonly string[],
  opts: { from?: number; to?: number; firstRow?: number; keep?: (index: number) => boolean } = {},
): NumberedRows {
  const { from = 0, to = lines.length, firstRow = 0, keep = () => false } = opts;
  const width = Math.max(String(from - firstRow).length, String(to - 1 - firstRow).length);
  let last = to - 1;
  while (last >= from && lines[last]!.trim() === "" && !keep(last)) last--;
  const rows: NumberedRows["rows"] = [];
  for (let i = from; i <= last; i++) rows.push({ index: i, label: String(i - firstRow).padStart(width) });
  return { rows, last, width };
}
