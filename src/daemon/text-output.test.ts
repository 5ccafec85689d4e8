import { describe, expect, test } from "bun:test";
import { plainText } from "../terminal/plain-text.ts";
import type { TapEvent } from "../terminal/tap-facts.ts";
import { FakeOutput } from "../../test/unit-fixtures.ts";
import { MAX_QUEUED_TEXT, TextOutput } from "./text-output.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A subscriber: `sent` moves on as it reads text. */
function subscriber(s: FakeOutput, sent = s.bytes.length) {
  const out = new TextOutput(s.stream);
  s.listener = (e) => e.type === "text" && out.take(e, sent);
  return {
    out,
    read(max = 1 << 20): string {
      let text = "";
      for (let t = out.next(sent, s.bytes.length, max); t; t = out.next(sent, s.bytes.length, max)) {
        text += t.text;
        sent = t.to;
      }
      return text;
    },
  };
}

describe("plain text for a subscriber", () => {
  test("the tap's text of each chunk, in order", () => {
    const s = new FakeOutput();
    s.write("before\r\n");
    const sub = subscriber(s);
    s.write("\x1b[1mbold\x1b[0m\r\n");
    s.write("\x1b]2;title\x07next\r\n");
    expect(sub.read()).toBe("bold\nnext\n");
  });

  test("a subscriber further behind than MAX_QUEUED_TEXT gets the same text, parsed for it from the bytes", () => {
    const s = new FakeOutput();
    const sub = subscriber(s);
    const line = `\x1b[32m${"x".repeat(1000)}\x1b[0m\r\n`;
    let all = "";
    for (let i = 0; (i + 1) * 1001 <= MAX_QUEUED_TEXT + 5000; i++) {
      s.write(line);
      all += line;
    }
    expect(sub.read(64 * 1024)).toBe(plainText(enc(all)));
  });

  test("output from before the subscription is parsed for it, then the tap's text goes on", () => {
    const s = new FakeOutput();
    s.write("\x1b[1mold\x1b[0m\r\n");
    const sub = subscriber(s, 0);
    s.write("new\r\n");
    expect(sub.read()).toBe("old\nnew\n");
  });

  test("the tap makes no text once the last subscriber let go", () => {
    const s = new FakeOutput();
    const events: TapEvent[] = [];
    const sub = subscriber(s);
    sub.out.dispose();
    s.listener = (e) => events.push(e);
    s.write("text\r\n");
    expect(events).toEqual([]);
  });
});
