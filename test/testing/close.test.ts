// A Terminal's close: a call that meets the closed session fails with CutShortError, which says
// the terminal was closed and keeps what the call got from the daemon as its cause.
import { expect, test } from "bun:test";
import { CutShortError, launch } from "../../src/testing/index.ts";

test("a call after close() rejects with CutShortError, the daemon's error as its cause", async () => {
  const t = await launch(["cat"], { rows: 3, cols: 20 });
  await t.close();
  const err = await t.screen().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CutShortError);
  expect((err as Error).message).toBe("the terminal was closed while a call was waiting");
  expect((err as Error).cause).toBeInstanceOf(Error);
  expect(((err as Error).cause as Error).message).toContain(t.session);
});
