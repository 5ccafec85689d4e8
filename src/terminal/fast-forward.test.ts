import { expect, test } from "bun:test";
import { Screen } from "./screen.ts";
import { lastNonPlain, MIN_SKIP_BYTES, skipPoint } from "./fast-forward.ts";

const enc = (s: string) => new TextEncoder().encode(s);

function screen(rows: number, cols: number, scrollback: number): Screen {
  return new Screen({ rows, cols, scrollback, onReply: () => {} });
}

/** Lines of varied length (some wrap), tabs, wide and combining characters, bells, CR LF ends. */
function plainFlood(lines: number, seed = 7): string {
  let x = seed;
  const rand = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const words = ["alpha", "béta", "γάμμα", "日本語", "e\u0301", "\t", "\x07", "δ"];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    let line = `${i}:`;
    for (let w = rand(40); w > 0; w--) line += " " + words[rand(words.length)];
    out.push(line);
  }
  return out.join("\r\n") + "\r\n";
}

function state(s: Screen) {
  const snap = s.snapshot("text", 1_000_000);
  return { lines: snap.lines, scrollback: snap.scrollback_lines, cursor: snap.cursor };
}

test("skipping a plain flood leaves the same screen, scrollback and cursor as parsing all of it", () => {
  const before = enc("\x1b[31mold coloured text\x1b[0m\r\nmore old text\r\n\x1b[5;10Hmiddle");
  const flood = enc(plainFlood(30_000));
  const rows = 24,
    cols = 60,
    scrollback = 500;
  const full = screen(rows, cols, scrollback);
  full.writeSync(before);
  full.writeSync(flood);

  const fast = screen(rows, cols, scrollback);
  fast.writeSync(before);
  const point = skipPoint((from, max) => flood.subarray(from, from + max), 0, flood.length, rows + scrollback + 1);
  if (typeof point !== "number") throw new Error(`no skip point: ${point}`);
  expect(point).toBeGreaterThan(MIN_SKIP_BYTES);
  fast.clearAll();
  fast.writeSync(flood.subarray(point));
  expect(state(fast)).toEqual(state(full));
});

test("an escape sequence's introducer, a charset shift or a C1 control is not plain text; Latin-1 letters are", () => {
  const plain = plainFlood(3_000);
  expect(lastNonPlain(enc(plain))).toBe(-1);
  for (const bad of ["\x1b[1m", "\x0e", "\x0f", "\u009b"]) {
    const bytes = enc(plain.slice(0, 1000) + bad + plain.slice(1000));
    const at = lastNonPlain(bytes);
    expect(at).toBe(enc(plain.slice(0, 1000) + bad.slice(0, 1)).length);
  }
  expect(lastNonPlain(enc("café ©"))).toBe(-1);
  // A C2 at the end may begin a C1 control whose second byte comes in the next chunk: plain text
  // starts after that byte.
  expect(lastNonPlain(new Uint8Array([0x41, 0xc2]))).toBe(3);
});

test("a backlog that is small, or holds fewer lines than are kept, is not skipped", () => {
  const small = enc(plainFlood(100));
  expect(skipPoint((f, m) => small.subarray(f, f + m), 0, small.length, 10)).toBeNull();
  const longLines = enc(("x".repeat(10_000) + "\r\n").repeat(60));
  expect(skipPoint((f, m) => longLines.subarray(f, f + m), 0, longLines.length, 100)).toBeNull();
});
