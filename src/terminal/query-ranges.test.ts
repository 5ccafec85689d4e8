import { describe, expect, test } from "bun:test";
import { QueryFilter } from "./query-filter.ts";
import { QueryRanges } from "./query-ranges.ts";
import { VtTap } from "./vt-tap.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("QueryRanges", () => {
  test("cut takes out the ranges inside the span, also those that only overlap its ends", () => {
    const r = new QueryRanges();
    r.add(2, 4);
    r.add(6, 8);
    r.add(12, 14);
    const bytes = enc("0123456789abcdef");
    expect(dec(r.cut(bytes, 0))).toBe("014589abef");
    expect(dec(r.cut(bytes.subarray(3, 7), 3))).toBe("45");
    expect(dec(r.cut(bytes.subarray(8, 12), 8))).toBe("89ab");
  });

  test("a span with no range inside comes back as the same array", () => {
    const r = new QueryRanges();
    r.add(2, 4);
    const bytes = enc("abcd");
    expect(r.cut(bytes, 10)).toBe(bytes);
  });

  test("past its capacity the oldest ranges go, and completeFrom says from where the record is whole", () => {
    const r = new QueryRanges(0, 3);
    for (let i = 0; i < 5; i++) r.add(i * 10, i * 10 + 2);
    expect(r.size).toBe(3);
    expect(r.completeFrom).toBe(12);
    expect(dec(r.cut(enc("x".repeat(50)), 0))).toBe("x".repeat(50 - 6));
  });

  test("extendLast grows only the last range, and only from where it ended", () => {
    const r = new QueryRanges();
    r.add(0, 5);
    r.extendLast(4, 7);
    r.extendLast(5, 7);
    expect(dec(r.cut(enc("0123456789"), 0))).toBe("789");
  });

  test("dropBefore keeps the last range, which an ST may still extend", () => {
    const r = new QueryRanges();
    r.add(0, 2);
    r.add(4, 6);
    r.dropBefore(10);
    expect(r.size).toBe(1);
    expect(r.completeFrom).toBe(2);
  });
});

describe("the tap's record and the filter's own parse cut the same bytes", () => {
  test("random output, the tap fed whole, the filter in random chunks", () => {
    const alphabet = ["\x1b", "[", "]", "P", "?", ">", "6", "n", "c", "q", "u", "$", "p", ";", "1", "0", "\x07", "\\", "x", "\x18", "\r"];
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      let s = "";
      for (let i = 0; i < 60; i++) s += alphabet[rand(alphabet.length)];
      const bytes = enc(s);
      const tap = new VtTap();
      tap.feed(bytes);
      // What is still undecided at the end is no query: a subscriber sends it once the session ends.
      const expected = dec(tap.queries.cut(bytes, 0));
      const f = new QueryFilter();
      let out = "";
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + rand(8);
        out += dec(f.filter(bytes.subarray(at, at + size)));
        at += size;
      }
      out += dec(f.flush());
      expect(out).toBe(expected);
    }
  });
});
