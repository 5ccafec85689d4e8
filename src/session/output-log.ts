// Every output byte of one session, addressed by absolute offsets that only grow: the recent
// megabyte in a ring, all of it in an append-only file. A reader asks for [from, from+max) and
// gets it from the ring, or from the file once the ring moved on. It also remembers where the
// output was last anything but plain text, so the screen knows, without scanning, whether a
// backlog can be fast-forwarded (terminal/fast-forward.ts).
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync, statSync } from "node:fs";
import { RingBuffer } from "./ring.ts";
import { lastNonPlain } from "../terminal/fast-forward.ts";
import type { LogFailure } from "../pty/log-writer.ts";

const SCAN_CHUNK = 1024 * 1024;

export class OutputLog {
  readonly ring = new RingBuffer();
  /** Every byte from here on is plain text. */
  plainFrom = 0;
  /** Why writing the file stopped, when it did. */
  error: string | null = null;
  /**
   * The file holds output [0, fileEnd): past it, once a write failed, only the ring has bytes. The
   * pty worker that reads the program writes the file (pty/log-writer.ts) before the bytes get here.
   */
  private fileEnd = 0;
  /**
   * Once the file stopped: output past it that the ring let go of before the screen read it,
   * oldest first. The screen must see every byte whatever the disk kept; the session stops the
   * program's output long before this grows far (ringOnly), so it holds what was in flight.
   */
  private spill: { from: number; bytes: Uint8Array }[] = [];
  /** The screen has read the output up to here (keepFor). */
  private screenAt = 0;

  constructor(
    readonly path: string,
    private readonly label: string,
  ) {}

  /**
   * The file the pty worker appends a run's output to (created now: a path that cannot be written
   * fails the session's creation), or null once writing stopped for good.
   */
  create(): string | null {
    if (this.error !== null) return null;
    const fd = openSync(this.path, "a", 0o600);
    try {
      // Bytes past the output's end never reached this thread (a pty worker died between its
      // write and its message): the next run's offsets must be the file's.
      if (fstatSync(fd).size > this.end) ftruncateSync(fd, this.end);
    } finally {
      closeSync(fd);
    }
    return this.path;
  }

  /** Takes up an ended session's file: its end, and its last megabyte in the ring. */
  restore(): Uint8Array {
    const size = existsSync(this.path) ? statSync(this.path).size : 0;
    this.ring.end = Math.max(0, size - this.ring.capacity);
    const tail = this.readFile(this.ring.end, size - this.ring.end);
    this.ring.append(tail);
    this.fileEnd = size;
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

  /**
   * Output the file has already; `failed`: only up to its `end`, and no more from now on.
   * `nonPlain`: the offset just past its last byte that is not plain text (-1: none), which the
   * thread that read it found (lastNonPlain).
   */
  append(data: Uint8Array, nonPlain: number, failed?: LogFailure): void {
    if (this.error !== null) this.spillDropped(data);
    this.ring.append(data);
    if (nonPlain >= 0) this.plainFrom = nonPlain;
    if (this.error !== null) return;
    if (!failed) {
      this.fileEnd = this.ring.end;
      return;
    }
    this.fileEnd = failed.end;
    this.error = failed.error;
    console.error(`termd: session ${this.label}: log write failed, logging stops: ${this.error}`);
  }

  /** How many bytes from `from` on only memory holds, the file having stopped. */
  ringOnly(from: number): number {
    return this.error === null ? 0 : this.ring.end - Math.max(from, this.fileEnd);
  }

  /** The screen has read the output up to `offset`: what the file could not keep is held until then, and no longer. */
  keepFor(offset: number): void {
    this.screenAt = offset;
    while (this.spill.length > 0 && this.spill[0]!.from + this.spill[0]!.bytes.length <= offset) this.spill.shift();
  }

  /** Keeps what appending `data` pushes out of the ring that neither the file nor the screen has. */
  private spillDropped(data: Uint8Array): void {
    const ring = this.ring;
    const newStart = Math.max(0, ring.end + data.length - ring.capacity);
    const from = Math.max(ring.start, this.screenAt, this.fileEnd);
    if (from >= newStart) return;
    if (from < ring.end) this.spill.push({ from, bytes: ring.read(from, Math.min(newStart, ring.end) - from)! });
    // A chunk larger than the ring pushes out its own head too.
    if (newStart > ring.end) {
      const at = Math.max(from, ring.end);
      this.spill.push({ from: at, bytes: data.slice(at - ring.end, newStart - ring.end) });
    }
  }

  /** Bytes from `from` that the spill holds (up to `max`, within one piece), or null. */
  private readSpill(from: number, max: number): Uint8Array | null {
    for (const p of this.spill) {
      if (from >= p.from && from < p.from + p.bytes.length) return p.bytes.slice(from - p.from, from - p.from + max);
    }
    return null;
  }

  /**
   * Where bytes exist again when those at `from` exist nowhere (the file stopped at a failed write
   * and the ring has moved on): the end of that gap; null when `from` is readable.
   */
  gapEnd(from: number): number | null {
    if (from >= this.ring.start || from < this.fileEnd || this.readSpill(from, 1)) return null;
    return this.spill.find((p) => p.from > from)?.from ?? this.ring.start;
  }

  /** Bytes [from, from+max) from the ring, or from the file once the ring moved on: always a fresh copy. */
  read(from: number, max: number): Uint8Array {
    const start = Math.min(from, this.ring.end);
    const inMemory = this.ring.read(start, max) ?? (start >= this.fileEnd ? this.readSpill(start, max) : null);
    return inMemory ?? this.readFile(start, Math.min(max, this.ring.end - start));
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
}
