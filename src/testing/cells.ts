// Cells of a screen row, one per column, from session.screen's styled runs.
import type { CellColor, CellRun } from "../protocol/schemas.ts";

export interface Cell {
  /** The character in the cell ("" for the second column of a wide character, " " for a blank). */
  char: string;
  /** Columns it takes: 1, 2 for a wide character, 0 for the column a wide character's left half covers. */
  width: number;
  /** A palette index (0-255), "#rrggbb", or null for the default colour. */
  fg: CellColor | null;
  bg: CellColor | null;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

const BLANK: Cell = { char: " ", width: 1, fg: null, bg: null, bold: false, italic: false, underline: false, inverse: false };

/** The row's `cols` cells, blanks where no run reaches. */
export function rowCells(runs: CellRun[], cols: number): Cell[] {
  const cells: Cell[] = Array.from({ length: cols }, () => BLANK);
  for (const r of runs) {
    const style = {
      fg: r.fg ?? null,
      bg: r.bg ?? null,
      bold: !!r.bold,
      italic: !!r.italic,
      underline: !!r.underline,
      inverse: !!r.inverse,
    };
    if (r.cluster) {
      if (r.col < cols) cells[r.col] = { char: r.text, width: r.w, ...style };
      for (let i = 1; i < r.w && r.col + i < cols; i++) cells[r.col + i] = { char: "", width: 0, ...style };
    } else {
      for (let i = 0; i < r.w && r.col + i < cols; i++) cells[r.col + i] = { char: r.text[i] ?? " ", width: 1, ...style };
    }
  }
  return cells;
}

/** Where `text` occurs in a row of cells: the columns each occurrence starts at. */
export function findInCells(cells: Cell[], text: string | RegExp): { col: number; cols: number }[] {
  // The row as a string, with the column each of its UTF-16 units came from.
  let s = "";
  const colOf: number[] = [];
  cells.forEach((c, col) => {
    for (let i = 0; i < c.char.length; i++) colOf.push(col);
    s += c.char;
  });
  colOf.push(cells.length);
  const out: { col: number; cols: number }[] = [];
  const re =
    typeof text === "string"
      ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g")
      : new RegExp(text.source, text.flags.includes("g") ? text.flags : text.flags + "g");
  for (const m of s.matchAll(re)) {
    if (m[0].length === 0) continue;
    const start = colOf[m.index]!;
    const end = colOf[m.index + m[0].length - 1]!;
    out.push({ col: start, cols: end - start + 1 });
  }
  return out;
}
