// `interminai output`'s line numbers and cursor mark, with the examples of
// /work/shared/interminai-cli.md §6.3 and §6.4.
import { expect, test } from "bun:test";
import { lineNumbers, markCursor, numberLines } from "./render.ts";

test("numbers run from the scrollback's negatives to the screen's rows, skipping 0", () => {
  expect(lineNumbers(-3, 6)).toEqual([-3, -2, -1, 1, 2, 3]);
  expect(lineNumbers(0, 2)).toEqual([1, 2]);
  expect(lineNumbers(5, 2)).toEqual([5, 6]);
});

test("each number is padded to the widest printed: 24 rows 01-24, 100 rows 001-100, scrollback -05", () => {
  const rows = (n: number) => Array.from({ length: n }, () => "x");
  expect(numberLines(rows(24), 1).map((l) => l.slice(0, 4))).toEqual(lineNumbers(1, 24).map((n) => ` ${String(n).padStart(2, "0")}\t`));
  const hundred = numberLines(rows(100), 1);
  expect([hundred[0], hundred[9], hundred[99]]).toEqual([" 001\tx", " 010\tx", " 100\tx"]);
  // Five scrollback lines above 24 rows: the widest number has two digits.
  expect(numberLines(rows(29), -5).slice(0, 7)).toEqual(["-05\tx", "-04\tx", "-03\tx", "-02\tx", "-01\tx", " 01\tx", " 02\tx"]);
  expect(numberLines(rows(3), -1)).toEqual(["-1\tx", " 1\tx", " 2\tx"]);
  expect(numberLines(["\x1b[0;31mred"], 1)).toEqual([" 1\t\x1b[0;31mred"]);
});

test("the cursor's cell is wrapped in inverse, counted in cells: escape codes skipped, wide characters two", () => {
  expect(markCursor("ABCDEFGH", 3)).toBe("ABC\x1b[7mD\x1b[27mEFGH");
  expect(markCursor("\x1b[0;31mAB\x1b[0mCD", 2)).toBe("\x1b[0;31mAB\x1b[0m\x1b[7mC\x1b[27mD");
  expect(markCursor("日本x", 2)).toBe("日\x1b[7m本\x1b[27mx");
  expect(markCursor("日本x", 4)).toBe("日本\x1b[7mx\x1b[27m");
  expect(markCursor("e\u0301z", 0)).toBe("\x1b[7me\u0301\x1b[27mz");
  // Past the end of the trimmed row: nothing is inserted.
  expect(markCursor("AB", 5)).toBe("AB");
});
