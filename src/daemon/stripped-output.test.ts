import { describe, expect, test } from "bun:test";
import { MAX_QUERY_RANGES } from "../terminal/query-ranges.ts";
import { FakeOutput } from "../../test/unit-fixtures.ts";
import { StrippedOutput } from "./stripped-output.ts";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** Everything `out` lets go from `sent` on, `max` bytes a call; returns the text and the new offset. */
function drain(out: StrippedOutput, s: FakeOutput, sent: number, max = 1 << 20): [string, number] {
  let text = "";
  for (let o = out.next(sent, s.bytes.length, max, !s.running); o; o = out.next(sent, s.bytes.length, max, !s.running)) {
    text += dec(o.bytes);
    sent = o.to;
  }
  return [text, sent];
}

describe("an attached terminal's output", () => {
  test("the tap's ranges are cut; an undecided sequence waits, and goes once the session ended", () => {
    const s = new FakeOutput();
    const out = new StrippedOutput(s.stream);
    s.write("a\x1b[");
    let [text, sent] = drain(out, s, 0);
    expect([text, sent]).toEqual(["a", 1]);
    s.write("6nb\x1b[1mc\x1b");
    [text, sent] = drain(out, s, sent);
    expect([text, sent]).toEqual(["b\x1b[1mc", 11]);
    s.running = false;
    [text, sent] = drain(out, s, sent);
    expect([text, sent]).toEqual(["\x1b", 12]);
  });

  test("output sent a little at a time comes out the same", () => {
    const s = new FakeOutput();
    s.write("x\x1b[>q\x1b]10;?\x1b\\y\x1b[?u\x1b[2Jz");
    const out = new StrippedOutput(s.stream);
    expect(drain(out, s, 0, 1)).toEqual(["xy\x1b[2Jz", s.bytes.length]);
  });

  test(`a subscriber behind more than MAX_QUERY_RANGES (${MAX_QUERY_RANGES}) queries has the older ones found by a parse of its own`, () => {
    const s = new FakeOutput();
    const n = MAX_QUERY_RANGES + 10;
    s.write(`start${"\x1b[6n.".repeat(n)}end`);
    expect(s.tap.queries.completeFrom).toBeGreaterThan(0);
    const out = new StrippedOutput(s.stream);
    expect(drain(out, s, 0, 1000)[0]).toBe(`start${".".repeat(n)}end`);
  });

  test("bytes the tap did not read (a restored session's log before its tail) are parsed here", () => {
    const s = new FakeOutput();
    s.write("\x1b[c", false);
    s.write("a\x1b[c");
    const out = new StrippedOutput(s.stream);
    expect(drain(out, s, 0)[0]).toBe("a");
  });
});
