// Colours as the screen's terminal shows them: xterm.js's default theme (white on black, the Tango
// 16 colours, the 6×6×6 cube and the grey ramp of the 256-colour palette), which is also what the
// daemon answers to OSC 10/11/12 colour queries. Bold text in colours 0-7 is drawn in the bright
// 8-15, as xterm.js does by default (drawBoldTextInBrightColors).
import type { CellColor } from "../protocol/schemas.ts";

export const DEFAULT_FG = "#ffffff";
export const DEFAULT_BG = "#000000";
export const CURSOR = "#ffffff";

const ANSI16 = [
  "#2e3436",
  "#cc0000",
  "#4e9a06",
  "#c4a000",
  "#3465a4",
  "#75507b",
  "#06989a",
  "#d3d7cf",
  "#555753",
  "#ef2929",
  "#8ae234",
  "#fce94f",
  "#729fcf",
  "#ad7fa8",
  "#34e2e2",
  "#eeeeec",
];

const hex2 = (n: number) => n.toString(16).padStart(2, "0");
const rgb = (r: number, g: number, b: number) => `#${hex2(r)}${hex2(g)}${hex2(b)}`;

let palette: readonly string[] | undefined;

/**
 * The 256-colour palette as "#rrggbb", made on first use: made on import, its 720 calls woke the
 * JIT in every idle daemon (~1 MB), which draws no screen until asked.
 */
export function palette256(): readonly string[] {
  palette ??= build256();
  return palette;
}

function build256(): string[] {
  const out = [...ANSI16];
  const level = [0, 0x5f, 0x87, 0xaf, 0xd7, 0xff];
  for (let i = 0; i < 216; i++) out.push(rgb(level[Math.floor(i / 36)]!, level[Math.floor(i / 6) % 6]!, level[i % 6]!));
  for (let i = 0; i < 24; i++) out.push(rgb(8 + 10 * i, 8 + 10 * i, 8 + 10 * i));
  return out;
}

/** A cell colour as "#rrggbb"; undefined (the default) stays undefined. */
export function resolve(c: CellColor | undefined, brighten = false): string | undefined {
  if (c === undefined) return undefined;
  if (typeof c === "string") return c;
  return palette256()[brighten && c < 8 ? c + 8 : c] ?? undefined;
}
