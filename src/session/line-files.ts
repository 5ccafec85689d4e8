// The line files of one daemon (line-file.ts: the timing journals, the recordings): the files they
// append to, closed while idle (pty/idle-files.ts), and the lines each has put off, written
// within LATER_MS. Registered with the daemon's timers (platform/timers.ts): what is put off is
// written when they flush (a handover's exec) or close (the daemon's), and by a reader of the
// files (read()), so nobody has to remember to.
import { readFileSync } from "node:fs";
import type { Timers } from "../platform/timers.ts";
import { IdleFiles } from "../pty/idle-files.ts";

/** How long a line put off may wait for the next write. */
const LATER_MS = 200;

/** A line file as its batch sees it: lines put off, written by flush(). */
export interface PutOff {
  flush(): void;
}

export class LineFiles {
  /** The files open now, closed once idle. */
  readonly idle: IdleFiles;
  /** Line files with lines put off, not yet written. */
  private readonly waiting = new Set<PutOff>();

  constructor(private readonly timers: Timers) {
    this.idle = new IdleFiles(timers);
    timers.onFlush(() => this.flush());
  }

  /** `f` has lines put off: they are written within LATER_MS (together with those put off meanwhile), or at the next flush. */
  putOff(f: PutOff): void {
    if (this.waiting.has(f)) return;
    this.waiting.add(f);
    // Closed: nothing waits any more.
    if (this.timers.closed) f.flush();
    else this.timers.after(LATER_MS, () => f.flush());
  }

  /** `f` wrote what it had put off. */
  written(f: PutOff): void {
    this.waiting.delete(f);
  }

  /** Writes every line put off. */
  flush(): void {
    for (const f of [...this.waiting]) f.flush();
  }

  /** A line file's text, every line put off written first; null when there is no such file. */
  read(path: string): string | null {
    this.flush();
    try {
      return readFileSync(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }
}
