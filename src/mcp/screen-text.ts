// Screens as an LLM reads them: numbered rows (0-based, as click and the native protocol count
// them), the cursor marked in place, blank rows at the bottom summed up instead of printed.
import type { ScreenSnapshot } from "../protocol/schemas.ts";
import { numberedRows } from "../render/numbered-rows.ts";

/** Drawn where the cursor is: inserted before the cell it is on, so the row reads one longer. */
const CURSOR_MARK = "▮";

/** A row as the agent reads it: numbered, trailing spaces trimmed (a full-screen app pads its rows). */
function numbered(row: number, text: string, width: number): string {
  return `${String(row).padStart(width)}│${text}`.trimEnd();
}

/** A row's text with the cursor mark inserted at `col` (padding the row with spaces up to it). */
function withCursor(line: string, col: number): string {
  const chars = [...line.trimEnd()];
  while (chars.length < col) chars.push(" ");
  chars.splice(col, 0, CURSOR_MARK);
  return chars.join("");
}

/** One line about the screen: size, cursor, title, buffer. */
export function header(name: string, s: Pick<ScreenSnapshot, "size" | "cursor" | "title" | "alternate" | "seq">): string {
  const parts = [`session ${name}: ${s.size.rows}x${s.size.cols}`];
  parts.push(
    s.cursor.visible
      ? `cursor at row ${s.cursor.row}, col ${s.cursor.col} (${CURSOR_MARK})`
      : `cursor hidden (row ${s.cursor.row}, col ${s.cursor.col})`,
  );
  if (s.title) parts.push(`title ${JSON.stringify(s.title)}`);
  if (s.alternate) parts.push("full-screen app (alternate screen)");
  parts.push(`seq ${s.seq}`);
  return parts.join(", ");
}

/** Rows [from, to) of the screen, numbered, the cursor marked; trailing blank rows summed up. */
function rowsText(s: Pick<ScreenSnapshot, "lines" | "cursor">, from = 0, to = s.lines.length, firstRow = 0): string {
  const cursorRow = s.cursor.visible ? s.cursor.row + firstRow : -1;
  const { rows, last } = numberedRows(s.lines, { from, to, firstRow, keep: (i) => i === cursorRow });
  const out = rows.map(({ index, label }) =>
    `${label}│${index === cursorRow ? withCursor(s.lines[index]!, s.cursor.col) : s.lines[index]!}`.trimEnd(),
  );
  if (last < to - 1)
    out.push(last + 1 === to - 1 ? `(row ${to - 1 - firstRow} is blank)` : `(rows ${last + 1 - firstRow}-${to - 1 - firstRow} are blank)`);
  return out.join("\n");
}

/** The whole screen for read_screen. `scrollback_lines` rows above it come first, numbered negative. */
export function screenText(name: string, s: ScreenSnapshot): string {
  return `${header(name, s)}\n${rowsText(s, 0, s.lines.length, s.scrollback_lines)}`;
}

/** Only changed rows (session.screen's since_seq), numbered as on the screen. */
export function changesText(name: string, since: number, s: ScreenSnapshot): string {
  const changed = s.changed ?? [];
  if (changed.length === 0) return `${header(name, s)}\nnothing changed since your last read (seq ${since})`;
  const width = String(s.size.rows - 1).length;
  const isCursor = (row: number) => s.cursor.visible && row === s.cursor.row;
  // Rows that became blank are summed up as read_screen sums up the blank rows at the end, one line
  // per run of them (a program that left the alternate screen clears every row).
  const lines: string[] = [];
  for (let i = 0; i < changed.length; ) {
    const { row, text } = changed[i]!;
    let j = i;
    while (j < changed.length && changed[j]!.text.trim() === "" && !isCursor(changed[j]!.row) && changed[j]!.row === row + (j - i)) j++;
    if (j > i) {
      const last = changed[j - 1]!.row;
      lines.push(last === row ? `(row ${row} is blank)` : `(rows ${row}-${last} are blank)`);
      i = j;
      continue;
    }
    lines.push(numbered(row, isCursor(row) ? withCursor(text, s.cursor.col) : text, width));
    i++;
  }
  const what = s.full
    ? "every row (your last read was before this screen existed)"
    : `${changed.length} row${changed.length === 1 ? "" : "s"} changed since your last read (seq ${since})`;
  return `${header(name, s)}\n${what}:\n${lines.join("\n")}`;
}

/** About `context` rows around `row` (the matched row), numbered. */
export function around(s: ScreenSnapshot, row: number, context = 20): string {
  const half = Math.floor(context / 2);
  let from = Math.max(0, row - half);
  const to = Math.min(s.lines.length, from + context + 1);
  from = Math.max(0, to - context - 1);
  return rowsText(s, from, to);
}

/** The last `count` rows that hold anything (and the cursor's), for timeouts and exits. */
export function tail(s: ScreenSnapshot, count = 20): string {
  const last = Math.max(0, numberedRows(s.lines, { keep: (i) => s.cursor.visible && i === s.cursor.row }).last);
  return rowsText(s, Math.max(0, last + 1 - count), last + 1);
}
