// The descriptors a pty worker holds that only it would close (its sessions' log files while
// they are open, and a PTY's master from its open until the daemon's thread is told of it, which
// closes it from then on: pty-master.ts), written down in memory the daemon's thread shares. Bun does not close a terminated
// worker's descriptors: when a worker dies, its pool closes what this says it held
// (pty-pool.ts). A bitmap indexed by descriptor, grown in place as higher ones come. The worker marks a descriptor once it is open and clears it
// before it closes it: a death between the two leaks one at worst, and never closes a number
// someone else has opened since.

/** Descriptors below 8M are recorded; a higher one (a limit past 8M) would only leak. */
const MAX_BYTES = 1 << 20;
const START_BYTES = 256;

export class FdLedger {
  private readonly bits: Int32Array;

  /** The pool makes the buffer; the worker it is sent to records in it. */
  constructor(readonly buffer = new SharedArrayBuffer(START_BYTES, { maxByteLength: MAX_BYTES })) {
    // Without a length the view follows the buffer as it grows, on either thread.
    this.bits = new Int32Array(buffer);
  }

  hold(fd: number): void {
    const word = fd >>> 5;
    if (word >= this.bits.length) {
      const bytes = Math.min(MAX_BYTES, Math.max(2 * this.buffer.byteLength, 4 * (word + 1)));
      if (4 * word >= bytes) return;
      this.buffer.grow(bytes);
    }
    Atomics.or(this.bits, word, 1 << (fd & 31));
  }

  drop(fd: number): void {
    const word = fd >>> 5;
    if (word < this.bits.length) Atomics.and(this.bits, word, ~(1 << (fd & 31)));
  }

  /** Every descriptor recorded, lowest first. */
  held(): number[] {
    const out: number[] = [];
    for (let word = 0; word < this.bits.length; word++) {
      const w = Atomics.load(this.bits, word);
      if (w === 0) continue;
      for (let bit = 0; bit < 32; bit++) if (w & (1 << bit)) out.push(32 * word + bit);
    }
    return out;
  }
}
