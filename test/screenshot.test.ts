// Screenshots through a real daemon: session.screenshot draws what the screen shows (text, colours,
// bold, wide characters at the columns the screen's Unicode 11 widths give them) as SVG, and as a
// PNG whose pixels have the cells' colours; `termd screenshot` writes both, from source and from
// the compiled binary (whose daemon renders PNG with the embedded WebAssembly and fonts).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_PNG_PIXELS } from "../src/protocol/schemas.ts";
import { palette256 } from "../src/render/palette.ts";
import { CELL_H, CELL_W } from "../src/render/svg.ts";
import { DIST_BIN, SOURCE_BIN, sharedDaemon, TestDaemon } from "./harness.ts";
import { readPng } from "./png-reader.ts";

const PALETTE = palette256();

/** Row 0: bold red, a green background, 256-colour orange; row 1: truecolour, inverse; row 2: CJK and emoji. */
const PAINT =
  "printf '\\033[1;31mbold red\\033[0m \\033[42mgreen bg\\033[0m \\033[38;5;208morange\\033[0m\\n" +
  "\\033[38;2;10;200;255mtrue\\033[0m \\033[7minverse\\033[0m\\n中文 😀x\\n'; exec sleep 1000";

/** A pixel of a cell that no glyph reaches (above the letters' ascenders, off the edges). */
const bgPixel = (row: number, col: number, scale = 1) =>
  [Math.floor((col * CELL_W + 3) * scale), Math.floor((row * CELL_H + 1) * scale)] as const;

const shared = sharedDaemon();
beforeAll(async () => {
  await shared.c.call("session.create", { name: "paint", command: ["bash", "-c", PAINT], rows: 5, cols: 30 });
  await shared.c.call("session.wait", { session: "paint", text: "x" });
});

describe("session.screenshot", () => {
  test("emoji and CJK take two cells on the screen (xterm's Unicode 11 widths)", async () => {
    const s = await shared.c.call("session.screen", { session: "paint", format: "cells" });
    expect(s.lines[2]).toBe("中文 😀x");
    expect(s.cells![2]!.map((r) => [r.col, r.w, r.text])).toEqual([
      [0, 2, "中"],
      [2, 2, "文"],
      [4, 1, " "],
      [5, 2, "😀"],
      [7, 1, "x"],
    ]);
  });

  test("SVG: the text at its columns, in its colours, bold, and the wide characters where the screen has them", async () => {
    const shot = await shared.c.call("session.screenshot", { session: "paint", format: "svg" });
    expect(shot).toMatchObject({ format: "svg", width: 30 * CELL_W, height: 5 * CELL_H });
    const svg = shot.svg!;
    expect(svg).toStartWith("<svg ");
    // Bold red is drawn bright red, as xterm.js draws bold in colours 0-7.
    expect(svg).toContain(`fill="${PALETTE[9]}" font-weight="bold">boldred</text>`);
    expect(svg).toContain(`<rect x="${9 * CELL_W}" y="0" width="${8 * CELL_W}" height="${CELL_H}" fill="${PALETTE[2]}"/>`);
    expect(svg).toContain(`fill="#ff8700">orange</text>`);
    expect(svg).toContain(`fill="#0ac8ff">true</text>`);
    expect(svg).toContain(`fill="#000000">inverse</text>`);
    expect(svg).toContain(`<text x="${CELL_W}" y="${2 * CELL_H + 14}" text-anchor="middle" fill="#ffffff">中</text>`);
    expect(svg).toContain(`<text x="${6 * CELL_W}" y="${2 * CELL_H + 14}" text-anchor="middle" fill="#ffffff">😀</text>`);
    expect(svg).toContain(`<text x="${7 * CELL_W}" y="${2 * CELL_H + 14}" fill="#ffffff">x</text>`);
    // The cursor: a block on row 3, column 0.
    expect(svg).toContain(`<rect x="0" y="${3 * CELL_H}" width="${CELL_W}" height="${CELL_H}" fill="#ffffff"/>`);
  });

  test("PNG: the picture's size, and cells' pixels in their colours", async () => {
    const shot = await shared.c.call("session.screenshot", { session: "paint", format: "png" });
    const png = readPng(Buffer.from(shot.base64!, "base64"));
    expect({ w: png.width, h: png.height }).toEqual({ w: 30 * CELL_W, h: 5 * CELL_H });
    expect({ w: shot.width, h: shot.height }).toEqual({ w: png.width, h: png.height });
    // A green-background cell between the glyphs ("green bg" has a space at column 14).
    expect(png.pixel(...bgPixel(0, 14))).toBe(PALETTE[2]!);
    // The inverse cells' background is the default foreground, white; an empty cell is black.
    expect(png.pixel(...bgPixel(1, 5))).toBe("#ffffff");
    expect(png.pixel(...bgPixel(4, 20))).toBe("#000000");
    // The cursor block.
    expect(png.pixel(...bgPixel(3, 0))).toBe("#ffffff");
    // Glyphs were drawn: the red text has red pixels, the CJK characters white ones.
    const pixels = (row: number, col: number, w: number) => {
      const out = new Set<string>();
      for (let y = row * CELL_H; y < (row + 1) * CELL_H; y++)
        for (let x = col * CELL_W; x < (col + w) * CELL_W; x++) out.add(png.pixel(x, y));
      return out;
    };
    expect(pixels(0, 0, 4).has(PALETTE[9]!)).toBe(true);
    expect(pixels(2, 0, 2).has("#ffffff")).toBe(true);
    expect(pixels(2, 5, 2).has("#ffffff")).toBe(true);
  });

  test("PNG scale multiplies the pixels (through the client's screenshot(), which decodes the PNG)", async () => {
    const png = readPng(await shared.c.screenshot("paint", { format: "png", scale: 2 }));
    expect({ w: png.width, h: png.height }).toEqual({ w: 60 * CELL_W, h: 10 * CELL_H });
    expect(png.pixel(...bgPixel(0, 14, 2))).toBe(PALETTE[2]!);
  });

  test("a PNG over MAX_PNG_PIXELS is refused before it is drawn; its SVG is still there", async () => {
    await shared.c.call("session.create", { name: "huge", command: ["sleep", "1000"], rows: 1000, cols: 1000, scrollback: 0 });
    const err = await shared.c.call("session.screenshot", { session: "huge", format: "png" }).catch((e) => e);
    expect(err.name).toBe("INVALID_PARAMS");
    expect(err.message).toContain("MAX_PNG_PIXELS");
    expect(err.details).toMatchObject({ pixels: 9000 * 18000, max_pixels: MAX_PNG_PIXELS });
    expect(await shared.c.screenshot("huge")).toStartWith('<svg xmlns="http://www.w3.org/2000/svg" width="9000" height="18000"');
  });

  test("an unknown session is SESSION_NOT_FOUND", async () => {
    const err = await shared.c.call("session.screenshot", { session: "nope" }).catch((e) => e);
    expect(err.name).toBe("SESSION_NOT_FOUND");
  });
});

describe.each([
  ["source", SOURCE_BIN],
  ["dist/termd", DIST_BIN],
])("termd screenshot (%s)", (_label, bin) => {
  if (bin === DIST_BIN && !existsSync(DIST_BIN[0]!)) throw new Error("dist/termd is missing: run `bun run build` first (npm test does)");

  test("-o FILE.svg and -o FILE.png write the picture in the format the extension names", async () => {
    await using daemon = await TestDaemon.start({ bin });
    const dir = daemon.dir;
    expect(
      (
        await daemon.cli([
          "start",
          "--name",
          "p",
          "--rows",
          "4",
          "--cols",
          "20",
          "--",
          "bash",
          "-c",
          "printf '\\033[44mblue\\033[0m 中\\n'; exec sleep 1000",
        ])
      ).code,
    ).toBe(0);
    expect((await daemon.cli(["wait", "p", "--text", "中"])).code).toBe(0);
    const svg = await daemon.cli(["screenshot", "p", "-o", join(dir, "s.svg")]);
    expect(svg).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(dir, "s.svg"), "utf8")).toContain(`fill="${PALETTE[4]}"/>`);
    const png = await daemon.cli(["screenshot", "p", "-o", join(dir, "s.png"), "--json"]);
    expect(png.code).toBe(0);
    expect(JSON.parse(png.stdout)).toEqual({ format: "png", width: 20 * CELL_W, height: 4 * CELL_H, path: join(dir, "s.png") });
    const img = readPng(readFileSync(join(dir, "s.png")));
    expect({ w: img.width, h: img.height }).toEqual({ w: 20 * CELL_W, h: 4 * CELL_H });
    expect(img.pixel(...bgPixel(0, 1))).toBe(PALETTE[4]!);
    // Standard output gets SVG by default.
    const out = await daemon.cli(["screenshot", "p"]);
    expect(out.stdout).toStartWith("<svg ");
    const bad = await daemon.cli(["screenshot", "p", "-o", join(dir, "s.jpg")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("name a .svg or .png file");
  });
});
