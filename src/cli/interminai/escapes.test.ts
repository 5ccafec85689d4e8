// `interminai input --text`'s escapes, each as /work/shared/interminai-cli.md §5 lists it.
import { expect, test } from "bun:test";
import { Failure } from "./args.ts";
import { expandEscapes } from "./escapes.ts";

test("each escape gives its byte, left to right", () => {
  expect(expandEscapes("a\\nb\\rc\\td\\ae\\bf\\fg\\vh")).toBe("a\nb\rc\td\x07e\bf\fg\vh");
  expect(expandEscapes("\\e:wq\\E\\\\")).toBe("\x1b:wq\x1b\\");
  expect(expandEscapes("\\x41\\x42\\x43\\x6a\\x6A")).toBe("ABCjj");
  // \\n is a backslash then n: processed left to right, the pair is consumed first.
  expect(expandEscapes("\\\\n")).toBe("\\n");
});

test("another character after a backslash keeps both; a lone trailing backslash stays", () => {
  expect(expandEscapes("a\\zb")).toBe("a\\zb");
  expect(expandEscapes("end\\")).toBe("end\\");
  expect(expandEscapes("日\\q本")).toBe("日\\q本");
});

test("\\xHH of 0x80 and above is U+00HH; a \\x without two hex digits is an error", () => {
  expect(expandEscapes("\\xe9")).toBe("é");
  expect(() => expandEscapes("\\x4")).toThrow(new Failure("Error: incomplete \\x escape"));
  expect(() => expandEscapes("\\xZZ")).toThrow(new Failure("Error: invalid hex escape: \\xZZ"));
});
