// Screen snapshots, seen from a `bun test` process of their own: the first run writes
// __screens__/TEST-FILE/NAME.txt beside the test file, the next ones compare against it (and fail with the
// rows that differ), and --update-snapshots, -u or TERMD_UPDATE_SNAPSHOTS=1 rewrite it.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestDaemon } from "../harness.ts";
import { TestProject } from "./subprocess.ts";

const SNAPSHOT_TEST = `import { test, expect } from "bun:test";
import { launch } from "LIBRARY";

// The short timeouts only bound a comparison that fails: the menu is all drawn once Quit shows.
test("menu screen", async () => {
  await using t = await launch(["sh", "-c", "printf '%b' \\"$MENU\\"; exec cat"], { rows: 4, cols: 24 });
  await t.waitForText("Quit");
  await expect(t).toMatchScreenSnapshot(undefined, { timeout: 1000 });
  await expect(t).toMatchScreenSnapshot("menu-in-colour", { style: true, timeout: 1000 });
});
`;

test("a snapshot is written on first use, then compared, then updated on request", async () => {
  using project = new TestProject();
  const bunTest = (opts: { env: Record<string, string>; args?: string[] }) => project.bunTest("menu.test.ts", opts);
  project.write("menu.test.ts", SNAPSHOT_TEST);
  const plain = join(project.dir, "__screens__", "menu.test.ts", "menu-screen.txt");
  const styled = join(project.dir, "__screens__", "menu.test.ts", "menu-in-colour.styled.txt");
  const menu = (items: string) => ({ MENU: `\\033[1;32mMenu\\033[0m\\n${items}\\nQuit` });

  // First run: both snapshots are created, the header holding the size and the cursor.
  let r = await bunTest({ env: menu("Open") });
  expect(r.output).toContain("(pass) menu screen");
  expect(readFileSync(plain, "utf8")).toBe("# termd screen 4x24, cursor 2,4\nMenu\nOpen\nQuit\n\n");
  expect(readFileSync(styled, "utf8")).toBe("# termd screen 4x24, cursor 2,4 styled\n\x1b[1;32mMenu\x1b[0m\nOpen\nQuit\n\n");

  // Same screen: passes and leaves the files alone.
  r = await bunTest({ env: menu("Open") });
  expect(r.output).toContain("(pass) menu screen");
  expect(readFileSync(plain, "utf8")).toContain("\nOpen\n");

  // A changed screen fails with the rows that differ, and the file stays as it was.
  r = await bunTest({ env: menu("Save") });
  expect(r.code).toBe(1);
  expect(r.output).toContain(`expected the screen to match the snapshot ${plain}`);
  expect(r.output).toContain("- snapshot, + screen; run bun test -u or TERMD_UPDATE_SNAPSHOTS=1 to update it");
  expect(r.output).toContain("-   1│Open\n+   1│Save");
  expect(readFileSync(plain, "utf8")).toContain("\nOpen\n");

  // TERMD_UPDATE_SNAPSHOTS=1 rewrites it.
  r = await bunTest({ env: { ...menu("Save"), TERMD_UPDATE_SNAPSHOTS: "1" } });
  expect(r.output).toContain("(pass) menu screen");
  expect(readFileSync(plain, "utf8")).toContain("\nSave\n");

  // So does bun's own flag, --update-snapshots (and -u); the styled snapshot keeps the new colour.
  r = await bunTest({ env: { MENU: "\\033[1;31mMenu\\033[0m\\nSave\\nQuit" }, args: ["--update-snapshots"] });
  expect(r.output).toContain("(pass) menu screen");
  expect(readFileSync(styled, "utf8")).toContain("\x1b[1;31mMenu\x1b[0m");
  r = await bunTest({ env: menu("Exit"), args: ["-u"] });
  expect(r.output).toContain("(pass) menu screen");
  expect(readFileSync(plain, "utf8")).toContain("\nExit\n");
  // The failed run's artifacts were there; a passing run of the same test clears them.
  expect(existsSync(join(project.dir, "test-results"))).toBe(true);
  expect(existsSync(join(project.dir, "test-results", "menu-screen"))).toBe(false);
}, 90_000);

test("under bun test --ci, or with CI set, a missing snapshot fails instead of being written", async () => {
  using project = new TestProject();
  project.write("menu.test.ts", SNAPSHOT_TEST);
  for (const run of [{ args: ["--ci"] }, { env: { CI: "true" } }]) {
    const r = await project.bunTest("menu.test.ts", { ...run, env: { MENU: "Menu\\nQuit", ...run.env } });
    expect(r.code).toBe(1);
    expect(r.output).toContain("which does not exist (under CI none is written: bun test --ci, or the CI variable)");
    expect(existsSync(join(project.dir, "__screens__", "menu.test.ts", "menu-screen.txt"))).toBe(false);
  }
}, 60_000);

const OBSOLETE_TEST = `import { expect } from "bun:test";
import { test, launch } from "LIBRARY/../bun.ts";

test("current", async () => {
  await using t = await launch(["sh", "-c", "echo now; exec cat"], { rows: 3, cols: 10 });
  await t.waitForText("now");
  await expect(t).toMatchScreenSnapshot();
});

test("other", () => {});
`;

test("a snapshot no test of its file compared is reported once the whole file ran; under CI it fails; -u removes it", async () => {
  using project = new TestProject();
  // One daemon for the four runs (each would start a private one).
  await using d = await TestDaemon.start();
  const env = { TERMD_SOCKET: d.socket };
  project.write("obsolete.test.ts", OBSOLETE_TEST);
  const dir = join(project.dir, "__screens__", "obsolete.test.ts");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "renamed-test.txt"), "# termd screen 3x10, cursor 1,0\nthen\n\n\n");
  writeFileSync(join(dir, "current.txt"), "# termd screen 3x10, cursor 1,0\nnow\n\n\n");
  // Another test file's snapshots are its own.
  mkdirSync(join(project.dir, "__screens__", "another.test.ts"));
  writeFileSync(join(project.dir, "__screens__", "another.test.ts", "theirs.txt"), "");

  let r = await project.bunTest("obsolete.test.ts", { env });
  expect(r.code).toBe(0);
  const report =
    "termd/testing: 1 obsolete snapshot in __screens__/obsolete.test.ts (no test of obsolete.test.ts compared it): renamed-test.txt; remove it, or run with -u (or TERMD_UPDATE_SNAPSHOTS=1)";
  expect(r.output).toContain(report);
  expect(r.output).not.toContain("theirs.txt");

  // Part of the file ran (a filter): nothing can be called obsolete.
  r = await project.bunTest("obsolete.test.ts", { env, args: ["-t", "current"] });
  expect(r.output).toContain("(pass) current");
  expect(r.output).not.toContain("obsolete snapshot");

  r = await project.bunTest("obsolete.test.ts", { env: { ...env, CI: "1" } });
  expect(r.code).toBe(1);
  expect(r.output).toContain(`${report} (a failure under CI)`);

  r = await project.bunTest("obsolete.test.ts", { env, args: ["-u"] });
  expect(r.code).toBe(0);
  expect(r.output).toContain("termd/testing: removed 1 obsolete snapshot from __screens__/obsolete.test.ts: renamed-test.txt");
  expect(readdirSync(dir)).toEqual(["current.txt"]);
  // TERMD_SOCKET's daemon leaves nothing in the runs' temp dir.
  expect(project.leftovers()).toEqual([]);
}, 90_000);

test("a snapshot still at its former place (__screens__/NAME.txt, before a folder per test file) fails naming it, under CI or not, until moved", async () => {
  using project = new TestProject();
  project.write("menu.test.ts", SNAPSHOT_TEST);
  const former = join(project.dir, "__screens__", "menu-screen.txt");
  const now = join(project.dir, "__screens__", "menu.test.ts", "menu-screen.txt");
  mkdirSync(join(project.dir, "__screens__"));
  writeFileSync(former, "# termd screen 4x24, cursor 2,4\nMenu\nOpen\nQuit\n\n");
  for (const env of [{ CI: "1" }, {}]) {
    const r = await project.bunTest("menu.test.ts", { env: { ...env, MENU: "Menu\\nOpen\\nQuit" } });
    expect(r.code).toBe(1);
    expect(r.output).toContain(
      `expected the screen to match the snapshot ${now}, which does not exist; ${former}, where termd/testing kept it before each test file had a folder of snapshots, does: move it (mkdir -p ${join(project.dir, "__screens__", "menu.test.ts")} && mv ${former} ${now}), or run with -u`,
    );
    expect(existsSync(now)).toBe(false);
  }
  mkdirSync(join(project.dir, "__screens__", "menu.test.ts"));
  renameSync(former, now);
  // Moved, it is compared (the styled one, which had no former file, is written).
  const r = await project.bunTest("menu.test.ts", { env: { MENU: "Menu\\nOpen\\nQuit" } });
  expect(r.output).toContain("(pass) menu screen");
}, 90_000);
