// A PTY master: one descriptor, two threads on it, a pool that cleans up after a dead worker, and an
// exec it may cross. As a tmux pane's descriptor has one place that sets up its reading
// (window_pane_set_event) and one that closes it (window_pane_destroy), each thing done to a
// master termd holds (native-pty.ts, adopted-pty.ts; Bun.Terminal's are Bun's) has one owner:
//
//   opens   the pty worker, for a program it starts (openMaster). Until it has told the daemon's
//           thread of it ("spawned", pty-messages.ts) the master is the worker's alone and is
//           recorded in its FdLedger, so that its pool closes it should the worker die meanwhile;
//           it leaves the ledger just before the message (handOver). A master from a handover was
//           opened by an earlier image: the daemon's thread owns it from the record on, and gives
//           it to a worker to read ("adopt").
//   reads   the worker alone: its poll loop (pty-reactor.ts), from the start until the program
//           ended, when it stops polling it before it says "exit". The terminal's size and termios
//           (ioctls) are the worker's too.
//   writes  the daemon's thread, straight (PtyMaster.write), while nothing waits in the worker's
//           queue; the worker, what it queued because the terminal had no room. The drain count
//           keeps the two in order (child.ts).
//   closes  the daemon's thread, once (PtyMaster.close): after the "exit", or when the worker
//           died (child.ts), or, for a master a handover passed, when no session took it over
//           (daemon/daemon.ts). The worker closes one only when its program failed to start,
//           before "spawned" (closeUnstarted). A close anywhere else could leave a thread reading
//           or writing a number the process has since given to another file.
//   crosses an exec: the daemon's thread passes it on (PtyMaster.descriptor, daemon/handover.ts)
//           with FD_CLOEXEC cleared, once the workers stopped reading; the next image adopts it.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import type { FdLedger } from "./fd-ledger.ts";

/** The worker's side: a new master for a program about to start, recorded in `ledger` until handed over. */
export function openMaster(ledger: FdLedger | null): number {
  const fd = openSync("/dev/ptmx", constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  ledger?.hold(fd);
  return fd;
}

/** The worker's side: its program did not start, and the daemon's thread never heard of the master. */
export function closeUnstarted(fd: number, ledger: FdLedger | null): void {
  ledger?.drop(fd);
  closeSync(fd);
}

/**
 * The worker's side, just before "spawned": the daemon's thread closes the master from here on. Out
 * of the ledger first: a death between the two leaks the master, and never has it closed twice.
 */
export function handOver(fd: number, ledger: FdLedger | null): void {
  ledger?.drop(fd);
}

/** The daemon's thread's side: what it writes to the master, passes across an exec, and closes. */
export class PtyMaster {
  private fd: number | null;

  constructor(fd: number) {
    this.fd = fd;
  }

  /** The descriptor while open: what a handover passes to the next image. */
  get descriptor(): number | null {
    return this.fd;
  }

  /** Writes what the terminal has room for now; the rest is the caller's to queue. */
  write(bytes: Uint8Array): number {
    if (this.fd === null) return 0;
    try {
      return writeSync(this.fd, bytes);
    } catch {
      return 0; // EAGAIN (no room) or EIO (hanging up)
    }
  }

  /** Once: the worker no longer reads it (the program's exit, or the worker's death). */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    closeSync(fd);
  }
}
