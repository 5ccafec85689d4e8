// Mouse input through termd/testing: click, scroll and drag reach a program that turned mouse
// reporting on (vim with `set mouse=a`), encoded for its mode; a program that asked for none
// gets an error that says so.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch } from "termd/testing";
import { RpcError } from "../../src/client/index.ts";

const tmp = mkdtempSync(join(tmpdir(), "termd-testing-mouse-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const file = join(tmp, "lines.txt");
writeFileSync(file, Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the file`).join("\n") + "\n");
const VIM = ["vim", "-u", "NONE", "-i", "NONE", "-N", "-c", "set mouse=a", file];

test("a click moves vim's cursor to the cell, or to a text on the screen", async () => {
  await using t = await launch(VIM, { rows: 10, cols: 40 });
  await t.waitForText("line 9 of");
  await expect(t).toHaveCursorAt(0, 0);
  await t.click({ row: 3, col: 7 });
  await expect(t).toHaveCursorAt(3, 7);
  // A text target: its middle cell ("line 6 of the file" is 18 cells: column 8).
  await t.click("line 6 of the file");
  await expect(t).toHaveCursorAt(5, 8);
});

test("the wheel scrolls vim and a drag selects text", async () => {
  await using t = await launch(VIM, { rows: 10, cols: 40 });
  await t.waitForText("line 9 of");
  await t.scroll("down", 2, { waitFor: { change: true } });
  await expect(t).not.toShowText("line 1 of", { row: 0 });
  const top = await t.line(0);
  expect(top).toMatch(/^line \d+ of the file$/);
  await t.scroll("up", 10);
  await expect(t).toShowText("line 1 of", { row: 0 });
  await t.drag({ row: 1, col: 0 }, { row: 2, col: 5 }, { waitFor: "VISUAL" });
  await expect(t).toShowText("-- VISUAL --", { row: 9 });
});

test("a click on a program that asked for no mouse reporting fails, saying so", async () => {
  await using t = await launch(["cat"], { rows: 5, cols: 20 });
  const err = await t.click({ row: 1, col: 1 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RpcError);
  expect((err as RpcError).name).toBe("MOUSE_NOT_ENABLED");
  await t.type("still usable\r", { waitFor: /^still usable$/ });
});
