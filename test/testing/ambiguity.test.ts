// Text found in more than one place: a wait takes the first (reading order) and says where the
// others are; under `strict` it fails at once, showing each place, and so does toShowText.
import { expect, test } from "bun:test";
import { expectTerminal, launch, WaitError } from "../../src/testing/index.ts";

const TWICE = ["sh", "-c", "printf 'done\\nbuild; done\\n'; exec cat"];

test("a wait takes the first of two places and names the other", async () => {
  await using t = await launch(TWICE, { rows: 5, cols: 30 });
  expect(await t.waitForText("done")).toEqual({ row: 0, col: 0, text: "done", also: [{ row: 1, col: 7, text: "done" }] });
  expect(await t.waitForText(/d\w+e/, { row: 1 })).toEqual({ row: 1, col: 7, text: "done" });
  await expect(t).toShowText("done");
});

test("strict: text in two places fails at once, naming and showing both; in one place it passes", async () => {
  await using t = await launch(TWICE, { rows: 5, cols: 30, strict: true });
  const err = await t.waitForText("done").catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WaitError);
  const message = (err as WaitError).message;
  expect(message).toStartWith('"done" is on the screen in 2 places (strict): row 0 col 0, row 1 col 7\n');
  expect(message).toMatch(/› 0│done\n› 1│build; done\n/);
  expect(message).not.toContain("timed out");
  expect(await t.waitForText("build")).toEqual({ row: 1, col: 0, text: "build" });
  expect(await t.waitForText("done", { strict: false })).toMatchObject({ row: 0, col: 0 });

  // The matcher itself, through expectTerminal: bun's expect reports a failed custom matcher to the test, not to a catch.
  const failed = await expectTerminal(t)
    .toShowText("done", { timeout: 5000 })
    .catch((e: unknown) => e as Error);
  expect(failed?.message).toContain('expected the screen to show "done"');
  expect(failed?.message).toContain('"done" is on the screen in 2 places (strict): row 0 col 0, row 1 col 7');
  await expect(t).toShowText("done", { row: 1 });
  await expect(t).not.toShowText("missing", { timeout: 50 });
});
