// Every output byte of one session, addressed by absolute offsets that only grow: the recent
// megabyte in a ring, all of it in an append-only file. A reader asks for [from, from+max) and
// gets it from the ring, or from the file once the ring moved on. It also remembers where the
// output was last anything but plain text, so the screen knows, without scanning, whether a
// backlog can be fast-forwarded (session/fast-forward.ts).
import { closeSync, existsSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { RingBuffer } from "./ring.ts";

/** Offset just past the last byte in `bytes` that is not plain text (ESC, SO, SI, a C1 control), or -1. */
function lastNonPlain(bytes: Uint8Array): number {
  let last = Math.max(bytes.lastIndexOf(0x1b), bytes.lastIndexOf(0x0e), bytes.lastIndexOf(0x0f));
  // C1 controls arrive UTF-8 encoded as C2 80..C2 9F.
  for (let i = bytes.lastIndexOf(0xc2); i > last; i = i > 0 ? bytes.lastIndexOf(0xc2, i - 1) : -1) {
    const next = bytes[i + 1];
    if (next === undefined || (next >= 0x80 && next <= 0x9f)) {
      last = i + 1;
      break;
    }
  }
  return last < 0 ? -1 : last + 1;
}

const SCAN_CHUNK = 1024 * 1024;

export class OutputLog {
  readonly ring = new RingBuffer();
  private fd: number | null = null;
  /** Every byte from here on is plain text. */
  plainFrom = 0;
  /** Why writing the file stopped, when it did. */
  error: string | null = null;

  constructor(
    readonly path: string,
    private readonly label: string,
  ) {}

  /** Opens the file for appending (a new session). */
  open(): void {
    this.fd = openSync(this.path, "a", 0o600);
  }

  /** Takes up an ended session's file: its end, and its last megabyte in the ring. */
  restore(): Uint8Array {
    const size = existsSync(this.path) ? statSync(this.path).size : 0;
    this.ring.end = Math.max(0, size - this.ring.capacity);
    const tail = this.readFile(this.ring.end, size - this.ring.end);
    this.ring.append(tail);
    // Backwards to the last byte that is not plain text, so a plain log replays fast-forwarded.
    this.plainFrom = 0;
    for (let to = size; to > 0; ) {
      const from = Math.max(0, to - SCAN_CHUNK);
      const at = lastNonPlain(this.read(from, to - from));
      if (at >= 0) {
        this.plainFrom = from + at;
        break;
      }
      to = from;
    }
    return tail;
  }

  get end(): number {
    return this.ring.end;
  }

  /** Oldest offset the ring holds; older bytes come from the file. */
  get start(): number {
    return this.ring.start;
  }

  append(data: Uint8Array): void {
    const from = this.ring.end;
    this.ring.append(data);
    const at = lastNonPlain(data);
    if (at >= 0) this.plainFrom = from + at;
    if (this.fd === null) return;
    try {
      writeSync(this.fd, data);
    } catch (err) {
      // A full disk: stop logging (the file stays a correct prefix) rather than lose the session.
      this.error = (err as Error).message;
      console.error(`termd: session ${this.label}: log write failed, logging stops: ${this.error}`);
      this.close();
    }
  }

  /** Bytes [from, from+max) from the ring, or from the file once the ring moved on. */
  read(from: number, max: number): Uint8Array {
    const start = Math.min(from, this.ring.end);
    return this.ring.read(start, max) ?? this.readFile(start, Math.min(max, this.ring.end - start));
  }

  private readFile(from: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    if (len === 0) return out;
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return out.subarray(0, 0);
    }
    try {
      let got = 0;
      while (got < len) {
        const n = readSync(fd, out, got, len - got, from + got);
        if (n <= 0) break;
        got += n;
      }
      return out.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
