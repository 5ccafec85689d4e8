// A full garbage collection once the daemon goes quiet after a burst that left its heap high.
// What a hostile client's requests allocate (the big strings of its lines, the replies) is garbage
// as soon as they are answered, but JSC collects it only when its allocation pacing says so, and
// Bun's own idle collection comes 10 s after the heap stops growing: after big lines, 20–40 MB of
// the daemon's RSS waited for it (once still 20 s after). A forced full collection (which also hands the freed pages back
// to the system) gives it back at once, in ~4 ms for the few MB that stay alive. It runs on the
// daemon's thread, so only once no client has sent or been sent a byte for QUIET_MS, and only when
// the JS heap (what a collection can free: its objects and the strings and buffers they hold) grew
// by GROWTH since the last one: a daemon whose clients come now and then never pays for one. The
// request-line parser's thread collects its own garbage (line-parser-worker.ts).

/** Quiet time after the last byte in or out before a collection may run. */
export const QUIET_MS = 2000;
/** How often the quiet is checked (one comparison; the heap's size is read once per quiet period). */
export const CHECK_EVERY_MS = 1000;
/** Heap growth over the smallest seen since the last collection that is worth one. */
export const GROWTH = 8 * 1024 * 1024;

export interface IdleCollectorParts {
  /** A number that changes whenever a client is served (the daemon's byte and request counters). */
  activity: () => number;
  /** The JS heap's size, what its objects hold outside it included. */
  heap: () => number;
  /** A full, synchronous collection that gives freed memory back (Bun.gc(true)). */
  collect: () => void;
  now: () => number;
}

/** The decision, apart from its timer (the daemon's, every CHECK_EVERY_MS) so that a test can drive it. */
export class IdleCollector {
  private last: number;
  private changedAt: number;
  /** Activity since the heap was last looked at: a quiet period is judged once. */
  private unjudged = false;
  /** The smallest heap seen since the last collection: growth is measured from it. */
  private floor: number;

  constructor(private readonly parts: IdleCollectorParts) {
    this.last = parts.activity();
    this.changedAt = parts.now();
    this.floor = parts.heap();
  }

  /** One check: true if it collected. */
  check(): boolean {
    const { activity, heap, collect, now } = this.parts;
    const a = activity();
    if (a !== this.last) {
      this.last = a;
      this.changedAt = now();
      this.unjudged = true;
      return false;
    }
    if (!this.unjudged || now() - this.changedAt < QUIET_MS) return false;
    this.unjudged = false;
    const before = heap();
    if (before - this.floor < GROWTH) {
      this.floor = Math.min(this.floor, before);
      return false;
    }
    collect();
    this.floor = heap();
    return true;
  }
}
