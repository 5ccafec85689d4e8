// Newline-delimited JSON framing shared by the daemon and the client. Lines are split on bytes,
// not characters, so a UTF-8 sequence split across reads is never mangled, and a line longer
// than the limit is reported once instead of growing memory without bound.

export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** `bytes`: a line at least `rawFrom` long, left undecoded for the caller to decode and parse off its thread. */
export type Frame = { line: string } | { bytes: Uint8Array } | { invalidUtf8: true } | { tooLong: number };

const decoder = new TextDecoder("utf-8", { fatal: true });

export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;

  constructor(
    readonly maxBytes = MAX_LINE_BYTES,
    private readonly rawFrom = Infinity,
  ) {}

  /** Feeds one chunk; returns the complete frames it finished. After `tooLong` the caller closes. */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
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
      const bytes = this.take(piece);
      frames.push(bytes.length >= this.rawFrom ? { bytes } : this.decode(bytes));
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      if (this.size + rest.length > this.maxBytes) {
        frames.push({ tooLong: this.size + rest.length });
        this.reset();
        return frames;
      }
      this.parts.push(rest.slice());
      this.size += rest.length;
    }
    return frames;
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

  private reset(): void {
    this.parts = [];
    this.size = 0;
  }

  private decode(bytes: Uint8Array): Frame {
    try {
      const line = decoder.decode(bytes);
      return { line: line.endsWith("\r") ? line.slice(0, -1) : line };
    } catch {
      return { invalidUtf8: true };
    }
  }
}
