import { expect, test } from "bun:test";
import { Screen } from "./screen.ts";

function cellsOf(input: string, cols = 20) {
  const s = new Screen({ rows: 3, cols, scrollback: 10, onReply: () => {} });
  s.writeSync(new TextEncoder().encode(input));
  return s.snapshot("cells").cells!;
}

test("runs group narrow cells of one style and stop at the last visible cell", () => {
  expect(cellsOf("ab\x1b[1;31mcd\x1b[0m e  ")[0]).toEqual([
    { col: 0, w: 2, text: "ab" },
    { col: 2, w: 2, text: "cd", fg: 1, bold: true },
    { col: 4, w: 2, text: " e" },
  ]);
  expect(cellsOf("")[0]).toEqual([]);
});

test("colours come as palette indexes or #rrggbb, attributes as flags", () => {
  expect(cellsOf("\x1b[38;5;202;48;2;1;2;3;3;4;7;9mx")[0]).toEqual([
    { col: 0, w: 1, text: "x", fg: 202, bg: "#010203", italic: true, underline: true, inverse: true, strike: true },
  ]);
  expect(cellsOf("\x1b[44m  \x1b[0m")[0]).toEqual([{ col: 0, w: 2, text: "  ", bg: 4 }]); // a coloured blank shows
});

test("a wide or combined character is a run of its own, marked cluster", () => {
  expect(cellsOf("a日b")[0]).toEqual([
    { col: 0, w: 1, text: "a" },
    { col: 1, w: 2, text: "日", cluster: true },
    { col: 3, w: 1, text: "b" },
  ]);
  expect(cellsOf("e\u0301x")[0]).toEqual([
    { col: 0, w: 1, text: "e\u0301", cluster: true },
    { col: 1, w: 1, text: "x" },
  ]);
});

test("with scrollback the runs of the lines above the screen come first", () => {
  const s = new Screen({ rows: 2, cols: 10, scrollback: 10, onReply: () => {} });
  s.writeSync(new TextEncoder().encode("\x1b[31mone\x1b[0m\r\ntwo\r\nthree"));
  const snap = s.snapshot("cells", 5);
  expect(snap.scrollback_total).toBe(1);
  expect(snap.cells!.map((r) => r.map((x) => x.text).join(""))).toEqual(["one", "two", "three"]);
  expect(snap.cells![0]![0]).toMatchObject({ fg: 1 });
});
