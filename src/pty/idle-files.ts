// The append files (append-file.ts) of one daemon, or of one pty worker, that are open now: one
// sweep every IDLE_MS closes those not written since, instead of a timer per file. Closing the
// timers it runs on (platform/timers.ts) closes every file still open, and from then on nothing
// sweeps: a file written after (a killed program's last output, a journal's last line) is closed
// by its writer right after the write.
import type { Cancel, Timers } from "../platform/timers.ts";

/** A file not written for this long is closed until its next write. */
export const IDLE_MS = 1000;

/** An open file as the sweep sees it. */
export interface IdleFile {
  /** When it was last written to (performance.now()). */
  readonly usedAt: number;
  /** Closes its descriptor (and leaves this set); the next write opens it again. */
  release(): void;
}

export class IdleFiles {
  private readonly open = new Set<IdleFile>();
  private sweep: Cancel | null = null;

  constructor(private readonly timers: Timers) {
    timers.onClose(() => {
      this.sweep = null;
      for (const f of [...this.open]) f.release();
    });
  }

  /** Whether files are closed by the sweep once idle; once not, a writer closes its file after each write. */
  get sweeping(): boolean {
    return !this.timers.closed;
  }

  /** Open files, for the tests. */
  get size(): number {
    return this.open.size;
  }

  /** `f` has opened its descriptor: it is closed once idle (or, once nothing sweeps, by its writer). */
  opened(f: IdleFile): void {
    if (!this.sweeping) return;
    this.open.add(f);
    this.sweep ??= this.timers.after(IDLE_MS, () => this.closeIdle());
  }

  /** `f` has closed its descriptor. */
  closed(f: IdleFile): void {
    this.open.delete(f);
  }

  private closeIdle(): void {
    this.sweep = null;
    const now = performance.now();
    for (const f of [...this.open]) if (now - f.usedAt >= IDLE_MS) f.release();
    if (this.open.size > 0) this.sweep = this.timers.after(IDLE_MS, () => this.closeIdle());
  }
}
