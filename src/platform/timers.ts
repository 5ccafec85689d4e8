// The timers of one daemon (or of one worker thread), in one place: the sweeps, batches and
// pacing its parts run register here, never in a module global, so the daemon that made it ends
// them all with one close() and nothing of one daemon runs on into the next (tests run several
// in one process, one after another). tmux has one loop own the periodic work
// (server_client_loop); this is that owner. Work put off must not be lost when it closes: a part
// says how to finish it now (onFlush: lines not written yet) and how to let go of what it holds
// (onClose: files open, answers owed).

/** Undoes a registration: a timer that has not fired does not, a hook is not run. */
export type Cancel = () => void;

const nothing: Cancel = () => {};

export class Timers {
  private readonly timeouts = new Set<Timer>();
  private readonly immediates = new Set<ReturnType<typeof setImmediate>>();
  private readonly flushes = new Set<() => void>();
  private readonly closes = new Set<() => void>();
  private closed_ = false;

  /** Closed: no timer starts any more, and owed work is done at once instead of later. */
  get closed(): boolean {
    return this.closed_;
  }

  /** Timers started and not yet fired or cancelled. */
  get pending(): number {
    return this.timeouts.size + this.immediates.size;
  }

  /** Runs `fn` once, `ms` from now. A timer never keeps the process up by itself. */
  after(ms: number, fn: () => void): Cancel {
    if (this.closed_) return nothing;
    const t = setTimeout(() => {
      this.timeouts.delete(t);
      fn();
    }, ms);
    t.unref();
    return this.hold(t);
  }

  /** Runs `fn` every `ms` until cancelled or closed. */
  every(ms: number, fn: () => void): Cancel {
    if (this.closed_) return nothing;
    const t = setInterval(fn, ms);
    t.unref();
    return this.hold(t);
  }

  /** Runs `fn` on the next turn of the event loop, after the sockets have been read. */
  nextTurn(fn: () => void): Cancel {
    if (this.closed_) return nothing;
    const i = setImmediate(() => {
      this.immediates.delete(i);
      fn();
    });
    this.immediates.add(i);
    return () => {
      clearImmediate(i);
      this.immediates.delete(i);
    };
  }

  /** `fn` finishes work put off (a batch of lines): run by flush() and by close(). */
  onFlush(fn: () => void): Cancel {
    this.flushes.add(fn);
    return () => this.flushes.delete(fn);
  }

  /** `fn` lets go of what a part holds: run once by close(), after the flushes and with every timer stopped. */
  onClose(fn: () => void): Cancel {
    this.closes.add(fn);
    return () => this.closes.delete(fn);
  }

  /** Finishes the work put off now (before a handover's exec, or a reader of the files). */
  flush(): void {
    for (const fn of [...this.flushes]) fn();
  }

  /** Flushes, stops every timer and runs the closes; a second call does nothing. */
  close(): void {
    if (this.closed_) return;
    this.flush();
    this.closed_ = true;
    for (const t of this.timeouts) clearTimeout(t);
    for (const i of this.immediates) clearImmediate(i);
    this.timeouts.clear();
    this.immediates.clear();
    for (const fn of [...this.closes]) fn();
    this.flushes.clear();
    this.closes.clear();
  }

  private hold(t: Timer): Cancel {
    this.timeouts.add(t);
    return () => {
      clearTimeout(t);
      this.timeouts.delete(t);
    };
  }
}
