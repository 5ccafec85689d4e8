import { afterAll, test, expect } from "bun:test";
import { launch } from "termd/testing";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "vim-example-"));
const path = join(dir, "notes.txt");
afterAll(() => rmSync(dir, { recursive: true }));

test("vim saves a file", async () => {
  await using t = await launch(["vim", path], { rows: 24, cols: 80 });
  await t.waitForText("~");
  await t.type("ihello");
  await t.press("Escape");
  await t.type(":wq");
  await t.press("Enter");
  expect((await t.exited()).code).toBe(0);
  expect(readFileSync(path, "utf8")).toBe("hello\n");
});
