// Assertion helpers for runners without an expect to extend (node:test), and for anyone who would
// rather not touch their runner's expect: `await expectTerminal(t).toShowText("ready")`,
// `.not.toShowText(…)`. The same matchers as the expect.extend ones (matchers.ts), retrying the
// same way; a failure throws node's AssertionError with the same message (the screen, where the
// artifacts go).
import { AssertionError } from "node:assert";
import { matchers, type RetryOptions, type ShowTextOptions, type SnapshotOptions } from "./matchers.ts";
import { pointAtCaller } from "./stack.ts";
import type { Terminal } from "./terminal.ts";

export interface TerminalAssertions {
  /** The screen shows `text` (with `row`: on that row; with fg/bg/bold: in that style). */
  toShowText(text: string | RegExp, opts?: ShowTextOptions): Promise<void>;
  /** The cursor is at `row`, `col` (0-based). */
  toHaveCursorAt(row: number, col: number, opts?: RetryOptions): Promise<void>;
  /** The window title is `title` (or matches it). */
  toHaveTitle(title: string | RegExp, opts?: RetryOptions): Promise<void>;
  /** The screen equals `__screens__/TEST-FILE/NAME.txt` beside the test (written when missing or updating). */
  toMatchScreenSnapshot(name?: string, opts?: SnapshotOptions): Promise<void>;
}

function assertions(t: Terminal, isNot: boolean): TerminalAssertions {
  const check =
    <A extends unknown[]>(
      name: string,
      m: (this: { isNot: boolean }, received: unknown, ...args: A) => Promise<{ pass: boolean; message: () => string }>,
    ) =>
    async (...args: A): Promise<void> => {
      const site = new Error();
      const r = await m.call({ isNot }, t, ...args);
      if (r.pass === isNot) {
        const err = new AssertionError({ message: r.message(), operator: name, stackStartFn: check });
        pointAtCaller(err, site);
        throw err;
      }
    };
  return {
    toShowText: check("toShowText", matchers.toShowText),
    toHaveCursorAt: check("toHaveCursorAt", matchers.toHaveCursorAt),
    toHaveTitle: check("toHaveTitle", matchers.toHaveTitle),
    toMatchScreenSnapshot: check("toMatchScreenSnapshot", matchers.toMatchScreenSnapshot),
  };
}

/** The screen matchers as assertions: `await expectTerminal(t).toShowText("ready")`; `.not` waits for the opposite. */
export function expectTerminal(t: Terminal): TerminalAssertions & { not: TerminalAssertions } {
  return { ...assertions(t, false), not: assertions(t, true) };
}
