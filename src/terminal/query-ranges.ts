// Where in a session's output the queries termd answers are (queries.ts), as [start, end) stream
// offsets, so an attached terminal's stream can have them cut out without parsing it again.
// QueryRecorder finds them while the vt tap parses (the parser says where each sequence began and
// ended); QueryRanges keeps them, bounded, and cuts them out of any span of the output.
import { ParserState, type Params, type Parser } from "../vt/index.ts";
import { MAX_QUERY_BYTES, isCsiQuery, isDcsQuery, isOscQuery } from "./queries.ts";

/**
 * Ranges kept per session (at most 64 KiB of offsets). Past this the oldest are dropped and
 * `completeFrom` moves past them: a subscriber still sending output from before it finds the
 * queries there by parsing those bytes itself (QueryFilter). Programs ask a handful of queries
 * when they start, so only one that does nothing but ask, with a subscriber far behind, gets there.
 */
export const MAX_QUERY_RANGES = 4096;

export class QueryRanges {
  /** Flat [start0, end0, start1, end1, …] from `head` on, in stream order. */
  private spans: number[] = [];
  private head = 0;
  private complete: number;
  /**
   * While set, every range added or extended is also pushed here as a [start, end) pair (a tap
   * on another thread hands its new ranges on: TapUpdate's `queries`).
   */
  journal: number[] | null = null;

  constructor(
    from = 0,
    private readonly capacity = MAX_QUERY_RANGES,
  ) {
    this.complete = from;
  }

  /** Every query at or after this offset is recorded. */
  get completeFrom(): number {
    return this.complete;
  }

  get size(): number {
    return (this.spans.length - this.head) / 2;
  }

  add(start: number, end: number): void {
    if (end <= start) return;
    this.journal?.push(start, end);
    this.spans.push(start, end);
    if (this.size > this.capacity) this.dropBefore(this.spans[this.head + 1]!);
  }

  /** A query string ended by an ESC at `at`: when ST's backslash follows, the range covers it too. */
  extendLast(at: number, end: number): boolean {
    const n = this.spans.length;
    if (n <= this.head || this.spans[n - 1] !== at) return false;
    this.journal?.push(at, end);
    this.spans[n - 1] = end;
    return true;
  }

  /** A range another tap recorded (a journal's pair): it extends the last one when it starts where that ended. */
  append(start: number, end: number): void {
    if (!this.extendLast(start, end)) this.add(start, end);
  }

  /** Forgets every range that ends at or before `offset` but the last (it may still be extended);
   * queries before `offset` then count as unknown. */
  dropBefore(offset: number): void {
    let h = this.head;
    while (h + 2 < this.spans.length && this.spans[h + 1]! <= offset) h += 2;
    if (h > this.head) this.complete = Math.max(this.complete, this.spans[h - 1]!);
    this.head = h;
    // Compact once the dead half is the larger one: amortised O(1) per range.
    if (this.head > 64 && this.head * 2 > this.spans.length) {
      this.spans = this.spans.slice(this.head);
      this.head = 0;
    }
  }

  /** Starts over at `from`: what came before is unknown (a tap told of a jump in the stream). */
  restart(from: number): void {
    this.spans = [];
    this.head = 0;
    this.complete = from;
  }

  /** `bytes`, which are the output at [from, from + length), without the recorded ranges; the
   * array itself when none falls inside. */
  cut(bytes: Uint8Array, from: number): Uint8Array {
    const to = from + bytes.length;
    const s = this.spans;
    // The first range that ends after `from`.
    let lo = this.head / 2;
    let hi = s.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid * 2 + 1]! <= from) lo = mid + 1;
      else hi = mid;
    }
    let i = lo * 2;
    if (i >= s.length || s[i]! >= to) return bytes;
    const out = new Uint8Array(bytes.length);
    let n = 0;
    let at = from;
    for (; i < s.length && s[i]! < to; i += 2) {
      const start = Math.max(s[i]!, from);
      if (start > at) {
        out.set(bytes.subarray(at - from, start - from), n);
        n += start - at;
      }
      at = Math.max(at, Math.min(s[i + 1]!, to));
    }
    if (at < to) {
      out.set(bytes.subarray(at - from), n);
      n += to - at;
    }
    return out.subarray(0, n);
  }
}

/**
 * The part of a Performer that finds queries: its owner forwards these calls, made while `parser`
 * parses, and the ranges go to `ranges`. A query counts when it is at most MAX_QUERY_BYTES long,
 * ESC to terminator; C0 controls inside a CSI query stay out of its range, since a terminal
 * executes them there.
 */
export class QueryRecorder {
  /** C0 controls executed inside the sequence that began at `controlsOf`. */
  private readonly controls: number[] = [];
  private controlsOf = -1;
  /** The DCS in progress is DECRQSS. */
  private dcsQuery = false;
  /** A query string ended at this ESC: ST's backslash may follow. */
  private stringEsc = -1;

  constructor(
    private readonly parser: Parser,
    readonly ranges: QueryRanges,
  ) {}

  execute(): void {
    const s = this.parser.sequenceStart;
    if (s < 0) return;
    if (this.controlsOf !== s) {
      this.controls.length = 0;
      this.controlsOf = s;
    }
    if (this.controls.length < MAX_QUERY_BYTES) this.controls.push(this.parser.position);
  }

  csi(params: Params, intermediates: string, final: string, marker: string): void {
    if (!isCsiQuery(marker, intermediates, final, params)) return;
    const start = this.parser.sequenceStart;
    const end = this.parser.position + 1;
    if (end - start > MAX_QUERY_BYTES) return;
    let from = start;
    if (this.controlsOf === start) {
      for (const c of this.controls) {
        this.ranges.add(from, c);
        from = c + 1;
      }
    }
    this.ranges.add(from, end);
  }

  esc(intermediates: string, final: string): void {
    if (final === "\\" && intermediates === "" && this.parser.position === this.stringEsc + 1) {
      this.ranges.extendLast(this.stringEsc, this.stringEsc + 2);
    }
    this.stringEsc = -1;
  }

  osc(data: string, bellTerminated: boolean): void {
    if (isOscQuery(data)) this.stringEnded(bellTerminated);
  }

  dcsHook(params: Params, intermediates: string, final: string, marker: string): void {
    this.dcsQuery = isDcsQuery(marker, intermediates, final, params);
  }

  dcsUnhook(cancelled: boolean): void {
    if (this.dcsQuery && !cancelled) this.stringEnded(false);
    this.dcsQuery = false;
  }

  /** An OSC or DCS query ended at the parser's position, by BEL or by the ESC of an ST. */
  private stringEnded(bell: boolean): void {
    const start = this.parser.sequenceStart;
    const at = this.parser.position;
    if (bell) {
      if (at + 1 - start <= MAX_QUERY_BYTES) this.ranges.add(start, at + 1);
      return;
    }
    // Counted with ST's two bytes, so the length does not depend on what follows the ESC.
    if (at + 2 - start > MAX_QUERY_BYTES) return;
    this.ranges.add(start, at);
    this.stringEsc = at;
  }

  /**
   * Where output has to stop for now, after what the parser has read: the start of a sequence
   * that may still turn out to be a query (or the ESC that may be ST's and end one); null when
   * everything read so far is decided.
   */
  holdFrom(): number | null {
    const start = this.parser.sequenceStart;
    if (start < 0 || this.parser.offset - start >= MAX_QUERY_BYTES) return null;
    switch (this.parser.state) {
      case ParserState.CSI_IGNORE:
      case ParserState.DCS_IGNORE:
      case ParserState.SOS_PM_APC_STRING:
      case ParserState.ESCAPE_INTERMEDIATE:
        return null;
      case ParserState.DCS_PASSTHROUGH:
        return this.dcsQuery ? start : null;
      default:
        return start;
    }
  }
}
