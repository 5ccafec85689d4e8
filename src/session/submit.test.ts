import { expect, test } from "bun:test";
import { needsPaste, textShown } from "./submit.ts";

test("text counts as shown when the end of its last line is on a row, across wrapped rows in a box, or as a paste placeholder", () => {
  expect(textShown(["> fix the failing test"], "fix the failing test")).toBe(true);
  expect(textShown(["> something else"], "fix the failing test")).toBe(false);
  // Wrapped inside a bordered input box.
  expect(textShown(["│ > please fix the fail │", "│ ing test               │"], "please fix the failing test")).toBe(true);
  // Several lines: the last one decides.
  expect(textShown(["line two"], "line one\nline two\n")).toBe(true);
  expect(textShown(["> [Pasted text #1 +12 lines]"], "a\nlong\npaste")).toBe(true);
  // Nothing to show: shown.
  expect(textShown([""], "   ")).toBe(true);
});

test("only text that would press keys if typed goes as a paste: a line break, a Tab, an escape; one printable line is typed", () => {
  expect(needsPaste(":wq")).toBe(false);
  expect(needsPaste("fix the failing test ✓")).toBe(false);
  expect(needsPaste("line one\nline two")).toBe(true);
  expect(needsPaste("a\tb")).toBe(true);
  expect(needsPaste("\x1b:q")).toBe(true);
});
