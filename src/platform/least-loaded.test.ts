import { expect, test } from "bun:test";
import { leastLoaded } from "./least-loaded.ts";

test("new work goes to the least loaded slot, the first of equals", () => {
  const slots = [{ n: 3 }, { n: 1 }, { n: 1 }];
  expect(
    leastLoaded(
      slots,
      (s) => s.n,
      () => ({ n: 0 }),
    ),
  ).toBe(slots[1]!);
});

test("a slot not started yet counts as empty and is started for the work", () => {
  const slots: ({ n: number } | null)[] = [{ n: 1 }, null, { n: 0 }];
  const started = leastLoaded(
    slots,
    (s) => s.n,
    () => ({ n: 0 }),
  );
  expect(started).toEqual({ n: 0 });
  expect(slots[1]).toBe(started);
  // The empty started slot beats the later one that is as empty: slots fill in order.
  expect(
    leastLoaded(
      slots,
      (s) => s.n,
      () => ({ n: 9 }),
    ),
  ).toBe(started);
});
