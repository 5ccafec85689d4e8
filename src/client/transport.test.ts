import { expect, test } from "bun:test";
import { utf8Length } from "./transport.ts";

test("utf8Length counts what TextEncoder writes: ASCII, 2, 3 and 4-byte characters, lone surrogates", () => {
  const encoder = new TextEncoder();
  for (const s of ["", "ls\n", "é", "€uro", "😀", "a😀b", "\ud800", "x\udc00y", "\ud83d", "end\ud83d", '{"text":"ñ€😀\\n"}'])
    expect(utf8Length(s)).toBe(encoder.encode(s).length);
});
