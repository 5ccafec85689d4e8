// A cell style as SGR parameters (ECMA-48 / xterm ctlseqs "Character Attributes"): what
// interminai's OUTPUT --format ansi and termd/testing's styled screen files both write.
import type { CellColor, CellStyle } from "../protocol/schemas.ts";

/** The attributes and their SGR numbers, in the order they are written. SGR 5 is xterm's blink (slow blink in ECMA-48). */
const ATTRIBUTES: [keyof CellStyle, number][] = [
  ["bold", 1],
  ["dim", 2],
  ["italic", 3],
  ["underline", 4],
  ["blink", 5],
  ["inverse", 7],
  ["hidden", 8],
  ["strike", 9],
];

/** A colour as SGR parameters: 30–37 / 90–97 for the 16 named colours, `38;5;N` for the 256-colour palette, `38;2;R;G;B` for true colour (base 40 for the background). */
function colour(c: CellColor, base: 30 | 40): string {
  if (typeof c === "string") {
    const n = parseInt(c.slice(1), 16);
    return `${base + 8};2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;
  }
  if (c < 8) return String(base + c);
  if (c < 16) return String(base + 60 + c - 8);
  return `${base + 8};5;${c}`;
}

/** The SGR parameters that set `style` from the default one; [] for the default style. */
export function sgrParams(style: CellStyle): string[] {
  const p = ATTRIBUTES.filter(([k]) => style[k]).map(([, n]) => String(n));
  if (style.fg !== undefined) p.push(colour(style.fg, 30));
  if (style.bg !== undefined) p.push(colour(style.bg, 40));
  return p;
}
