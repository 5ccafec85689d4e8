// Newline-delimited JSON framing shared by the daemon and the client. Lines are split on bytes,
// not characters, so a UTF-8 sequence split across reads is never mangled, and a line longer
// than the limit is reported once instead of growing memory without bound.

export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * The most a page of output's result holds (session.output's base64, session.cast's escaped event
 * lines): a page stops short of what would pass it, whatever its max_bytes, and its client pages
 * on from `to`. Under MAX_LINE_BYTES, so that a client may bound the lines it reads as the daemon
 * bounds those it reads.
 */
export const MAX_PAGE_REPLY = 8 * 1024 * 1024;
/** What of MAX_PAGE_REPLY a page's output may fill: the rest is the room of its other fields (offsets, eof, a cast's header). */
export const MAX_PAGE_BODY = MAX_PAGE_REPLY - 64 * 1024;

/**
 * Where the pieces of a line go once it is `from` bytes long, instead of being joined here: a
 * daemon has its big lines put together and parsed off its thread.
 */
export interface LongLines<T> {
  readonly from: number;
  /** A line reached `from` bytes: its pieces so far, and each one after, go to what this returns. */
  start(): LongLine<T>;
}

export interface LongLine<T> {
  /** The next piece of the line: the splitter's own copy, its buffer whole, for the taker to keep or transfer. */
  piece(bytes: Uint8Array): void;
  /** The line ended (without its newline): what stands for it among the frames. */
  end(): T;
  /** The line is given up (over the limit, or the connection closed): its pieces are not wanted. */
  drop(): void;
}

/** `long`: a line at least `LongLines.from` bytes long, as its taker's end() stood for it. */
export type Frame<T = never> = { line: string } | { long: T } | { invalidUtf8: true } | { tooLong: number };

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Bytes of a chunk that outlive it, in a buffer of their own (transferable whole). Not `slice()`:
 * a socket's chunk may be a Buffer, whose slice is a view of the same memory.
 */
const copy = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

export class LineSplitter<T = never> {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** The line being read, once it is long: its pieces went there, not into `parts`. */
  private long: LongLine<T> | null = null;

  constructor(
    readonly maxBytes = MAX_LINE_BYTES,
    private readonly longLines?: LongLines<T>,
  ) {}

  /** Feeds one chunk; returns the complete frames it finished. After `tooLong` the caller closes. */
  push(chunk: Uint8Array): Frame<T>[] {
    const frames: Frame<T>[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) {
        frames.push({ tooLong: this.size + piece.length });
        this.reset();
        return frames;
      }
      if (this.longLines && this.size + piece.length >= this.longLines.from) {
        const long = this.goLong();
        if (piece.length > 0) long.piece(copy(piece));
        this.long = null;
        this.reset();
        frames.push({ long: long.end() });
      } else frames.push(this.decode(this.take(piece)));
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      if (this.size + rest.length > this.maxBytes) {
        frames.push({ tooLong: this.size + rest.length });
        this.reset();
        return frames;
      }
      if (this.long) this.long.piece(copy(rest));
      else this.parts.push(copy(rest));
      this.size += rest.length;
      if (!this.long && this.longLines && this.size >= this.longLines.from) this.goLong();
    }
    return frames;
  }

  /** The current line is long: what was held of it goes to its taker, and the rest will. */
  private goLong(): LongLine<T> {
    if (this.long) return this.long;
    const long = this.longLines!.start();
    for (const p of this.parts) long.piece(p);
    this.parts = [];
    this.long = long;
    return long;
  }

  private take(last: Uint8Array): Uint8Array {
    if (this.parts.length === 0) return last;
    const out = new Uint8Array(this.size + last.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    out.set(last, at);
    this.reset();
    return out;
  }

  /** Forgets the line in progress (its taker's pieces included): over the limit, or nobody is reading any more. */
  reset(): void {
    this.long?.drop();
    this.long = null;
    this.parts = [];
    this.size = 0;
  }

  private decode(bytes: Uint8Array): Frame<T> {
    try {
      const line = decoder.decode(bytes);
      return { line: line.endsWith("\r") ? line.slice(0, -1) : line };
    } catch {
      return { invalidUtf8: true };
    }
  }
}
