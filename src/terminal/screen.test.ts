import { describe, expect, test } from "bun:test";
import { Screen } from "./screen.ts";

/** What the screen writes back to the program for `input`. */
function replies(input: string): string {
  let out = "";
  const s = new Screen({ rows: 24, cols: 80, scrollback: 0, onReply: (r) => (out += r), version: "termd(1.2.3)" });
  s.writeSync(new TextEncoder().encode(input));
  s.dispose();
  return out;
}

describe("queries the screen answers", () => {
  test("XTVERSION names termd and its version", () => {
    expect(replies("\x1b[>q")).toBe("\x1bP>|termd(1.2.3)\x1b\\");
    expect(replies("\x1b[>0q")).toBe("\x1bP>|termd(1.2.3)\x1b\\");
  });

  test("OSC 10, 11 and 12 report white on black", () => {
    expect(replies("\x1b]10;?\x07")).toBe("\x1b]10;rgb:ffff/ffff/ffff\x1b\\");
    expect(replies("\x1b]11;?\x1b\\")).toBe("\x1b]11;rgb:0000/0000/0000\x1b\\");
    expect(replies("\x1b]10;?;?\x07")).toBe("\x1b]10;rgb:ffff/ffff/ffff\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\");
    expect(replies("\x1b]11;#123456\x07")).toBe("");
  });

  test("the kitty keyboard query reports the flags in force at that point of the stream", () => {
    expect(replies("\x1b[?u")).toBe("\x1b[?0u");
    expect(replies("\x1b[?u\x1b[>5u\x1b[?u\x1b[<u\x1b[?u")).toBe("\x1b[?0u\x1b[?5u\x1b[?0u");
    expect(replies("\x1b[>1u\x1b[?1049h\x1b[?u\x1b[?1049l\x1b[?u")).toBe("\x1b[?0u\x1b[?1u");
  });

  test("replies leave in the order the queries came, mixed with xterm's own", () => {
    expect(replies("\x1b[c\x1b[>q\x1b[6n")).toBe("\x1b[?1;2c\x1bP>|termd(1.2.3)\x1b\\\x1b[1;1R");
  });

  test("DECRQM is xterm's, answered once", () => {
    expect(replies("\x1b[?2004h\x1b[?2004$p")).toBe("\x1b[?2004;1$y");
  });
});

describe("resize", () => {
  test("leaves no memory trimming to a timer (xterm's, which warned on the console when it overran)", () => {
    const s = new Screen({ rows: 24, cols: 200, scrollback: 1000, onReply: () => {} });
    s.writeSync(new TextEncoder().encode(`${"x".repeat(190)}\r\n`.repeat(500)));
    s.resize({ rows: 10, cols: 40 });
    expect(s.deferredTasks).toBe(0);
    s.resize({ rows: 30, cols: 120 });
    expect(s.deferredTasks).toBe(0);
    expect(s.size).toEqual({ rows: 30, cols: 120 });
    s.dispose();
  });
});
