// termd/testing under `bun test`: the matchers on bun:test's expect (bun's own matchers wrapped to
// hear their results, bun-expect.ts), test.each's cases told their formatted titles
// (bun-each.ts), a test's end through onTestFinished (which says nothing of the outcome, so
// test-context.ts judges it), and `-u`/`--update-snapshots` read from the process's command line,
// since bun hands a test no sign of its flags. bun:test is imported when this runs, so a bundle
// of termd/testing for Node holds no import of it.
import { matchers, type RetryOptions, type ShowTextOptions, type SnapshotOptions } from "../matchers.ts";
import { commandLine, numericFlag, type Runner } from "../runner.ts";
import { caseTitle, patchEach } from "./bun-each.ts";
import { wrapBuiltinMatchers } from "./bun-expect.ts";

declare module "bun:test" {
  interface Matchers<T> {
    /** The screen shows `text` (with `row`: on that row; with fg/bg/bold: in that style). Await it. */
    toShowText(text: string | RegExp, opts?: ShowTextOptions): Promise<void>;
    /** The cursor is at `row`, `col` (0-based). Await it. */
    toHaveCursorAt(row: number, col: number, opts?: RetryOptions): Promise<void>;
    /** The window title is `title` (or matches it). Await it. */
    toHaveTitle(title: string | RegExp, opts?: RetryOptions): Promise<void>;
    /** The screen equals `__screens__/TEST-FILE/NAME.txt` beside the test (written when missing or updating). Await it. */
    toMatchScreenSnapshot(name?: string, opts?: SnapshotOptions): Promise<void>;
  }
}

/** `bun test`'s per-test timeout when --timeout gives none. */
const BUN_TEST_TIMEOUT_MS = 5_000;

/** The test timeout `bun test` runs under, from its command line: `--timeout N`, else bun's default. */
export function bunTestTimeout(argv: readonly string[]): number {
  return numericFlag(argv, "--timeout") ?? BUN_TEST_TIMEOUT_MS;
}

export async function bunRunner(): Promise<Runner> {
  const { expect, onTestFinished, test } = await import("bun:test");
  wrapBuiltinMatchers(expect);
  expect.extend(matchers);
  patchEach(test);
  return {
    caseTitle,
    afterTest(end) {
      try {
        onTestFinished(() => end());
        return true;
      } catch {
        // Outside a test (a script, beforeAll) or in a concurrent test: `await using` disposes alone.
        return false;
      }
    },
    tellsOutcome: false,
    updateSnapshots: () => commandLine().some((a) => a === "-u" || a === "--update-snapshots" || a.startsWith("--update-snapshots=")),
    // `bun test --timeout N`, else bun's default of 5 s; a test's own timeout and setDefaultTimeout() are not told.
    testTimeout: () => bunTestTimeout(commandLine()),
  };
}
