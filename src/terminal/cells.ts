// A screen row as styled runs, for renderers that need more than the text (the interminai
// dialect writes its own SGR format from them). A run is a stretch of cells sharing one style.
// Narrow cells holding one UTF-16 unit are grouped, one unit per cell; any other cell (a wide
// character, an astral one, one with combining marks) is a run of its own marked `cluster`, so a
// reader finds the character under a column from `col` and `w` alone, without a width table that
// might disagree with the screen's.
import type { IBufferCell, IBufferLine } from "@xterm/headless";
import type { CellColor, CellRun, CellStyle } from "../protocol/schemas.ts";

function color(mode: { rgb: boolean; palette: boolean }, value: number): CellColor | undefined {
  if (mode.rgb) return "#" + value.toString(16).padStart(6, "0");
  if (mode.palette) return value;
  return undefined;
}

function styleOf(c: IBufferCell): CellStyle {
  const s: CellStyle = {};
  const fg = color({ rgb: c.isFgRGB(), palette: c.isFgPalette() }, c.getFgColor());
  const bg = color({ rgb: c.isBgRGB(), palette: c.isBgPalette() }, c.getBgColor());
  if (fg !== undefined) s.fg = fg;
  if (bg !== undefined) s.bg = bg;
  if (c.isBold()) s.bold = true;
  if (c.isDim()) s.dim = true;
  if (c.isItalic()) s.italic = true;
  if (c.isUnderline()) s.underline = true;
  if (c.isBlink()) s.blink = true;
  if (c.isInverse()) s.inverse = true;
  if (c.isInvisible()) s.hidden = true;
  if (c.isStrikethrough()) s.strike = true;
  return s;
}

const keyOf = (s: CellStyle) => JSON.stringify(s);

/** Is this cell nothing at all: a blank in the default style? */
function isBlank(c: IBufferCell): boolean {
  const ch = c.getChars();
  return (ch === "" || ch === " ") && c.isAttributeDefault();
}

/**
 * The runs of one row, up to its last cell that shows something (a character or a non-default
 * style, such as a coloured blank); an empty row has none.
 */
export function rowRuns(line: IBufferLine | undefined, cell: IBufferCell): CellRun[] {
  if (!line) return [];
  let end = line.length;
  while (end > 0 && isBlank(line.getCell(end - 1, cell)!)) end--;
  const runs: CellRun[] = [];
  /** The key of the last run's style while it may still grow; null once it is closed. */
  let openKey: string | null = null;
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell)!;
    const w = c.getWidth();
    if (w === 0) continue; // the second half of a wide character
    const text = c.getChars() || " ";
    const style = styleOf(c);
    const key = keyOf(style);
    const simple = w === 1 && text.length === 1;
    const last = runs.at(-1);
    if (last && simple && openKey === key) {
      last.text += text;
      last.w += 1;
      continue;
    }
    runs.push(simple ? { col: x, w, text, ...style } : { col: x, w, text, cluster: true, ...style });
    openKey = simple ? key : null;
  }
  return runs;
}
