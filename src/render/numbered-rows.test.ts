import { expect, test } from "bun:test";
import { numberedRows } from "./numbered-rows.ts";

test("blank rows at the end are left out unless kept; numbers share one width", () => {
  const lines = Array.from({ length: 12 }, (_, i) => (i < 3 ? `row ${i}` : ""));
  expect(numberedRows(lines)).toEqual({ rows: [0, 1, 2].map((i) => ({ index: i, label: ` ${i}` })), last: 2, width: 2 });
  expect(numberedRows(lines, { keep: (i) => i === 5 }).last).toBe(5);
  expect(numberedRows(["", ""]).rows).toEqual([]);
});

test("a range, numbered from firstRow: scrollback rows above the screen are negative", () => {
  const r = numberedRows(["old", "$ x", "", ""], { from: 0, to: 3, firstRow: 1 });
  expect(r.rows.map((x) => x.label)).toEqual(["-1", " 0"]);
  expect(r.last).toBe(1);
});
