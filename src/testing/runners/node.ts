// termd/testing under node:test (or plain Node): node:test has no expect to extend, so a test
// asserts with expectTerminal (assert.ts); the test is found from the stack, or exactly from
// termd/testing/node's wrapped `test`, and node:test's `--test-update-snapshots` rewrites snapshots.
import type { Runner } from "../runner.ts";

export const node: Runner = {
  afterTest: () => false,
  tellsOutcome: false,
  updateSnapshots: () => process.execArgv.includes("--test-update-snapshots"),
};
