// LineSplitter: chunk boundaries are invisible. Every case is fed whole, byte by byte and in
// uneven pieces, and must give the same frames each way.
import { describe, expect, test } from "bun:test";
import { LineSplitter, type Frame } from "./framing.ts";

const enc = new TextEncoder();

/** Strings are UTF-8 encoded; number arrays are raw bytes. */
function bytes(...parts: (string | number[])[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? enc.encode(p) : Uint8Array.from(p)))));
}

/** Feeds `chunks` in order, as the connection does: nothing more after a tooLong frame. */
function feed(splitter: LineSplitter, chunks: Uint8Array[]): Frame[] {
  const frames: Frame[] = [];
  for (const c of chunks) {
    frames.push(...splitter.push(c));
    if (frames.some((f) => "tooLong" in f)) break;
  }
  return frames;
}

/** How many bytes were seen when the limit tripped depends on the chunking; that it tripped does not. */
function normalize(frames: Frame[], max: number): unknown[] {
  return frames.map((f) => {
    if (!("tooLong" in f)) return f;
    expect(f.tooLong).toBeGreaterThan(max);
    return { tooLong: true };
  });
}

function split(input: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < input.length; i += size) out.push(input.slice(i, i + size));
  return out;
}

/** Frames of `input` fed whole, after checking that byte by byte and in 2/3/7-byte pieces agree. */
function frames(input: Uint8Array, max?: number): unknown[] {
  const limit = max ?? Number.MAX_SAFE_INTEGER;
  const whole = normalize(feed(new LineSplitter(limit), [input]), limit);
  for (const size of [1, 2, 3, 7]) {
    expect(normalize(feed(new LineSplitter(limit), split(input, size)), limit)).toEqual(whole);
  }
  return whole;
}

describe("LineSplitter", () => {
  test("splits lines and keeps an unfinished one for the next chunk", () => {
    const s = new LineSplitter();
    expect(s.push(enc.encode('{"a":1}\n{"b"'))).toEqual([{ line: '{"a":1}' }]);
    expect(s.push(enc.encode(":2}"))).toEqual([]);
    expect(s.push(enc.encode("\n"))).toEqual([{ line: '{"b":2}' }]);
    expect(frames(enc.encode('{"a":1}\n{"b":2}\nrest'))).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }]);
  });

  test("reports empty lines as empty strings", () => {
    expect(frames(enc.encode("\n\nx\n"))).toEqual([{ line: "" }, { line: "" }, { line: "x" }]);
  });

  test("a UTF-8 character split across chunks arrives whole", () => {
    const s = new LineSplitter();
    const euro = enc.encode("€"); // e2 82 ac
    expect(s.push(bytes('"', [euro[0]!]))).toEqual([]);
    expect(s.push(Uint8Array.from([euro[1]!]))).toEqual([]);
    expect(s.push(bytes([euro[2]!], '"\n'))).toEqual([{ line: '"€"' }]);
    expect(frames(enc.encode("héllo → wörld 🎉\n日本語\n"))).toEqual([{ line: "héllo → wörld 🎉" }, { line: "日本語" }]);
  });

  test("strips the carriage return of a CRLF line and nothing else", () => {
    expect(frames(enc.encode("one\r\ntwo\r\n\r\nthree\n"))).toEqual([{ line: "one" }, { line: "two" }, { line: "" }, { line: "three" }]);
    // A carriage return inside a line is data; only the one before the newline is framing.
    expect(frames(enc.encode("a\rb\r\r\n"))).toEqual([{ line: "a\rb\r" }]);
  });

  test("a CR that ends one chunk and the LF that starts the next still make one CRLF", () => {
    const s = new LineSplitter();
    expect(s.push(enc.encode("x\r"))).toEqual([]);
    expect(s.push(enc.encode("\ny\n"))).toEqual([{ line: "x" }, { line: "y" }]);
  });

  test("invalid UTF-8 is reported for its line only, and later lines still decode", () => {
    const input = bytes(
      "ok1\n",
      [0xff, 0xfe],
      "\n", // bytes that never appear in UTF-8
      [0xc0, 0xaf],
      "\n", // overlong encoding of "/"
      [0xed, 0xa0, 0x80],
      "\n", // a UTF-16 surrogate
      "bad ",
      [0xe2, 0x82],
      "\n", // truncated sequence at the end of a line
      "ok2\n",
    );
    expect(frames(input)).toEqual([
      { line: "ok1" },
      { invalidUtf8: true },
      { invalidUtf8: true },
      { invalidUtf8: true },
      { invalidUtf8: true },
      { line: "ok2" },
    ]);
  });

  test("a line exactly at the limit passes; one byte more is reported as tooLong", () => {
    expect(frames(enc.encode("12345678\nabc\n"), 8)).toEqual([{ line: "12345678" }, { line: "abc" }]);
    expect(frames(enc.encode("ok\n123456789\nnever\n"), 8)).toEqual([{ line: "ok" }, { tooLong: true }]);
  });

  test("an unterminated line over the limit is reported without waiting for its newline", () => {
    const s = new LineSplitter(8);
    expect(s.push(enc.encode("12345"))).toEqual([]);
    expect(s.push(enc.encode("6789"))).toEqual([{ tooLong: 9 }]);
    expect(frames(enc.encode("ok\n" + "x".repeat(100)), 8)).toEqual([{ line: "ok" }, { tooLong: true }]);
  });

  test("memory held for an unfinished line stays within the limit", () => {
    const s = new LineSplitter(1024);
    let tooLong = 0;
    for (let i = 0; i < 100 && tooLong === 0; i++) {
      for (const f of s.push(new Uint8Array(100).fill(0x61))) if ("tooLong" in f) tooLong = f.tooLong;
    }
    expect(tooLong).toBe(1100);
  });

  test("the splitter is reusable after a tooLong report", () => {
    const s = new LineSplitter(4);
    expect(s.push(enc.encode("123456"))).toEqual([{ tooLong: 6 }]);
    expect(s.push(enc.encode("ab\n"))).toEqual([{ line: "ab" }]);
  });
});
