// The read loop of a pty worker whose PTYs termd owns (native-pty.ts): one poll(2) over every
// master, then at most SLICE bytes read from each ready one, round after round. A flooding program
// thus gets one slice per round like every other, and cannot starve a quiet session on the same
// thread. A paused master is polled for its hangup alone: nothing reads it, the PTY's buffer fills
// and the kernel blocks the program in write(2) — tmux's flow control, with no byte lost and no
// XOFF. Once every holder of its terminal let it go, what the PTY holds (64 KiB or so: the program
// can add nothing) is read at once, paused or not, and the hangup told, so that a program that ends
// while its output waits is seen to end with all its output. (A handover's hold stops the whole
// worker instead, pty-worker.ts: nothing is read then, a closing terminal's last output included.)
// Between rounds the worker's own event loop runs (its messages, the programs' exits); a message
// from the daemon's thread wakes a waiting poll through a pipe (pty-pool.ts writes it).
import { writeSync } from "node:fs";
import { EAGAIN, POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, type PtyLibc } from "../platform/pty-libc.ts";

/** The most read from one PTY in one round. */
export const SLICE = 64 * 1024;
/**
 * The most output of one PTY handed on and not yet taken by the daemon's thread. Past it the PTY is
 * not read until the daemon acknowledges: a flood then waits in its own PTY, blocked in write(2),
 * instead of queueing megabytes ahead of a quiet session's echo on the daemon's thread.
 */
export const MAX_IN_FLIGHT = 256 * 1024;
/**
 * A slice of at least this much is handed on in the buffer it was read into, which the daemon's
 * thread gives back with its acknowledgement (recycle); a smaller one is copied out. A fresh
 * buffer for every 64 KiB of a flood cost more than reading it: mimalloc gives freed pages back
 * to the system, and each page is faulted in again at 18-25 µs here.
 */
const POOLED_SLICE = 16 * 1024;
/** Buffers kept for reuse: more than one acknowledgement's worth of slices. */
const POOL_MAX = 2 * (MAX_IN_FLIGHT / SLICE) + 2;
/** A read of fewer bytes ends the PTY's slice for this round (see serve). */
const SMALL_READ = 1024;
/** How long a poll waits with nothing to do, so the worker's event loop (exits, timers) still turns. */
const IDLE_POLL_MS = 50;

export interface ReactorEntry {
  /** `ack`: the PTY is held unread until acknowledged() is called for it. */
  data(bytes: Uint8Array, ack: boolean): void;
  /** Everything written so far was taken by the terminal. */
  drain(): void;
  /** The other side closed: every process that had the terminal open has let it go. */
  hangup(): void;
}

interface Watch {
  fd: number;
  entry: ReactorEntry;
  paused: boolean;
  hungUp: boolean;
  /** Output handed on since the last acknowledgement. */
  inFlight: number;
  /** Input the terminal had no room for yet, oldest first. */
  queue: Uint8Array[];
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

export class PtyReactor {
  private readonly watches = new Map<number, Watch>();
  private scheduled = false;
  /** Buffers of SLICE bytes to read into, given back by the daemon's thread. */
  private readonly pool: ArrayBuffer[] = [];
  private readonly wakeBuf = new Uint8Array(64);
  private pollfds = new Int32Array(2 * 64);
  private readonly order: Watch[] = [];

  constructor(
    private readonly libc: PtyLibc,
    /** The read end of the pipe the daemon's thread wakes this loop through. */
    private readonly wakeFd: number,
  ) {}

  add(fd: number, entry: ReactorEntry): void {
    this.watches.set(fd, { fd, entry, paused: false, hungUp: false, inFlight: 0, queue: [] });
    this.schedule();
  }

  /** Stops watching; the caller closes the descriptor. */
  remove(fd: number): void {
    this.watches.delete(fd);
  }

  pause(fd: number, paused: boolean): void {
    const w = this.watches.get(fd);
    if (w) w.paused = paused;
  }

  /** The daemon has taken everything handed on: read again. */
  acknowledged(fd: number): void {
    const w = this.watches.get(fd);
    if (w) w.inFlight = 0;
  }

  /** Buffers slices were handed on in, to read into again. */
  recycle(buffers: ArrayBuffer[]): void {
    for (const b of buffers) if (b.byteLength === SLICE && this.pool.length < POOL_MAX) this.pool.push(b);
  }

  write(fd: number, data: string | Uint8Array): void {
    const w = this.watches.get(fd);
    if (!w || w.hungUp) return;
    w.queue.push(typeof data === "string" ? Buffer.from(data) : data);
    if (w.queue.length === 1) this.flush(w);
    if (w.queue.length === 0) w.entry.drain();
  }

  /** Writes queued input until the terminal has no room. */
  private flush(w: Watch): void {
    while (w.queue.length > 0) {
      const head = w.queue[0]!;
      let n: number;
      try {
        n = writeSync(w.fd, head);
      } catch (err) {
        if (errno(err) === "EAGAIN") return;
        // The terminal is gone (EIO): what was not written never will be.
        w.queue.length = 0;
        return;
      }
      if (n < head.length) {
        w.queue[0] = head.subarray(n);
        return;
      }
      w.queue.shift();
    }
  }

  /** The input queued for `fd` that the terminal has had no room for yet, in one buffer (null: none). */
  queued(fd: number): Uint8Array | null {
    const queue = this.watches.get(fd)?.queue ?? [];
    return queue.length > 0 ? Buffer.concat(queue) : null;
  }

  private schedule(): void {
    if (this.scheduled || this.watches.size === 0) return;
    this.scheduled = true;
    setImmediate(() => this.round());
  }

  private round(): void {
    this.scheduled = false;
    const order = this.order;
    order.length = 0;
    let fds = this.pollfds;
    if (fds.length < 2 * (this.watches.size + 1)) fds = this.pollfds = new Int32Array(4 * (this.watches.size + 1));
    // struct pollfd: int fd; short events; short revents (little-endian: events in the low half).
    fds[0] = this.wakeFd;
    fds[1] = POLLIN;
    let n = 1;
    for (const w of this.watches.values()) {
      if (w.hungUp) continue;
      // Asked for nothing, a master is still polled for its hangup (poll reports it unasked).
      const events = (w.paused || w.inFlight >= MAX_IN_FLIGHT ? 0 : POLLIN) | (w.queue.length > 0 ? POLLOUT : 0);
      fds[2 * n] = w.fd;
      fds[2 * n + 1] = events;
      order.push(w);
      n++;
    }
    const ready = this.libc.poll(fds, n, IDLE_POLL_MS);
    if (ready > 0) {
      if (fds[1]! >>> 16) this.drainWake();
      for (let i = 1; i < n; i++) {
        const revents = fds[2 * i + 1]! >>> 16;
        if (revents) this.serve(order[i - 1]!, revents);
      }
    }
    this.schedule();
  }

  private serve(w: Watch, revents: number): void {
    if (!this.watches.has(w.fd)) return;
    if (revents & POLLOUT) {
      this.flush(w);
      if (w.queue.length === 0) w.entry.drain();
    }
    let ended = (revents & (POLLHUP | POLLERR | POLLNVAL)) !== 0;
    if (revents & (POLLIN | POLLHUP | POLLERR)) {
      const buf = new Uint8Array(this.pool.pop() ?? new ArrayBuffer(SLICE));
      let got = 0;
      let more = true;
      while (got < SLICE) {
        const r = this.libc.read(w.fd, buf, got, SLICE - got);
        if (r > 0) {
          got += r;
          // A small read (a key's echo, a prompt) most likely took all there was: the next poll
          // says when there is more, without a read that fails with EAGAIN after every key. (A
          // PTY read returns at most 4095 bytes, and now and then less with more behind it.) A
          // closing terminal is read on to its end (0 or EIO).
          if (r < SMALL_READ && !ended) {
            more = false;
            break;
          }
          continue;
        }
        more = false;
        // 0 or EIO: the other side closed and everything it wrote was read.
        if (r !== -EAGAIN) ended = true;
        break;
      }
      if (got >= POOLED_SLICE) {
        w.inFlight += got;
        w.entry.data(buf.subarray(0, got), w.inFlight >= MAX_IN_FLIGHT);
      } else {
        this.pool.push(buf.buffer);
        if (got > 0) {
          w.inFlight += got;
          w.entry.data(buf.slice(0, got), w.inFlight >= MAX_IN_FLIGHT);
        }
      }
      // A full slice leaves the rest, and the hangup behind it, to the next round.
      if (more) return;
    }
    if (ended && !w.hungUp) {
      w.hungUp = true;
      w.queue.length = 0;
      w.entry.hangup();
    }
  }

  private drainWake(): void {
    while (this.libc.read(this.wakeFd, this.wakeBuf, 0, this.wakeBuf.length) > 0);
  }
}
