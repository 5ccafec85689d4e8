// How many lines of scrollback a snapshot's page holds: the newest of those asked that fit its
// bound with the screen, counted as they go, so a page of 10 million cells in colour (160 MB of
// ANSI, 360 MB of cells) is never built to be cut. Rows are measured a block at a time (one
// serializer call for the block's ANSI, whose per-call cost dwarfs a row's), then one at a time
// in the block that would pass the bound.

/**
 * Where a snapshot's `scrollback` lines are taken: the page ends `end` lines above the screen (0:
 * at its top row), and holds no more of them than fit `budget` bytes of JSON with the screen.
 */
export interface PageAsk {
  end?: number;
  budget?: number;
}

/** Rows measured at once. */
const BLOCK_ROWS = 64;

/** Bytes of `value` as JSON (its part of a reply). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * Of `want` rows, the most (newest first) whose cost fits `room`: `cost(first, n)` is what rows
 * first … first+n-1 take (0 is the newest row of the page).
 */
export function rowsThatFit(want: number, room: number, cost: (first: number, n: number) => number): number {
  let k = 0;
  while (k < want) {
    const n = Math.min(BLOCK_ROWS, want - k);
    const c = cost(k, n);
    if (c <= room) {
      room -= c;
      k += n;
      continue;
    }
    for (let c1: number; k < want && (c1 = cost(k, 1)) <= room; k++) room -= c1;
    return k;
  }
  return k;
}
