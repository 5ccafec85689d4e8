import { expect, test } from "bun:test";
import { FdLedger } from "./fd-ledger.ts";

test("what a worker records, high descriptors too, the pool reads from the same buffer; a dropped one is gone", () => {
  const pool = new FdLedger();
  const worker = new FdLedger(pool.buffer);
  // Past the first 256 bytes (2,048 descriptors) the buffer grows in place, for both views.
  for (const fd of [70_000, 3, 31, 32, 5_000]) worker.hold(fd);
  worker.drop(31);
  worker.drop(12); // never held
  expect(pool.held()).toEqual([3, 32, 5_000, 70_000]);
  // Beyond what the buffer can grow to it records nothing, and throws nothing.
  worker.hold(64 * 1024 * 1024);
  expect(pool.held()).toEqual([3, 32, 5_000, 70_000]);
});
