// A screen as text for people: the failure messages of waits and matchers (every row numbered,
// the cursor marked, the rows that matter highlighted) and the plain-text screen files.
import type { CellRun } from "../protocol/schemas.ts";
import { numberedRows } from "../render/numbered-rows.ts";
import { sgrParams } from "../render/sgr.ts";

export interface ScreenLike {
  lines: string[];
  cursor: { row: number; col: number; visible: boolean };
  size: { rows: number; cols: number };
  title?: string;
}

function colour(): boolean {
  return !process.env.NO_COLOR && (Boolean(process.env.FORCE_COLOR) || process.stderr.isTTY === true);
}

/** The header line of screen files and snapshots: size and cursor. */
function screenHeader(s: ScreenLike): string {
  return `# termd screen ${s.size.rows}x${s.size.cols}, cursor ${s.cursor.row},${s.cursor.col}${s.cursor.visible ? "" : " (hidden)"}`;
}

/** The screen as a file holds it: the header, then every row with its trailing blanks trimmed. */
export function screenFile(s: ScreenLike): string {
  return `${screenHeader(s)}\n${s.lines.map((l) => l.trimEnd()).join("\n")}\n`;
}

/**
 * The whole screen framed for a message: row numbers, `›` and (on a colour terminal) reverse video
 * for `highlight` rows, a caret under the cursor's cell. Blank rows after the last written row
 * and the cursor are folded into one line.
 */
export function renderScreen(s: ScreenLike, highlight: ReadonlySet<number> = new Set()): string {
  const { rows, last, width } = numberedRows(s.lines, { keep: (i) => i === s.cursor.row || highlight.has(i) });
  const on = colour();
  const out = [
    `  ${" ".repeat(width)}┌─ ${s.size.rows}x${s.size.cols}, cursor ${s.cursor.row},${s.cursor.col}${s.cursor.visible ? "" : " (hidden)"}${s.title ? `, title ${JSON.stringify(s.title)}` : ""}`,
  ];
  for (const { index: row, label } of rows) {
    const text = s.lines[row]!.trimEnd();
    const mark = highlight.has(row) ? "›" : " ";
    const body = highlight.has(row) && on ? `\x1b[7m${text}\x1b[27m` : text;
    out.push(`${mark} ${label}│${body}`);
    if (row === s.cursor.row && s.cursor.visible) out.push(`  ${" ".repeat(width)}│${" ".repeat(s.cursor.col)}^ cursor`);
  }
  const folded = s.lines.length - 1 - last;
  if (folded > 0) out.push(`  ${" ".repeat(width)}│… ${folded} blank row${folded === 1 ? "" : "s"}`);
  return out.join("\n");
}

/** One row of styled runs as text with SGR sequences (each run starts from the default style). */
function styledLine(runs: CellRun[]): string {
  let out = "";
  let col = 0;
  for (const r of runs) {
    if (r.col > col) out += " ".repeat(r.col - col);
    const params = sgrParams(r);
    out += params.length ? `\x1b[${params.join(";")}m${r.text}\x1b[0m` : r.text;
    col = r.col + r.w;
  }
  return out.trimEnd();
}

/** The style-aware screen file: the header, then each row with its colours and attributes as SGR. */
export function styledScreenFile(s: ScreenLike, cells: CellRun[][]): string {
  return `${screenHeader(s)} styled\n${cells.map(styledLine).join("\n")}\n`;
}
