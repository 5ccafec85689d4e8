import { describe, expect, test } from "bun:test";
import { GROWTH, IdleCollector, QUIET_MS } from "./idle-collect.ts";

/** A collector on a clock, counters and a heap the test sets; a collection drops the heap to `afterCollect`. */
function rig(heap0 = 100 * GROWTH) {
  const w = { t: 0, activity: 0, heap: heap0, afterCollect: heap0, collected: 0 };
  const c = new IdleCollector({
    activity: () => w.activity,
    heap: () => w.heap,
    collect: () => {
      w.collected++;
      w.heap = w.afterCollect;
    },
    now: () => w.t,
  });
  return { w, c };
}

describe("IdleCollector", () => {
  test("collects once the clients have been quiet for QUIET_MS after a burst that raised the heap", () => {
    const { w, c } = rig();
    w.activity += 1000;
    w.heap += 5 * GROWTH;
    w.afterCollect = w.heap - 4 * GROWTH;
    expect(c.check()).toBe(false); // the burst is seen
    w.t += QUIET_MS - 1;
    expect(c.check()).toBe(false); // not quiet long enough
    w.t += 1;
    expect(c.check()).toBe(true);
    expect(w.collected).toBe(1);
    // Once per quiet period: the next checks do nothing until clients are served again.
    w.t += 10 * QUIET_MS;
    expect([c.check(), c.check(), w.collected]).toEqual([false, false, 1]);
  });

  test("never collects while clients are being served, however high the heap", () => {
    const { w, c } = rig();
    w.heap += 50 * GROWTH;
    for (let i = 0; i < 100; i++) {
      w.activity++;
      w.t += QUIET_MS;
      expect(c.check()).toBe(false);
    }
    expect(w.collected).toBe(0);
  });

  test("a quiet period after traffic that did not raise the heap by GROWTH costs no collection", () => {
    const { w, c } = rig();
    w.activity++;
    w.heap += GROWTH - 1;
    c.check();
    w.t += QUIET_MS;
    expect(c.check()).toBe(false);
    expect(w.collected).toBe(0);
  });

  test("growth is measured from the lowest heap seen since the last collection", () => {
    const { w, c } = rig();
    // The heap falls (sessions removed): the floor follows it down.
    w.activity++;
    w.heap -= 10 * GROWTH;
    c.check();
    w.t += QUIET_MS;
    expect(c.check()).toBe(false);
    // A burst of GROWTH over that lower floor is worth a collection, though under the first heap.
    w.activity++;
    w.heap += GROWTH;
    c.check();
    w.t += QUIET_MS;
    expect(c.check()).toBe(true);
    // The next one is measured from what the collection left.
    w.activity++;
    w.heap += GROWTH - 1;
    c.check();
    w.t += QUIET_MS;
    expect([c.check(), w.collected]).toEqual([false, 1]);
  });
});
