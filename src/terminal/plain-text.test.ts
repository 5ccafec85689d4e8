import { expect, test } from "bun:test";
import { PlainText, plainText } from "./plain-text.ts";

const enc = (s: string) => new TextEncoder().encode(s);

test("colours, cursor moves and titles are dropped; text, tabs and line ends stay", () => {
  expect(plainText(enc("\x1b]2;title\x07\x1b[1;31mred\x1b[0m\tand \x1b[Kplain\r\nnext\r\n"))).toBe("red\tand plain\nnext\n");
});

test("a CR goes back to the line's start and what follows overwrites: a progress bar reads as it ended; CR LF and CR CR LF are one line end", () => {
  expect(plainText(enc("10%\r20%\r100%\r\ndone\r\r\nnext"))).toBe("100%\ndone\nnext");
  expect(plainText(enc("downloading 10%\rdone\r\n"))).toBe("doneloading 10%\n");
});

test("line edits apply as on a screen: backspace, cursor moves along the line, erase in line, delete, insert and erase characters", () => {
  expect(plainText(enc("abc\b\bX\r\n"))).toBe("aXc\n");
  expect(plainText(enc("hello world\x1b[5D\x1b[K\r\n"))).toBe("hello \n");
  expect(plainText(enc("12345\x1b[3G\x1b[1K\n"))).toBe("   45\n");
  expect(plainText(enc("12345\x1b[2K\n"))).toBe("\n");
  expect(plainText(enc("abcdef\x1b[4D\x1b[2P\n"))).toBe("abef\n");
  expect(plainText(enc("abef\x1b[2D\x1b[2@cd\n"))).toBe("abcdef\n");
  expect(plainText(enc("abcdef\x1b[1G\x1b[3X\n"))).toBe("   def\n");
  expect(plainText(enc("a\x1b[3Cb\n"))).toBe("a   b\n");
  // A tab moves to the next stop and stays a tab in the text.
  expect(plainText(enc("a\tb\n"))).toBe("a\tb\n");
});

test("bash's redraw of a bracketed paste leaves the command once on its line", () => {
  // What bash 5.2 writes for a pasted line, then for Enter: the text, back to its start, the text again.
  const typed = "# \x1b[?2004h\x1b[7mecho hi-$((1+1))\x1b[27m\x1b[16Decho hi-$((1+1))\r\n\x1b[?2004l\rhi-2\r\n";
  expect(plainText(enc(typed))).toBe("# echo hi-$((1+1))\nhi-2\n");
});

test("a line without a line end is held until the stream ends, and a very long one goes out in pieces", () => {
  const p = new PlainText();
  expect(p.push(enc("$ pro"))).toBe("");
  expect(p.push(enc("mpX\bt"))).toBe("");
  expect(p.end()).toBe("$ prompt");
  expect(
    plainText(enc("x".repeat(70_000)))
      .split("\n")
      .map((l) => l.length),
  ).toEqual([65_536, 70_000 - 65_536]);
});

test("a sequence and a CR LF split across chunks come out as if whole", () => {
  const whole = "\x1b[38;2;1;2;3mé\x1b[0m line\r\nnext\r";
  const bytes = enc(whole);
  const p = new PlainText();
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += p.push(bytes.subarray(i, i + 1));
  out += p.end();
  expect(out).toBe(plainText(bytes));
  expect(out).toBe("é line\nnext");
});

test("a CR at the start of a line ends no line: bash's after each command adds no empty line", () => {
  const typed = "bash-5.2# echo hi\r\n\x1b[?2004l\rhi\r\n\x1b[?2004hbash-5.2# ";
  expect(plainText(enc(typed))).toBe("bash-5.2# echo hi\nhi\nbash-5.2# ");
  expect(plainText(enc("\rstart\r\n\r\rnext"))).toBe("start\nnext");
});
