import { expect, test } from "bun:test";
import { Screen } from "./screen.ts";
import { jsonBytes, rowsThatFit } from "./scrollback-page.ts";

test("rowsThatFit takes whole blocks while they fit, then row by row into the one that does not", () => {
  const asked: [number, number][] = [];
  const cost = (first: number, n: number) => (asked.push([first, n]), n * 10);
  expect(rowsThatFit(200, 1005, cost)).toBe(100);
  expect(asked).toEqual([[0, 64], [64, 64], ...Array.from({ length: 37 }, (_, i) => [64 + i, 1] as [number, number])]);
  expect(rowsThatFit(10, 1_000, cost)).toBe(10);
  expect(rowsThatFit(10, -1, cost)).toBe(0);
});

/** A screen of 3 rows that printed `n` lines, "line 0" … (and a blank row under them). */
function printed(n: number, write = (i: number) => `line ${i}\r\n`): Screen {
  const s = new Screen({ rows: 3, cols: 40, scrollback: 1000, onReply: () => {} });
  for (let i = 0; i < n; i++) s.writeSync(new TextEncoder().encode(write(i)));
  return s;
}

test("a snapshot's budget keeps the newest lines of scrollback that fit it with the screen; `end` moves the page up", () => {
  const s = printed(100);
  const whole = s.snapshot("text", 1000);
  expect(whole).toMatchObject({ scrollback_lines: 98, scrollback_total: 98, scrollback_end: 0 });
  const budget = jsonBytes(s.snapshot("text", 10)) + 1;
  const page = s.snapshot("text", 1000, { budget });
  expect(page.scrollback_lines).toBe(10);
  expect(jsonBytes(page)).toBeLessThanOrEqual(budget);
  expect(page.lines).toEqual(whole.lines.slice(88));
  const above = s.snapshot("text", 5, { end: 90, budget });
  expect(above).toMatchObject({
    scrollback_lines: 5,
    scrollback_end: 90,
    lines: ["line 3", "line 4", "line 5", "line 6", "line 7", "line 98", "line 99", ""],
  });
  expect(s.snapshot("text", 5, { end: 96 })).toMatchObject({ scrollback_lines: 2, scrollback_end: 96 });
  s.dispose();
});

test("ANSI pages: one above the screen is its lines, each ending in CRLF, its style reset; in budget too", () => {
  const s = printed(40, (i) => `\x1b[3${i % 8}mline ${i}\x1b[0m\r\n`);
  const older = s.snapshot("ansi", 2, { end: 10 });
  // The serializer ends in the program's pen (here the default's reset), then the page resets its own.
  expect(older.ansi).toBe("\x1b[32mline 26\r\n\x1b[33mline 27\x1b[0m\x1b[0m\r\n");
  s.dispose();
  // Measured a block of 64 rows at a time, with room for a style carried over each: a page falls
  // short of the budget by a few rows at most.
  const long = printed(300, (i) => `\x1b[3${i % 8}mline ${i}\x1b[0m\r\n`);
  const budget = jsonBytes(long.snapshot("ansi", 200)) + 1;
  const newest = long.snapshot("ansi", 1000, { budget });
  expect(newest.scrollback_lines).toBeLessThanOrEqual(200);
  expect(newest.scrollback_lines).toBeGreaterThan(190);
  expect(jsonBytes(newest)).toBeLessThanOrEqual(budget);
  long.dispose();
});

test("on the alternate screen, an ANSI redraw carries the normal buffer's history (shown again when the program leaves), bounded too", () => {
  const s = printed(30);
  s.writeSync(new TextEncoder().encode("\x1b[?1049h\x1b[Hfull screen"));
  const snap = s.snapshot("ansi", 5);
  expect(snap).toMatchObject({ alternate: true, scrollback_lines: 0, scrollback_total: 0, lines: ["full screen", "", ""] });
  expect(snap.ansi).toContain("line 23\r\nline 24\r\nline 25");
  expect(snap.ansi).not.toContain("line 22");
  const budget = jsonBytes(s.snapshot("ansi", 0)) + 20;
  expect(s.snapshot("ansi", 5, { budget }).ansi).not.toContain("line 24");
  s.dispose();
});
