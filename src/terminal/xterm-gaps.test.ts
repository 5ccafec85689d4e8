import { describe, expect, test } from "bun:test";
import { Screen } from "./screen.ts";

function screenAfter(input: string, rows = 5, cols = 10): Screen {
  const s = new Screen({ rows, cols, scrollback: 100, onReply: () => {} });
  const bytes = new TextEncoder().encode(input);
  // Chunk boundaries must not matter: feed it byte by byte too, and compare.
  const t = new Screen({ rows, cols, scrollback: 100, onReply: () => {} });
  for (const b of bytes) t.writeSync(new Uint8Array([b]));
  s.writeSync(bytes);
  expect(t.snapshot("text", 100).lines).toEqual(s.snapshot("text", 100).lines);
  t.dispose();
  return s;
}

describe("where xterm.js departs from xterm and alacritty", () => {
  test("CSI S puts the lines it scrolls off the whole screen into the scrollback", () => {
    const s = screenAfter("1\r\n2\r\n3\x1b[2S");
    const snap = s.snapshot("text", 100);
    expect(snap.lines).toEqual(["1", "2", "3", "", "", "", ""]);
    expect(snap.scrollback_lines).toBe(2);
    expect(snap.cursor).toMatchObject({ row: 2, col: 1 });
  });

  test("CSI S inside a scroll region or on the alternate screen drops them, as before", () => {
    expect(screenAfter("1\r\n2\r\n3\x1b[2;4r\x1b[S").snapshot("text", 100).lines).toEqual(["1", "3", "", "", ""]);
    expect(screenAfter("\x1b[?1049h1\r\n2\x1b[S").snapshot("text", 100).lines).toEqual(["2", "", "", "", ""]);
  });

  test("REP repeats the last character even after an SGR, and plain REP still works", () => {
    expect(screenAfter("X\x1b[1m\x1b[3b").lines()[0]).toBe("XXXX");
    expect(screenAfter("ab\x1b[2b").lines()[0]).toBe("abbb");
    expect(screenAfter("\x1b[3b").lines()[0]).toBe("");
    expect(screenAfter("日\x1b[0m\x1b[b", 5, 20).lines()[0]).toBe("日日");
  });
});
