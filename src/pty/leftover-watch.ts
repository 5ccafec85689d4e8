// The stops under way (child.ts's stop), each waiting until no process of its program's terminal
// session is left: what is left at its killAt gets SIGKILL, and at its giveUpAt it is done
// whatever is left. One scan of the process table every LEFTOVER_POLL_MS serves every stop, so
// stopping N sessions at once scans once a round, not N times. It runs on the daemon's timers
// (platform/timers.ts): when they close (the daemon's close), what every stop still watching left
// gets SIGKILL at once and the stop is done: its program has ended, so the session's kill() at
// close reaches nothing of it, and this is the last hand on what it left.
import type { Cancel, Timers } from "../platform/timers.ts";
import { rescan, sessionMembers, signalSession } from "./processes.ts";

/** How often the stops under way look for what their programs left behind. */
const LEFTOVER_POLL_MS = 20;

interface Leftovers {
  sid: number;
  /** When whatever is left gets SIGKILL (performance.now()). */
  killAt: number;
  /** When to stop looking, whatever is left. */
  giveUpAt: number;
  done: () => void;
}

export class LeftoverWatch {
  private readonly watched = new Set<Leftovers>();
  private look: Cancel | null = null;

  constructor(private readonly timers: Timers) {
    timers.onClose(() => this.killAll());
  }

  /** Stops under way. */
  get size(): number {
    return this.watched.size;
  }

  /**
   * Resolves once no process of terminal session `sid` is left: what is left at `killAt` gets
   * SIGKILL, and at `giveUpAt` it resolves whatever is left. When the daemon closes, what is left
   * gets SIGKILL then and it resolves.
   */
  emptied(sid: number, killAt: number, giveUpAt: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.watched.add({ sid, killAt, giveUpAt, done: resolve });
    if (this.timers.closed) this.killAll();
    // The first look comes a moment later, so programs that end together are looked at together.
    else this.look ??= this.timers.after(1, () => this.sweep());
    return promise;
  }

  /** One scan for every stop under way: each is done once its session is empty, or at its giveUpAt. */
  private sweep(): void {
    this.look = null;
    const now = performance.now();
    for (const w of [...this.watched]) {
      const left = sessionMembers(w.sid);
      if (left.length === 0 || now >= w.giveUpAt) {
        this.watched.delete(w);
        w.done();
      } else if (now >= w.killAt) signalSession(w.sid, "SIGKILL");
    }
    if (this.watched.size > 0) this.look = this.timers.after(LEFTOVER_POLL_MS, () => this.sweep());
  }

  /**
   * SIGKILL to what every stop under way left, and those stops done: the daemon closes, or its
   * image goes (a handover's exec, whose record carries only running programs).
   */
  killAll(): void {
    // The last look: a turn's shared scan may predate a process made since (CI caught one missed).
    if (this.watched.size > 0) rescan();
    for (const w of this.watched) {
      signalSession(w.sid, "SIGKILL");
      w.done();
    }
    this.watched.clear();
  }
}
