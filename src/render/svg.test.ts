import { describe, expect, test } from "bun:test";
import type { CellRun } from "../protocol/schemas.ts";
import { palette256 } from "./palette.ts";
import { CELL_H, CELL_W, renderSvg } from "./svg.ts";

const PALETTE = palette256();

const screen = (cells: CellRun[][], cursor = { row: 0, col: 0, visible: false }, size = { rows: 3, cols: 10 }) =>
  renderSvg({ size, cursor, cells });

describe("renderSvg", () => {
  test("is cols × CELL_W by rows × CELL_H, on the default background", () => {
    const svg = screen([]);
    expect(svg).toStartWith(`<svg xmlns="http://www.w3.org/2000/svg" width="${10 * CELL_W}" height="${3 * CELL_H}"`);
    expect(svg).toContain(`<rect width="${10 * CELL_W}" height="${3 * CELL_H}" fill="#000000"/>`);
  });

  test("places each narrow character at its column and leaves spaces out", () => {
    expect(screen([[{ col: 1, w: 4, text: "a b<" }]])).toContain(`<text x="9 27 36" y="14" fill="#ffffff">ab&lt;</text>`);
  });

  test("a wide character is centred on its two cells, and the next character keeps its column", () => {
    const svg = screen([
      [
        { col: 0, w: 2, text: "中", cluster: true },
        { col: 2, w: 1, text: "x" },
      ],
    ]);
    expect(svg).toContain(`<text x="9" y="14" text-anchor="middle" fill="#ffffff">中</text>`);
    expect(svg).toContain(`<text x="18" y="14" fill="#ffffff">x</text>`);
  });

  test("palette, 256-colour and truecolour; bold brightens colours 0-7; inverse swaps with the defaults", () => {
    const svg = screen([
      [
        { col: 0, w: 1, text: "a", fg: 1, bold: true },
        { col: 1, w: 1, text: "b", fg: 208, bg: "#102030" },
        { col: 2, w: 1, text: "c", inverse: true },
        { col: 3, w: 1, text: "d", fg: 2, inverse: true },
      ],
    ]);
    expect(svg).toContain(`fill="${PALETTE[9]}" font-weight="bold">a</text>`);
    expect(PALETTE[208]).toBe("#ff8700");
    expect(PALETTE[244]).toBe("#808080");
    expect(svg).toContain(`<rect x="9" y="0" width="9" height="18" fill="#102030"/>`);
    expect(svg).toContain(`fill="#ff8700">b</text>`);
    // Inverse of the defaults: black on white.
    expect(svg).toContain(`<rect x="18" y="0" width="9" height="18" fill="#ffffff"/>`);
    // Both inverse cells are drawn in the default background's black, as one piece of text.
    expect(svg).toContain(`<text x="18 27" y="14" fill="#000000">cd</text>`);
    expect(svg).toContain(`<rect x="27" y="0" width="9" height="18" fill="${PALETTE[2]}"/>`);
  });

  test("italic, dim, underline and strikethrough; hidden text is not drawn", () => {
    const svg = screen([
      [
        { col: 0, w: 2, text: "it", italic: true, dim: true },
        { col: 2, w: 2, text: "un", underline: true, fg: 4 },
        { col: 4, w: 1, text: "s", strike: true },
        { col: 5, w: 6, text: "secret", hidden: true },
      ],
    ]);
    expect(svg).toContain(`font-style="italic" fill-opacity="0.5">it</text>`);
    expect(svg).toContain(`<rect x="18" y="16" width="18" height="1" fill="${PALETTE[4]}"/>`);
    expect(svg).toContain(`<rect x="36" y="9" width="9" height="1" fill="#ffffff"/>`);
    expect(svg).not.toContain("secret");
  });

  test("a visible cursor is a block drawn in reverse; a hidden one is not drawn", () => {
    const on = screen([[{ col: 0, w: 2, text: "ab", fg: 1 }]], { row: 0, col: 1, visible: true });
    expect(on).toContain(`<rect x="9" y="0" width="9" height="18" fill="#ffffff"/>`);
    expect(on).toContain(`<text x="9" y="14" fill="#000000">b</text>`);
    const empty = screen([], { row: 2, col: 4, visible: true });
    expect(empty).toContain(`<rect x="36" y="36" width="9" height="18" fill="#ffffff"/>`);
    expect(screen([], { row: 2, col: 4, visible: false })).not.toContain(`y="36"`);
  });

  test("characters XML cannot hold are left out, and the rest escaped", () => {
    const svg = screen([[{ col: 0, w: 4, text: "&\u0001\"'" }]]);
    expect(svg).toContain(">&amp;&quot;'</text>");
  });
});
