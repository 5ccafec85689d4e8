// termd/testing/node: termd/testing with node:test's `test` and `it`, wrapped (wrap-test.ts) so
// termd/testing knows each test exactly and sees it fail however it fails, a plain throw
// included, and keeps its artifacts: node:test tells a test's hooks nothing a module could ask
// for without the test's context; and a test file's obsolete snapshots are reported when it ends.
// Assert with expectTerminal.
import { after, it as nodeIt, test as nodeTest } from "node:test";
import { mainFile } from "./runner.ts";
import { wrapTestApi } from "./wrap-test.ts";

export * from "./index.ts";

/** The body's context (node's TestContext) knows the test's name. */
const title = (args: unknown[], given: string) => (args[0] as { name?: string } | undefined)?.name ?? given;

/** node:test's `test`, whose bodies termd/testing sees fail (or pass). */
export const test: typeof nodeTest = wrapTestApi(nodeTest, mainFile, 1, title, after);
/** node:test's `it`, the same way. */
export const it: typeof nodeIt = wrapTestApi(nodeIt, mainFile, 1, title, after);
