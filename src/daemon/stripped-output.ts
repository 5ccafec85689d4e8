// An attached terminal's output: the session's bytes without the queries the daemon answers
// itself, so the terminal does not answer them a second time (the program would read two cursor
// reports, two device attributes, and take the second for input). The vt tap has already found
// them while it parsed the live stream (query-ranges.ts): here they are only cut out. Bytes the
// tap has no ranges for (older than its bounded record, or a stream it did not read all of) go
// through a QueryFilter, which finds the queries there by parsing them itself.
import type { OutputStream } from "../session/stream.ts";
import { QueryFilter } from "../terminal/query-filter.ts";

const NONE = new Uint8Array(0);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export class StrippedOutput {
  private fallback: QueryFilter | null = null;

  constructor(private readonly session: OutputStream) {}

  /**
   * Up to `max` bytes of the output [sent, end), queries cut: `to` is where the next call goes on,
   * counting the session's bytes. Null when nothing can go yet: a sequence that may still be a
   * query waits to be decided, unless the session `ended`.
   */
  next(sent: number, end: number, max: number, ended: boolean): { to: number; bytes: Uint8Array } | null {
    const s = this.session;
    const tap = s.tap;
    if (sent >= end) return null;
    // The tap's ranges hold for what it read itself: all of the output when its count is the log's.
    const known = tap.end === end ? tap.queries.completeFrom : Infinity;
    if (sent < known) {
      const bytes = s.readOutput(sent, Math.min(max, known - sent));
      if (bytes.length === 0) return null;
      const f = (this.fallback ??= new QueryFilter());
      const to = sent + bytes.length;
      let out = f.filter(bytes);
      // The tap's ranges go on from here; the filter started wherever this subscriber was, so
      // what it still holds is no query the tap knows of.
      if (to >= known) out = concat(out, this.flush());
      return { to, bytes: out };
    }
    const hold = ended ? null : tap.queryHold;
    const limit = hold === null ? end : Math.min(hold, end);
    if (limit <= sent) return null;
    const bytes = s.readOutput(sent, Math.min(max, limit - sent));
    if (bytes.length === 0) return null;
    return { to: sent + bytes.length, bytes: tap.queries.cut(bytes, sent) };
  }

  /**
   * Is next() from `sent` cut by the tap's ranges alone? Then it depends on nothing but the
   * offsets, and every stripped subscriber there gets the same bytes (output-frames.ts shares them).
   */
  byTap(sent: number, end: number): boolean {
    return this.fallback === null && this.session.tap.end === end && sent >= this.session.tap.queries.completeFrom;
  }

  /** What the fallback filter still holds: at the end of the stream it is output after all. */
  flush(): Uint8Array {
    const out = this.fallback?.flush() ?? NONE;
    this.fallback = null;
    return out;
  }
}
