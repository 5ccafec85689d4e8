// termd/testing/node: termd/testing with node:test's `test` and `it`, wrapped (wrap-test.ts) so
// termd/testing knows each test exactly and sees it fail however it fails, a plain throw
// included, and keeps its artifacts: node:test tells a test's hooks nothing a module could ask
// for without the test's context; and a test file's obsolete snapshots are reported when it ends.
// Assert with expectTerminal.
import { after, it as nodeIt, test as nodeTest } from "node:test";
import { compileFunction } from "node:vm";
import { mainFile } from "./runner.ts";
import { callSite } from "./stack.ts";
import { type AnyFn, wrapTestApi } from "./wrap-test.ts";

export * from "./index.ts";

/** The body's context (node's TestContext) knows the test's name. */
const title = (args: unknown[], given: string) => (args[0] as { name?: string } | undefined)?.name ?? given;

/**
 * Calls node:test's `fn` from the test file's line: node takes a test's `location` from the frame
 * that calls test(), which would be the wrapper's, in the library. So the call is made by a function
 * compiled (vm) under the caller's file name with the call at the caller's line and column; stack
 * frames, and node's location, name that place.
 */
function callFromTestFile(fn: AnyFn, self: unknown, args: unknown[]): unknown {
  const at = callSite(new Error());
  // (The call sits on the line below `return (`: a call on a file's first line keeps the wrapper's place.)
  if (!at || at.line < 2) return Reflect.apply(fn, self, args);
  const call = compileFunction(`return (${"\n".repeat(at.line - 1)}${" ".repeat(at.column - 1)}f(...a))`, ["f", "a"], {
    filename: at.file,
  });
  return call(self === undefined ? fn : fn.bind(self), args);
}

/** node:test's `test`, whose bodies termd/testing sees fail (or pass). */
export const test: typeof nodeTest = wrapTestApi(nodeTest, mainFile, 1, title, after, callFromTestFile);
/** node:test's `it`, the same way. */
export const it: typeof nodeIt = wrapTestApi(nodeIt, mainFile, 1, title, after, callFromTestFile);
