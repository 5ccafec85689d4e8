// The docs' termd/testing examples are the test files that run them: a block marked
// `<!-- test/testing/examples/NAME.test.ts -->` in README.md or docs/*.md must be that file, so
// the code the docs show runs as written.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const docs = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];
const blocks = docs.flatMap((doc) =>
  [...readFileSync(join(ROOT, doc), "utf8").matchAll(/<!-- (test\/testing\/examples\/[\w.-]+\.test\.ts) -->\n```ts\n([\s\S]*?)```\n/g)].map(
    ([, file, code]) => ({ doc, file: file!, code: code! }),
  ),
);

test("docs/testing.md shows the issue's example and three of tui-test's, each marked with its test file", () => {
  expect(blocks.filter((b) => b.doc === join("docs", "testing.md")).map((b) => b.file)).toEqual([
    "test/testing/examples/vim.test.ts",
    "test/testing/examples/tui-test-program.test.ts",
    "test/testing/examples/tui-test-screenshot.test.ts",
    "test/testing/examples/tui-test-assertions.test.ts",
  ]);
});

for (const { doc, file, code } of blocks) {
  test(`${doc}'s block for ${file} is that file, word for word`, () => {
    expect(code).toBe(readFileSync(join(ROOT, file), "utf8"));
  });
}
