// The append files (append-file.ts) of one daemon, or of one pty worker, that are open now: one
// sweep every IDLE_MS closes those not written since, instead of a timer per file. Closing the
// timers it runs on (platform/timers.ts) closes every file still open.
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
      for (const f of [...this.open]) f.release();
    });
  }

  /** Open files, for the tests. */
  get size(): number {
    return this.open.size;
  }

  /** `f` has opened its descriptor: it is closed once idle. */
  opened(f: IdleFile): void {
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
