// A file a session appends to now and then (its log, its timing journal, a recording), open only
// while it is being written: after IDLE_MS without a write it is closed (idle-files.ts), and the
// next write opens it again for appending. An idle session then holds no descriptor for its
// files, so how many sessions a daemon holds is bounded by their terminals, not by their files
// (it held 7 descriptors a session, 2 of them these).
import { closeSync, constants, openSync, writeSync } from "node:fs";
import type { FdLedger } from "./fd-ledger.ts";
import type { IdleFile, IdleFiles } from "./idle-files.ts";

export class AppendFile implements IdleFile {
  private openFd: number | null = null;
  /** When fd() was last asked for (performance.now()). */
  usedAt = 0;

  /**
   * `idle`: the open files of this daemon or worker, which close this one once idle.
   * `fd`: already open (a recording truncated it first); else the first write opens the file.
   * `create: false`: a file that is gone (its session removed) is not made again: the write fails.
   * `ledger`: where the descriptor is recorded while it is open (a pty worker's, fd-ledger.ts).
   */
  constructor(
    readonly path: string,
    private readonly idle: IdleFiles,
    fd?: number,
    private readonly create = true,
    private readonly ledger: FdLedger | null = null,
  ) {
    if (fd !== undefined) this.adopt(fd);
  }

  /** The descriptor to write to now, opened for appending if it was closed; throws when it cannot be. */
  fd(): number {
    this.usedAt = performance.now();
    if (this.openFd === null)
      this.adopt(this.create ? openSync(this.path, "a", 0o600) : openSync(this.path, constants.O_WRONLY | constants.O_APPEND));
    return this.openFd!;
  }

  /**
   * Appends all of `bytes`, piece by piece: a write can take part of them (a disk filling up), and
   * the next one then says why. `wrote` hears of each piece. Throws once the file takes no more.
   */
  append(bytes: Uint8Array, wrote?: (n: number) => void): void {
    try {
      for (let done = 0; done < bytes.length; ) {
        const n = writeSync(this.fd(), bytes, done, bytes.length - done);
        if (n <= 0) throw new Error("the file took no more bytes");
        done += n;
        wrote?.(n);
      }
    } finally {
      // The sweep that would close it idle has ended with the daemon's (or worker's) timers.
      if (!this.idle.sweeping) this.release();
    }
  }

  /** Closes the descriptor; the next fd() opens the file again. */
  release(): void {
    if (this.openFd === null) return;
    this.idle.closed(this);
    const fd = this.openFd;
    this.openFd = null;
    this.ledger?.drop(fd);
    closeSync(fd);
  }

  private adopt(fd: number): void {
    this.ledger?.hold(fd);
    this.openFd = fd;
    this.usedAt = performance.now();
    this.idle.opened(this);
  }
}
