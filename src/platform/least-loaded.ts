// Where a pool of worker threads puts new work (pty/pty-pool.ts's programs, terminal/screen-pool.ts's
// screens): on the slot with the least, a slot not started yet counting as empty, so workers start
// one by one as work comes and a daemon with none runs none.

/** The least loaded of `slots` (the first of equals), started with `start` if it was not. */
export function leastLoaded<T>(slots: (T | null)[], load: (slot: T) => number, start: () => T): T {
  const at = (i: number) => {
    const slot = slots[i];
    return slot ? load(slot) : 0;
  };
  let best = 0;
  for (let i = 1; i < slots.length; i++) if (at(i) < at(best)) best = i;
  return (slots[best] ??= start());
}
