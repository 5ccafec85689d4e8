import { expect, test } from "bun:test";
import { Timers } from "./timers.ts";

/** Resolves once the event loop has run its timers due now and a turn has passed: what was due by then has fired. */
const loopPassed = () => new Promise<void>((r) => setTimeout(() => setImmediate(r), 0));

test("closing stops every timer that has not fired: none of them runs", async () => {
  const timers = new Timers();
  const fired: string[] = [];
  timers.after(0, () => fired.push("after"));
  timers.every(0, () => fired.push("every"));
  timers.nextTurn(() => fired.push("next turn"));
  expect(timers.pending).toBe(3);
  timers.close();
  expect(timers.pending).toBe(0);
  await loopPassed();
  expect(fired).toEqual([]);
});

test("a timer that fired or was cancelled is no longer held", async () => {
  const timers = new Timers();
  const fired: string[] = [];
  timers.after(0, () => fired.push("after"));
  timers.nextTurn(() => fired.push("next turn"));
  const cancel = timers.every(0, () => fired.push("every"));
  cancel();
  await loopPassed();
  expect(fired.sort()).toEqual(["after", "next turn"]);
  expect(timers.pending).toBe(0);
});

test("once closed, no timer starts", async () => {
  const timers = new Timers();
  timers.close();
  const fired: string[] = [];
  timers.after(0, () => fired.push("after"));
  timers.every(0, () => fired.push("every"));
  timers.nextTurn(() => fired.push("next turn"));
  expect(timers.pending).toBe(0);
  await loopPassed();
  expect(fired).toEqual([]);
});

test("close flushes the work put off, then runs the closes with the timers stopped, once", () => {
  const timers = new Timers();
  const said: string[] = [];
  timers.onFlush(() => said.push(`flush, closed ${timers.closed}`));
  timers.onClose(() => said.push(`close, closed ${timers.closed}, pending ${timers.pending}`));
  const cancelled = timers.onClose(() => said.push("cancelled"));
  cancelled();
  timers.after(1000, () => {});
  timers.flush();
  expect(said).toEqual(["flush, closed false"]);
  timers.close();
  timers.close();
  expect(said).toEqual(["flush, closed false", "flush, closed false", "close, closed true, pending 0"]);
});
