// Type checks only, compiled by `tsc --noEmit` and never run: under vitest the same matchers are
// typed on its Assertion, and expectTerminal (node:test) on its own.
import { expect } from "vitest";
import { expectTerminal, type Terminal } from "termd/testing";

export function vitestMatcherTypes(t: Terminal): Promise<unknown>[] {
  return [
    expect(t).toShowText("x", { row: 1, fg: "red", strict: true }),
    expect(t).not.toShowText(/x/),
    expect(t).toHaveCursorAt(0, 0, { timeout: 5 }),
    expect(t).toMatchScreenSnapshot("name", { style: true }),
    expectTerminal(t).toShowText("x", { scrollback: true }),
    expectTerminal(t).not.toHaveTitle(/x/),
    // @ts-expect-error a row is a number
    expect(t).toShowText("x", { row: "1" }),
    // @ts-expect-error the cursor needs a column
    expectTerminal(t).toHaveCursorAt(0),
  ];
}
