// A screen snapshot (session.screen's cells) drawn as SVG: one fixed grid of CELL_W × CELL_H
// pixels, backgrounds as rectangles, text placed cell by cell. Every character sits at the column
// the screen gave it (x positions per character, a wide or combined one centred on its cells), so
// the picture uses the screen's own width table (xterm's Unicode 11) and a glyph of another width
// in a fallback font never shifts the rest of its line.
//
// Drawn: 16/256/truecolour foreground and background, the default colours, inverse, bold (also
// brightening colours 0-7), italic, dim, underline, strikethrough, hidden text, and a visible
// cursor as a block (the cell drawn in reverse). Blink is drawn steady; the cursor's shape is
// always a block (termd does not track DECSCUSR).
import type { CellRun, ScreenSnapshot } from "../protocol/schemas.ts";
import { CURSOR, DEFAULT_BG, DEFAULT_FG, resolve } from "./palette.ts";

export const CELL_W = 9;
export const CELL_H = 18;
const FONT_SIZE = 15;
/** The text baseline below a row's top: DejaVu Sans Mono's ascent (0.928 em) at FONT_SIZE, rounded. */
const BASELINE = 14;
/** The shipped fonts (assets/fonts), first choice first: a browser falls back the same way resvg does. */
const FONT_FAMILY = "DejaVu Sans Mono, Droid Sans Fallback, Symbola, monospace";

export type RenderableScreen = Pick<ScreenSnapshot, "size" | "cursor" | "cells"> & { title?: string };

/** One cell (or a wide character's cells) with its colours resolved. */
interface Cell {
  col: number;
  w: number;
  text: string;
  /** A wide or combined character: centred on its cells rather than placed by the grid. */
  cluster: boolean;
  fg: string;
  bg: string;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  underline: boolean;
  strike: boolean;
  hidden: boolean;
}

/** Characters XML 1.0 cannot hold (controls, lone surrogates, U+FFFE/U+FFFF) are left out. */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(text: string): string {
  return text.replace(NOT_XML, "").replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** A run's cells, one per grid cell (a cluster stays one cell `w` wide), colours resolved. */
function cellsOf(run: CellRun): Cell[] {
  const brighten = run.bold === true && typeof run.fg === "number";
  let fg = resolve(run.fg, brighten) ?? DEFAULT_FG;
  let bg = resolve(run.bg) ?? DEFAULT_BG;
  if (run.inverse) [fg, bg] = [bg, fg];
  const base = {
    fg,
    bg,
    bold: !!run.bold,
    italic: !!run.italic,
    dim: !!run.dim,
    underline: !!run.underline,
    strike: !!run.strike,
    hidden: !!run.hidden,
  };
  if (run.cluster) return [{ col: run.col, w: run.w, text: run.text, cluster: true, ...base }];
  return Array.from(run.text, (ch, i) => ({ col: run.col + i, w: 1, text: ch, cluster: false, ...base }));
}

/** Groups consecutive items that share a key. */
function groups<T>(items: T[], key: (t: T) => string): T[][] {
  const out: T[][] = [];
  let last: string | null = null;
  for (const it of items) {
    const k = key(it);
    if (k === last) out.at(-1)!.push(it);
    else out.push([it]);
    last = k;
  }
  return out;
}

const px = (n: number) => String(Math.round(n * 100) / 100);

function drawRow(row: number, cells: Cell[], out: { bg: string[]; text: string[]; deco: string[] }): void {
  const top = row * CELL_H;
  // Backgrounds: one rectangle per stretch of touching cells of one non-default colour.
  for (const g of groups(cells, (c) => c.bg)) {
    const bg = g[0]!.bg;
    if (bg === DEFAULT_BG) continue;
    let start = g[0]!.col;
    let end = start;
    for (const c of g) {
      if (c.col !== end) {
        out.bg.push(`<rect x="${start * CELL_W}" y="${top}" width="${(end - start) * CELL_W}" height="${CELL_H}" fill="${bg}"/>`);
        start = c.col;
      }
      end = c.col + c.w;
    }
    out.bg.push(`<rect x="${start * CELL_W}" y="${top}" width="${(end - start) * CELL_W}" height="${CELL_H}" fill="${bg}"/>`);
  }
  const visible = cells.filter((c) => !c.hidden);
  // Text: narrow characters of one style in one <text>, each at its own x.
  const style = (c: Cell) => `${c.fg}|${c.bold}|${c.italic}|${c.dim}`;
  const attrs = (c: Cell) =>
    `fill="${c.fg}"${c.bold ? ' font-weight="bold"' : ""}${c.italic ? ' font-style="italic"' : ""}${c.dim ? ' fill-opacity="0.5"' : ""}`;
  const y = top + BASELINE;
  for (const g of groups(
    visible.filter((c) => c.text.trim() !== ""),
    (c) => (c.cluster ? `cluster ${c.col}` : style(c)),
  )) {
    const c0 = g[0]!;
    if (c0.cluster) {
      out.text.push(`<text x="${px((c0.col + c0.w / 2) * CELL_W)}" y="${y}" text-anchor="middle" ${attrs(c0)}>${xml(c0.text)}</text>`);
      continue;
    }
    const xs = g.map((c) => c.col * CELL_W).join(" ");
    out.text.push(`<text x="${xs}" y="${y}" ${attrs(c0)}>${xml(g.map((c) => c.text).join(""))}</text>`);
  }
  // Underline and strikethrough: a one-pixel line per stretch of one colour.
  for (const [flag, dy] of [
    ["underline", BASELINE + 2],
    ["strike", Math.round(CELL_H / 2)],
  ] as const) {
    for (const g of groups(
      visible.filter((c) => c[flag]),
      (c) => c.fg,
    )) {
      let start = g[0]!.col;
      let end = start;
      const line = () =>
        out.deco.push(`<rect x="${start * CELL_W}" y="${top + dy}" width="${(end - start) * CELL_W}" height="1" fill="${g[0]!.fg}"/>`);
      for (const c of g) {
        if (c.col !== end) {
          line();
          start = c.col;
        }
        end = c.col + c.w;
      }
      line();
    }
  }
}

/** The screen as an SVG document, CELL_W × cols by CELL_H × rows pixels. */
export function renderSvg(screen: RenderableScreen): string {
  const { rows, cols } = screen.size;
  const width = cols * CELL_W;
  const height = rows * CELL_H;
  const out = { bg: [] as string[], text: [] as string[], deco: [] as string[] };
  const runs = screen.cells ?? [];
  // The visible screen is the last `rows` lines (scrollback, if any, comes first).
  const first = Math.max(0, runs.length - rows);
  for (let row = 0; row < rows; row++) {
    const cells = (runs[first + row] ?? []).flatMap(cellsOf);
    const cur = screen.cursor;
    if (cur.visible && cur.row === row && cur.col < cols) {
      // The block cursor: the cell under it in reverse, or a bare block on an empty cell.
      const i = cells.findIndex((c) => c.col <= cur.col && cur.col < c.col + c.w);
      if (i >= 0) cells[i] = { ...cells[i]!, fg: cells[i]!.bg, bg: CURSOR };
      else {
        const at = cells.findIndex((c) => c.col > cur.col);
        const block: Cell = {
          col: cur.col,
          w: 1,
          text: " ",
          cluster: false,
          fg: DEFAULT_BG,
          bg: CURSOR,
          bold: false,
          italic: false,
          dim: false,
          underline: false,
          strike: false,
          hidden: false,
        };
        cells.splice(at < 0 ? cells.length : at, 0, block);
      }
    }
    drawRow(row, cells, out);
  }
  const title = screen.title ? `<title>${xml(screen.title)}</title>` : "";
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${FONT_FAMILY}" font-size="${FONT_SIZE}">${title}` +
    `<rect width="${width}" height="${height}" fill="${DEFAULT_BG}"/>` +
    `<g>${out.bg.join("")}</g><g>${out.deco.join("")}</g><g>${out.text.join("")}</g></svg>\n`
  );
}
