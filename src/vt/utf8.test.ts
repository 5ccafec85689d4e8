// The UTF-8 decoder against TextDecoder, the reference it follows (WHATWG Encoding Standard).
import { expect, test } from "bun:test";
import { Utf8Decoder, codepointsToString, decodeUtf8 } from "./utf8.ts";

function randomBytes(length: number, seed: number): Uint8Array {
  let s = seed;
  const out = new Uint8Array(length);
  const likely = [0x41, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xc3, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5];
  for (let i = 0; i < length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s % 3 === 0 ? s >>> 24 : likely[(s >>> 8) % likely.length]!;
  }
  return out;
}

test("decodeUtf8 matches TextDecoder on random, mostly ill-formed bytes", () => {
  for (let seed = 1; seed <= 50; seed++) {
    const data = randomBytes(1000, seed);
    expect(decodeUtf8(data)).toBe(new TextDecoder().decode(data));
  }
});

test("decodeUtf8 keeps characters whole across its internal 8192-code-point batches", () => {
  const text = "😀é✓".repeat(5000);
  expect(decodeUtf8(new TextEncoder().encode(text))).toBe(text);
});

test("a decoder fed one byte at a time gives what a streaming TextDecoder gives", () => {
  const data = randomBytes(2000, 99);
  const decoder = new Utf8Decoder();
  const out = new Uint32Array(4);
  let text = "";
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte < 0x80 && !decoder.pending) {
      text += String.fromCharCode(byte);
      continue;
    }
    // An ASCII byte after an incomplete sequence gives U+FFFD first and is then read again.
    const next = decoder.decode(data, i, i + 1, out, 0);
    text += codepointsToString(out, 0, decoder.written);
    if (next === i) i--;
  }
  expect(text).toBe(new TextDecoder().decode(data, { stream: true }));
});
