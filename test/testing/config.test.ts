// Project defaults: package.json's `termd.testing` field and configure(), each below what a launch
// is told; a bad value fails with where it came from. In a `bun test` process of their own, since
// configure() holds for the whole process.
import { expect, test } from "bun:test";
import { TestProject } from "./subprocess.ts";

test("package.json's termd.testing, then configure(), then launch's options set a terminal's size, env, shell and timeout", async () => {
  using project = new TestProject();
  project.write(
    "package.json",
    JSON.stringify({ name: "p", termd: { testing: { rows: 7, cols: 33, env: { FROM: "package" }, shell: "bash" } } }),
  );
  project.write(
    "defaults.test.ts",
    `import { test, expect } from "bun:test";
import { configure, launch } from "LIBRARY";

configure({ env: { GREETING: "hi" } });

test("a launch's own options win", async () => {
  await using t = await launch("echo $FROM; stty size; exec cat", { rows: 5, env: { FROM: "launch" }, shell: "/bin/sh" });
  await expect(t).toShowText("launch");
  await expect(t).toShowText("5 33");
});

// Last: the short timeout set here holds for every launch after it, and would bound the waits for
// what a slow start shows as well.
test("defaults", async () => {
  await using t = await launch("echo $GREETING-$FROM-$BASH_VERSINFO; stty size; exec cat");
  await expect(t).toShowText(/^hi-package-\\d+$/);
  await expect(t).toShowText("7 33");
  configure({ timeout: 300 });
  await using u = await launch("exec cat");
  await u.waitForText("never");
});

test("a bad option is refused with what is wrong", () => {
  expect(() => configure({ rows: 0 })).toThrow("termd/testing: bad configure() options: rows:");
  expect(() => configure({ trace: "sometimes" } as never)).toThrow("trace:");
  expect(() => configure({ colour: true } as never)).toThrow("colour:");
});
`,
  );
  const r = await project.bunTest("defaults.test.ts");
  expect(r.output).toContain('timed out after 300 ms waiting for "never"');
  expect(r.output).toContain("(fail) defaults");
  expect(r.output).toContain("(pass) a launch's own options win");
  expect(r.output).toContain("(pass) a bad option is refused with what is wrong");
}, 30_000);

test("a bad termd.testing field in package.json fails the launch, naming the file", async () => {
  using project = new TestProject();
  const pkg = project.write("package.json", JSON.stringify({ termd: { testing: { cols: "wide" } } }));
  project.write(
    "bad.test.ts",
    `import { test } from "bun:test";
import { launch } from "LIBRARY";
test("launches", async () => {
  await using t = await launch(["true"]);
});
`,
  );
  const r = await project.bunTest("bad.test.ts");
  expect(r.code).toBe(1);
  expect(r.output).toContain(`termd/testing: bad "termd.testing" in ${pkg}: cols:`);
}, 20_000);
