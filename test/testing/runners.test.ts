// termd/testing under each runner it supports, one core with an adapter each: vitest 3 and 4 (the
// matchers through its expect.extend, the outcome from its task, a file's end from its after-all
// hook) and node:test (expectTerminal, and the wrapped `test` of termd/testing/node, with node's
// own report of where a test is), each in a process of its own under Node, importing the library
// as the npm package builds it and driving the compiled dist/termd. bun test is every other file here.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestProject } from "./subprocess.ts";

const ARTIFACTS = ["terminal.cast", "terminal.png", "terminal.screen.txt", "terminal.svg"];

/** A snapshot of a test the file no longer has: reported once the whole file ran. */
function obsoleteSnapshot(dir: string, testFile: string): void {
  mkdirSync(join(dir, "__screens__", testFile), { recursive: true });
  writeFileSync(join(dir, "__screens__", testFile, "gone.txt"), "# termd screen 5x30, cursor 0,0\n");
}

// vitest 3 (the checkout's) and 4, the previous major and the current one (docs/testing.md says what of 5 is checked).
test.each([3, 4] as const)(
  "under vitest %d the matchers work through expect.extend, and a failed test keeps its artifacts however it failed",
  async (major) => {
    using project = new TestProject();
    project.write(
      "screen.test.ts",
      `import { afterAll, beforeAll, describe, test, expect, vi } from "vitest";
import { launch } from "./lib/testing/index.js";

test("passes", async () => {
  await using t = await launch(["sh", "-c", "echo hello; exec cat"], { rows: 5, cols: 30 });
  await expect(t).toShowText("hello");
  await expect(t).not.toShowText("absent", { timeout: 50 });
  await expect(t).toHaveCursorAt(1, 0);
  await expect(t).toMatchScreenSnapshot();
});

test("fails a matcher", async () => {
  await using t = await launch(["sh", "-c", "echo here; exec cat"], { rows: 5, cols: 30 });
  await expect(t).toShowText("nowhere", { timeout: 200 });
});

test("throws its own error", async () => {
  await using t = await launch(["sh", "-c", "echo thrown; exec cat"], { rows: 5, cols: 30 });
  await t.waitForText("thrown");
  throw new Error("my own");
});

test("waits with the default timeout", async () => {
  await using t = await launch(["sh", "-c", "echo waiting; exec cat"], { rows: 5, cols: 30 });
  expect(t.timeout).toBe(9000);
  await t.waitForText("never", { timeout: 300 });
});

describe("group", () => {
  test.each(["a", "b"])("case %s", async (x) => {
    await using t = await launch(["sh", "-c", \`echo \${x}; exec cat\`], { rows: 5, cols: 30 });
    await expect(t).toShowText("never", { timeout: 100 });
  });
});

describe("launched in beforeAll", () => {
  let t: Awaited<ReturnType<typeof launch>>;
  beforeAll(async () => {
    // No test runs here: the default comes from the configured testTimeout, as vi.setConfig leaves it.
    vi.setConfig({ testTimeout: 8000 });
    t = await launch(["cat"], { rows: 5, cols: 30, trace: "off" });
    vi.resetConfig();
  });
  afterAll(() => t.close());
  test("waits 60% of the configured testTimeout", () => {
    expect(t.timeout).toBe(4800);
  });
});
`,
    );
    obsoleteSnapshot(project.dir, "screen.test.ts");
    // The waits' default is 60% of the 15 s test timeout; the one that fails is given 300 ms, and
    // fails well within the test timeout, with its own message.
    const r = await project.vitest("screen.test.ts", { major, args: ["--testTimeout", "15000"] });
    expect(r.code).toBe(1);
    expect(readFileSync(join(project.dir, "__screens__", "screen.test.ts", "passes.txt"), "utf8")).toBe(
      "# termd screen 5x30, cursor 1,0\nhello\n\n\n\n\n",
    );
    expect(r.output).toContain("1 obsolete snapshot in __screens__/screen.test.ts (no test of screen.test.ts compared it): gone.txt");
    expect(r.output).toMatch(/✓ passes/);
    expect(r.output).toContain('expected the screen to show "nowhere" (waited 200 of 200 ms)');
    expect(r.output).toMatch(/0│here\n/);
    expect(r.output).toContain('timed out after 300 ms waiting for "never"');
    expect(r.output).toMatch(/0│waiting\n/);
    expect(r.output).not.toContain("Test timed out");
    expect(r.output).toContain("Tests  5 failed | 2 passed (7)");
    const results = join(project.dir, "test-results");
    // vitest's names: the describe blocks' titles and the test's, a test.each case's formatted.
    expect(readdirSync(results).sort()).toEqual([
      "fails-a-matcher",
      "group-case-a",
      "group-case-b",
      "throws-its-own-error",
      "waits-with-the-default-timeout",
    ]);
    expect(readdirSync(join(results, "waits-with-the-default-timeout")).sort()).toEqual([...ARTIFACTS, "terminal.wait-1.txt"]);
    expect(readFileSync(join(results, "waits-with-the-default-timeout", "terminal.wait-1.txt"), "utf8")).toStartWith(
      '# timed out after 300 ms waiting for "never"',
    );
    expect(readdirSync(join(results, "fails-a-matcher")).sort()).toEqual([...ARTIFACTS, "terminal.wait-1.txt"]);
    expect(readdirSync(join(results, "throws-its-own-error")).sort()).toEqual(ARTIFACTS);
    expect(readFileSync(join(results, "throws-its-own-error", "terminal.screen.txt"), "utf8")).toContain("\nthrown\n");
  },
  120_000,
);

test("under node:test expectTerminal asserts, and termd/testing/node's test keeps a failed test's artifacts however it failed", async () => {
  using project = new TestProject();
  const source = readFileSync(
    project.write(
      "screen.test.mjs",
      `import { test, launch, expectTerminal } from "./lib/testing/node.js";

test("passes", async () => {
  const t = await launch(["sh", "-c", "echo hello; exec cat"], { rows: 5, cols: 30 });
  try {
    await expectTerminal(t).toShowText("hello");
    await expectTerminal(t).not.toShowText("absent", { timeout: 50 });
    await expectTerminal(t).toMatchScreenSnapshot();
  } finally {
    await t.close();
  }
});

test("fails an assertion", async () => {
  const t = await launch(["sh", "-c", "echo here; exec cat"], { rows: 5, cols: 30 });
  await expectTerminal(t).toShowText("nowhere", { timeout: 200 });
});

test("throws its own error", async () => {
  const t = await launch(["sh", "-c", "echo thrown; exec cat"], { rows: 5, cols: 30 });
  await t.waitForText("thrown");
  throw new Error("my own");
});
`,
    ),
    "utf8",
  );
  obsoleteSnapshot(project.dir, "screen.test.mjs");
  const r = await project.nodeTest("screen.test.mjs");
  expect(r.code).toBe(1);
  expect(readFileSync(join(project.dir, "__screens__", "screen.test.mjs", "passes.txt"), "utf8")).toBe(
    "# termd screen 5x30, cursor 1,0\nhello\n\n\n\n\n",
  );
  expect(r.output).toContain("1 obsolete snapshot in __screens__/screen.test.mjs (no test of screen.test.mjs compared it): gone.txt");
  expect(r.output).toContain("ok 1 - passes");
  expect(r.output).toContain("not ok 2 - fails an assertion");
  expect(r.output).toContain("name: 'AssertionError'");
  expect(r.output).toContain('expected the screen to show "nowhere" (waited 200 of 200 ms)');
  const line = source.split("\n").findIndex((l) => l.includes('"nowhere"')) + 1;
  expect(r.output).toContain(`screen.test.mjs:${line}:`); // the failure points at the test's line
  // And node:test's location of each failed test is where the file calls test(), not the library's wrapper.
  const at = (name: string) =>
    `${join(project.dir, "screen.test.mjs")}:${source.split("\n").findIndex((l) => l.includes(`test("${name}"`)) + 1}:1`;
  expect(r.output).toContain(`location: '${at("fails an assertion")}'`);
  expect(r.output).toContain(`location: '${at("throws its own error")}'`);
  expect(r.output).toContain("# pass 1\n# fail 2");
  const results = join(project.dir, "test-results");
  expect(readdirSync(results).sort()).toEqual(["fails-an-assertion", "throws-its-own-error"]);
  expect(readdirSync(join(results, "fails-an-assertion")).sort()).toEqual([...ARTIFACTS, "terminal.wait-1.txt"]);
  expect(readdirSync(join(results, "throws-its-own-error")).sort()).toEqual(ARTIFACTS);
}, 60_000);
