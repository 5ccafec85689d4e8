// findAll and ambiguity: every place a text or RegExp is, in reading order (scrollback first, its
// rows negative), and the strict message that names them.
import { expect, test } from "bun:test";
import { ambiguity, findAll, type Screen } from "./screen.ts";

const screen = (lines: string[], scrollback?: string[]): Screen => ({
  lines,
  ...(scrollback ? { scrollback } : {}),
  text: lines.join("\n"),
  cursor: { row: 0, col: 0, visible: true },
  size: { rows: lines.length, cols: 20 },
  title: "",
  modes: {} as Screen["modes"],
  hash: "",
});

test("findAll gives every place, several on a row included, scrollback rows negative", () => {
  const s = screen(["done; done", "x", "not done"], ["done before"]);
  expect(findAll(s, "done")).toEqual([
    { row: -1, col: 0, text: "done" },
    { row: 0, col: 0, text: "done" },
    { row: 0, col: 6, text: "done" },
    { row: 2, col: 4, text: "done" },
  ]);
  expect(findAll(s, "done", 2)).toEqual([{ row: 2, col: 4, text: "done" }]);
  expect(findAll(s, /d\w+e/i)).toHaveLength(4);
  expect(findAll(screen(["aaa"]), "aa")).toEqual([{ row: 0, col: 0, text: "aa" }]); // no overlaps
  expect(findAll(screen(["abc"]), /x*/)).toEqual([]); // empty matches are no place
});

test("ambiguity names each place under strict, and says nothing otherwise or for one place", () => {
  const found = findAll(screen(["ok", "ok"]), "ok");
  expect(ambiguity(found, '"ok"', true)).toBe('"ok" is on the screen in 2 places (strict): row 0 col 0, row 1 col 0');
  expect(ambiguity(found, '"ok"', false)).toBeUndefined();
  expect(ambiguity(found.slice(0, 1), '"ok"', true)).toBeUndefined();
});
