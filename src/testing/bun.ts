// termd/testing/bun: termd/testing with bun:test's `test` and `it`, wrapped (wrap-test.ts) so a test
// that fails by throwing its own error, outside any check, keeps its artifacts too: bun's hooks
// are not told a test's outcome; and a test file's obsolete snapshots are reported when it ends.
import { afterAll, it as bunIt, test as bunTest } from "bun:test";
import { mainFile } from "./runner.ts";
import { caseTitle } from "./runners/bun-each.ts";
import { wrapTestApi } from "./wrap-test.ts";

export * from "./index.ts";

/** The title given at registration, or a test.each case's, formatted (bodies that take parameters, as most test.each bodies do, pass through unwrapped). */
const title = (_args: unknown[], given: string) => caseTitle() ?? given;

/** bun:test's `test`, whose bodies termd/testing sees fail (or pass). */
export const test: typeof bunTest = wrapTestApi(bunTest, mainFile, 0, title, afterAll);
/** bun:test's `it`, the same way. */
export const it: typeof bunIt = wrapTestApi(bunIt, mainFile, 0, title, afterAll);
