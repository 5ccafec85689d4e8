// Pictures of a Terminal's screen: t.svg() and t.png(), drawn by the daemon with the screen's own
// cell widths (9 × 18 pixels a cell).
import { expect, test } from "bun:test";
import { launch } from "termd/testing";
import { CELL_H, CELL_W } from "../../src/render/svg.ts";
import { readPng } from "../png-reader.ts";

const PAINT = "printf 'ok \\033[48;2;255;0;0m  \\033[0m \\033[1;38;2;0;0;255mblue\\033[0m 界\\n'; exec cat";

test("png(): the picture has the screen's size and a coloured cell has its colour", async () => {
  await using t = await launch(PAINT, { rows: 4, cols: 20 });
  await t.waitForText("blue");
  const png = readPng(await t.png());
  expect({ width: png.width, height: png.height }).toEqual({ width: 20 * CELL_W, height: 4 * CELL_H });
  // Columns 3-4 of row 0 have a red background: the middle of each cell is red, the cell before is not.
  const middle = (row: number, col: number) => [col * CELL_W + Math.floor(CELL_W / 2), row * CELL_H + Math.floor(CELL_H / 2)] as const;
  expect(png.pixel(...middle(0, 3))).toBe("#ff0000");
  expect(png.pixel(...middle(0, 4))).toBe("#ff0000");
  expect(png.pixel(...middle(0, 2))).not.toBe("#ff0000");
  // The blue text's cells hold blue pixels (the glyph's strokes).
  const blue = new Set<string>();
  for (let y = 0; y < CELL_H; y++) for (let x = 7 * CELL_W; x < 11 * CELL_W; x++) blue.add(png.pixel(x, y));
  expect(blue.has("#0000ff")).toBe(true);
  const big = readPng(await t.png({ scale: 2 }));
  expect({ width: big.width, height: big.height }).toEqual({ width: 40 * CELL_W, height: 8 * CELL_H });
});

test("svg(): the screen as an SVG document with its text and colours", async () => {
  await using t = await launch(PAINT, { rows: 4, cols: 20 });
  await t.waitForText("blue");
  const svg = await t.svg();
  expect(svg).toStartWith("<svg");
  expect(svg).toContain(`width="${20 * CELL_W}"`);
  expect(svg).toContain("blue");
  expect(svg).toContain("界");
  expect(svg.toLowerCase()).toContain("#ff0000");
});
