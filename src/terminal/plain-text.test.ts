import { expect, test } from "bun:test";
import { PlainText, plainText } from "./plain-text.ts";

const enc = (s: string) => new TextEncoder().encode(s);

test("colours, cursor moves and titles are dropped; text, tabs and line ends stay", () => {
  expect(plainText(enc("\x1b]2;title\x07\x1b[1;31mred\x1b[0m\tand \x1b[2Kplain\r\nnext\r\n"))).toBe("red\tand plain\nnext\n");
});

test("a lone CR becomes a line end; CR LF and CR CR LF are one line end", () => {
  expect(plainText(enc("10%\r20%\r100%\r\ndone\r\r\nnext"))).toBe("10%\n20%\n100%\ndone\nnext");
});

test("a sequence and a CR LF split across chunks come out as if whole", () => {
  const whole = "\x1b[38;2;1;2;3mé\x1b[0m line\r\nnext\r";
  const bytes = enc(whole);
  const p = new PlainText();
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += p.push(bytes.subarray(i, i + 1));
  out += p.end();
  expect(out).toBe(plainText(bytes));
  expect(out).toBe("é line\nnext\n");
});

test("a CR at the start of a line ends no line: bash's after each command adds no empty line", () => {
  const typed = "bash-5.2# echo hi\r\n\x1b[?2004l\rhi\r\n\x1b[?2004hbash-5.2# ";
  expect(plainText(enc(typed))).toBe("bash-5.2# echo hi\nhi\nbash-5.2# ");
  expect(plainText(enc("\rstart\r\n\r\rnext"))).toBe("start\nnext");
});
