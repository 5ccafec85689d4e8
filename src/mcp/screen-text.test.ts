import { expect, test } from "bun:test";
import type { ScreenSnapshot } from "../protocol/schemas.ts";
import { around, changesText, screenText, tail } from "./screen-text.ts";

function screen(lines: string[], cursor = { row: 0, col: 0, visible: true }, extra: Partial<ScreenSnapshot> = {}): ScreenSnapshot {
  return {
    lines,
    scrollback_lines: 0,
    scrollback_total: 0,
    scrollback_end: 0,
    cursor,
    size: { rows: lines.length, cols: 20 },
    title: "",
    current_cwd: null,
    alternate: false,
    modes: {} as ScreenSnapshot["modes"],
    seq: 7,
    hash: "",
    offset: 0,
    ...extra,
  };
}

test("rows are numbered from 0, the cursor is marked in place (past the end of a short row too), blank rows are summed up", () => {
  const text = screenText("sh", screen(["$ ls", "a  b", "$ ", "", ""], { row: 2, col: 2, visible: true }));
  expect(text).toBe("session sh: 5x20, cursor at row 2, col 2 (▮), seq 7\n0│$ ls\n1│a  b\n2│$ ▮\n(rows 3-4 are blank)");
  expect(screenText("v", screen(["abc", ""], { row: 0, col: 5, visible: true }))).toContain("0│abc  ▮");
  expect(screenText("v", screen(["abc"], { row: 0, col: 1, visible: false }))).toContain("0│abc");
});

test("scrollback rows come first, numbered negative", () => {
  const s = screen(["old 1", "old 2", "$ x"], { row: 0, col: 3, visible: true }, { scrollback_lines: 2, size: { rows: 1, cols: 20 } });
  expect(screenText("sh", s).split("\n").slice(1)).toEqual(["-2│old 1", "-1│old 2", " 0│$ x▮"]);
});

test("changed rows only, or a line saying nothing changed", () => {
  const s = screen(
    [],
    { row: 3, col: 0, visible: true },
    {
      size: { rows: 24, cols: 80 },
      changed: [
        { row: 3, text: "" },
        { row: 12, text: "done" },
      ],
    },
  );
  expect(changesText("sh", 5, s).split("\n").slice(1)).toEqual(["2 rows changed since your last read (seq 5):", " 3│▮", "12│done"]);
  expect(changesText("sh", 7, screen([], undefined, { changed: [] }))).toContain("nothing changed since your last read (seq 7)");
});

test("context around a match is about 20 rows; the tail is the last 20 rows that hold anything", () => {
  const lines = Array.from({ length: 50 }, (_, i) => `row ${i}`);
  const s = screen(lines, { row: 0, col: 0, visible: false });
  const ctx = around(s, 30).split("\n");
  expect(ctx[0]).toBe("20│row 20");
  expect(ctx.at(-1)).toBe("40│row 40");
  const t = tail(screen([...lines.slice(0, 25), "", ""], { row: 0, col: 0, visible: false })).split("\n");
  expect(t).toHaveLength(20);
  expect(t.at(-1)).toBe("24│row 24");
});

test("changed rows that became blank are summed up, one line per run, as read_screen sums up the blank rows at its end", () => {
  const rows = Array.from({ length: 24 }, (_, row) => ({ row, text: row === 5 ? "bye" : "" }));
  const s = screen([], { row: 0, col: 0, visible: true }, { size: { rows: 24, cols: 80 }, changed: rows });
  expect(changesText("v", 1, s).split("\n").slice(1)).toEqual([
    "24 rows changed since your last read (seq 1):",
    " 0│▮",
    "(rows 1-4 are blank)",
    " 5│bye",
    "(rows 6-23 are blank)",
  ]);
});
