// Traces: `trace: "on"` keeps a passing test's recording and screens, "off" keeps nothing even on
// failure, and with termd/testing/bun's `test` a test that fails by throwing its own error keeps
// them (the default, "retain-on-failure"); `termd show-trace` replays what was kept.
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SOURCE_BIN } from "../harness.ts";
import { TestProject } from "./subprocess.ts";

const TRACES = `import { test, launch } from "LIBRARY/../bun.ts";

test("passes with its trace on", async () => {
  await using t = await launch(["sh", "-c", "echo kept; exec cat"], { trace: "on" });
  await t.waitForText("kept");
});

test("fails with its trace off", async () => {
  await using t = await launch(["sh", "-c", "echo gone; exec cat"], { trace: "off" });
  await t.waitForText("never", { timeout: 100 });
});

test("throws its own error", async () => {
  await using t = await launch(["sh", "-c", "printf 'thrown\\\\n\\\\033[1mbold\\\\033[0m\\\\n'; exec cat"]);
  await t.waitForText("bold");
  throw new Error("mine");
});

test("passes", async () => {
  await using t = await launch(["sh", "-c", "echo fine; exec cat"]);
  await t.waitForText("fine");
});
`;

async function termd(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = Bun.spawn([...SOURCE_BIN, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

test("trace on keeps a passing test's artifacts, off keeps none, a plain throw keeps them; show-trace replays them", async () => {
  using project = new TestProject();
  project.write("traces.test.ts", TRACES);
  const r = await project.bunTest("traces.test.ts");
  expect(r.output).toContain("(pass) passes with its trace on");
  expect(r.output).toContain("(fail) fails with its trace off");
  expect(r.output).toContain("(fail) throws its own error");
  expect(r.output).toContain("(pass) passes [");
  expect(r.output).not.toContain("fails-with-its-trace-off");
  expect(r.output).toContain(
    '"throws its own error" failed; terminal\'s artifacts (termd show-trace test-results/throws-its-own-error replays it)',
  );
  const results = join(project.dir, "test-results");
  expect(readdirSync(results).sort()).toEqual(["passes-with-its-trace-on", "throws-its-own-error"]);
  expect(readdirSync(join(results, "passes-with-its-trace-on")).sort()).toEqual([
    "terminal.cast",
    "terminal.png",
    "terminal.screen.txt",
    "terminal.svg",
  ]);

  const shown = await termd(["show-trace", join(results, "throws-its-own-error"), "--max-idle", "0"]);
  expect(shown.code).toBe(0);
  expect(shown.stderr).toBe("── terminal.cast: 24x80 ──\n");
  expect(shown.stdout).toContain("thrown\r\n\x1b[1mbold\x1b[0m\r\n");

  const none = await termd(["show-trace", project.dir]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain(`${project.dir} holds no recording (.cast): was the test's trace kept?`);
}, 60_000);
