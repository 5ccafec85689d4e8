// Lines the daemon logs because of what a client did: faults its requests ran into, files it named
// that stopped taking writes. They are rate limited, so no client can fill the disk through the
// daemon's log: a burst passes, then one line every few seconds; what is left out is counted, and
// the count logged once lines may pass again. Each line is cut at MAX_LINE characters.

/** Lines that may pass at once. */
const BURST = 20;
/** Then one more each this long. */
const REFILL_MS = 3000;
const MAX_LINE = 4096;

import { faultText } from "../terminal/errors.ts";

export class RateLimitedLog {
  private tokens: number;
  private last: number;
  private leftOut = 0;
  private reportTimer: Timer | undefined;

  constructor(
    private readonly write: (line: string) => void = (line) => console.error(line),
    private readonly now: () => number = () => performance.now(),
    private readonly burst = BURST,
    private readonly refillMs = REFILL_MS,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Logs `message` (and `err`, if given) unless the rate is spent; true when it was written. */
  log(message: string, err?: unknown): boolean {
    if (!this.take()) {
      this.leftOut++;
      this.scheduleReport();
      return false;
    }
    this.report();
    const line = err === undefined ? message : `${message} ${faultText(err)}`;
    this.write(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)} … (${line.length - MAX_LINE} more characters)` : line);
    return true;
  }

  /** The count of what was left out is logged as soon as a line may pass, even if none comes. */
  private scheduleReport(): void {
    this.reportTimer ??= setTimeout(() => {
      this.reportTimer = undefined;
      if (this.leftOut === 0) return;
      if (this.take()) this.report();
      else this.scheduleReport();
    }, this.refillMs).unref();
  }

  private take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) / this.refillMs);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  private report(): void {
    if (this.leftOut === 0) return;
    this.write(
      `termd: ${this.leftOut} more log lines caused by clients were left out (at most ${this.burst} at once, then one every ${this.refillMs / 1000} s)`,
    );
    this.leftOut = 0;
  }
}

/** The daemon's one log of what clients caused. */
export const clientLog = new RateLimitedLog();
