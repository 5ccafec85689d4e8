// termd/testing under vitest: the matchers through vitest's expect.extend, the test from
// expect.getState(), and its outcome from onTestFinished's task, so a failing test keeps its
// artifacts however it failed. `vitest -u` is the snapshot state's "all". vitest loads this module
// once per test file, so an after-all hook registered here ends that file: its obsolete
// snapshots are reported when every test in it ran. vitest is imported when
// this runs (not statically), so a bundle of termd/testing holds no import of it.
import { matchers, type RetryOptions, type ShowTextOptions, type SnapshotOptions } from "../matchers.ts";
import type { Runner } from "../runner.ts";
import { testFileDone } from "../snapshots.ts";

interface Task {
  mode: string;
  tasks?: Task[];
}

/** Every test in the suite ran: none skipped, filtered out or todo. */
const allRan = (t: Task): boolean => (t.mode === "run" || t.mode === "queued") && (t.tasks ?? []).every(allRan);

interface TerminalMatchers<R = unknown> {
  /** The screen shows `text` (with `row`: on that row; with fg/bg/bold: in that style). Await it. */
  toShowText(text: string | RegExp, opts?: ShowTextOptions): Promise<R>;
  /** The cursor is at `row`, `col` (0-based). Await it. */
  toHaveCursorAt(row: number, col: number, opts?: RetryOptions): Promise<R>;
  /** The window title is `title` (or matches it). Await it. */
  toHaveTitle(title: string | RegExp, opts?: RetryOptions): Promise<R>;
  /** The screen equals `__screens__/TEST-FILE/NAME.txt` beside the test (written when missing or updating). Await it. */
  toMatchScreenSnapshot(name?: string, opts?: SnapshotOptions): Promise<R>;
}

declare module "vitest" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T> extends TerminalMatchers<T> {}
}

/** vitest's per-test timeout when its config gives none (in Node; its browser mode's is longer). */
const VITEST_TEST_TIMEOUT_MS = 5_000;

/** vitest's state in a test worker (`vi.setConfig()` writes its config): the config as resolved for this file, the same in vitest 3 and 4. */
interface WorkerState {
  config?: { testTimeout?: number };
}

/**
 * The timeout of `test` (its own option, or testTimeout as it was when it was collected), else,
 * outside a test (a beforeAll hook, a setup file), the configured testTimeout, else vitest's
 * default; 0 is vitest's "none".
 */
export function vitestTestTimeout(test: { timeout?: number } | undefined, worker: WorkerState | undefined): number {
  const ms = test?.timeout ?? worker?.config?.testTimeout ?? VITEST_TEST_TIMEOUT_MS;
  return ms === 0 ? Number.POSITIVE_INFINITY : ms;
}

export async function vitestRunner(): Promise<Runner> {
  const { afterAll, expect, onTestFinished } = await import("vitest");
  const { getCurrentTest } = await import("vitest/suite");
  expect.extend(matchers);
  // vitest 3 calls an after-all hook with (suite), vitest 4 with (context, suite), and vitest 4
  // reads the hook's source for the fixtures its first parameter destructures, refusing any
  // other name there: a hook that names no parameter asks for none, and takes the suite last.
  afterAll(function (this: unknown) {
    // biome-ignore lint/complexity/noArguments: the one form both majors accept (above)
    const file = arguments[arguments.length - 1] as Task & { file: { filepath: string } };
    testFileDone(file.file.filepath, allRan(file));
  });
  return {
    current() {
      const s = expect.getState();
      const id = getCurrentTest()?.id;
      return s.testPath && s.currentTestName !== undefined
        ? { file: s.testPath, name: s.currentTestName, ...(id ? { id } : {}) }
        : undefined;
    },
    afterTest(end) {
      try {
        onTestFinished(({ task }) => {
          const failed = task.result?.state === "fail";
          return end(failed, failed ? task.result?.errors?.[0]?.message : undefined);
        });
        return true;
      } catch {
        return false;
      }
    },
    tellsOutcome: true,
    // vitest has no public reader of its config: its worker state is where `vi.setConfig` writes it.
    testTimeout: () => vitestTestTimeout(getCurrentTest(), (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__),
    updateSnapshots: () =>
      (expect.getState().snapshotState as unknown as { _updateSnapshot?: string } | undefined)?._updateSnapshot === "all",
  };
}
