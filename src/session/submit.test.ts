import { expect, test } from "bun:test";
import { textShown } from "./submit.ts";

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
