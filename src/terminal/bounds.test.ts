import { expect, test } from "bun:test";
import { Screen } from "./screen.ts";

const enc = (s: string) => new TextEncoder().encode(s);

function after(text: string, rows = 10, cols = 20, scrollback = 50) {
  const s = new Screen({ rows, cols, scrollback, onReply: () => {} });
  s.writeSync(enc(text));
  const snap = s.snapshot("text", 10_000);
  s.dispose();
  return { lines: snap.lines, cursor: snap.cursor };
}

const setup = Array.from({ length: 14 }, (_, i) => `row ${i}`).join("\r\n") + "\x1b[5;3H";

test("huge counts act as the largest count that still changes anything, without running the huge loop", () => {
  const cases: [string, string][] = [
    ["\x1b[2147483647L", "\x1b[10L"],
    ["\x1b[2147483647M", "\x1b[10M"],
    ["\x1b[2147483647S", "\x1b[10S"],
    ["\x1b[3;6r\x1b[2147483647S", "\x1b[3;6r\x1b[10S"],
    ["\x1b[?1049h" + setup + "\x1b[2147483647S", "\x1b[?1049h" + setup + "\x1b[10S"],
    ["\x1b[2147483647T", "\x1b[10T"],
    ["\x1b[2147483647@", "\x1b[20@"],
    ["\x1b[2147483647P", "\x1b[20P"],
    ["\x1b[2147483647X", "\x1b[20X"],
    ["\x1b[2147483647I", "\x1b[20I"],
    ["\x1b[2147483647Z", "\x1b[20Z"],
    ["\x1b[2147483647 @", "\x1b[20 @"],
    ["\x1b[2147483647'}", "\x1b[20'}"],
  ];
  for (const [huge, small] of cases) expect(after(setup + huge)).toEqual(after(setup + small));
});

test("a huge repeat fills screen and scrollback and ends at the column the full repeat would", () => {
  const fill = (10 + 50 + 1) * 20;
  const n = 2147483647;
  const same = fill + ((n - fill) % 20);
  expect(after(`x\x1b[${n}b`)).toEqual(after(`x\x1b[${same}b`));
  expect(after(`x\x1b[${n}b`).cursor.col).toBe((1 + n) % 20);
});
