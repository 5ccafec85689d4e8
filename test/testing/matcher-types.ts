// Type checks only, compiled by `tsc --noEmit` and never run: the matchers termd/testing adds to
// bun:test's expect carry their types, so a wrong argument is a compile error.
import { expect } from "bun:test";
import type { Terminal } from "termd/testing";

export function matcherTypes(t: Terminal): Promise<unknown>[] {
  return [
    expect(t).toShowText("x", { row: 1, fg: "red", bg: "#102030", bold: true, scrollback: true, timeout: 5 }),
    expect(t).not.toShowText(/x/),
    expect(t).toHaveCursorAt(0, 0, { timeout: 5 }),
    expect(t).toHaveTitle(/x/),
    expect(t).toMatchScreenSnapshot("name", { style: true }),
    // @ts-expect-error a row is a number
    expect(t).toShowText("x", { row: "1" }),
    // @ts-expect-error the cursor needs a column
    expect(t).toHaveCursorAt(0),
    // @ts-expect-error a title is a string or a RegExp
    expect(t).toHaveTitle(3),
  ];
}
