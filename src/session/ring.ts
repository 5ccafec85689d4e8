// The recent output of one session, addressed by absolute byte offsets that only grow: a reader
// remembers an offset and asks for what came after it, whether or not the ring wrapped since.

export const RING_BYTES = 1024 * 1024;

export class RingBuffer {
  private readonly buf: Uint8Array;
  /** Offset one past the last byte ever appended. */
  end = 0;

  constructor(readonly capacity = RING_BYTES) {
    this.buf = new Uint8Array(capacity);
  }

  /** Oldest offset still held. */
  get start(): number {
    return Math.max(0, this.end - this.capacity);
  }

  append(data: Uint8Array): void {
    let src = data;
    if (src.length >= this.capacity) src = src.subarray(src.length - this.capacity);
    const at = (this.end + (data.length - src.length)) % this.capacity;
    const first = Math.min(src.length, this.capacity - at);
    this.buf.set(src.subarray(0, first), at);
    if (first < src.length) this.buf.set(src.subarray(first), 0);
    this.end += data.length;
  }

  /** Copies [from, from+max) ∩ [start, end); null when `from` already left the ring. */
  read(from: number, max: number): Uint8Array | null {
    if (from < this.start) return null;
    const to = Math.min(this.end, from + max);
    const out = new Uint8Array(Math.max(0, to - from));
    const at = from % this.capacity;
    const first = Math.min(out.length, this.capacity - at);
    out.set(this.buf.subarray(at, at + first), 0);
    if (first < out.length) out.set(this.buf.subarray(0, out.length - first), first);
    return out;
  }
}
