// The README's termd/testing examples are the test files that run them: a block marked
// `<!-- test/testing/examples/NAME.test.ts -->` must be that file, so the README's code runs as written.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = [...readme.matchAll(/<!-- (test\/testing\/examples\/[\w.-]+\.test\.ts) -->\n```ts\n([\s\S]*?)```\n/g)];

test("the README shows the issue's example and three of tui-test's, each marked with its test file", () => {
  expect(blocks.map((b) => b[1])).toEqual([
    "test/testing/examples/vim.test.ts",
    "test/testing/examples/tui-test-program.test.ts",
    "test/testing/examples/tui-test-screenshot.test.ts",
    "test/testing/examples/tui-test-assertions.test.ts",
  ]);
});

for (const [, file, code] of blocks) {
  test(`the README's block for ${file} is that file, word for word`, () => {
    expect(code).toBe(readFileSync(join(ROOT, file!), "utf8"));
  });
}
