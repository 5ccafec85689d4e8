// Wrong tokens at the sign-in form, slowed down per address: after a few, each further one locks
// that address out of /login for twice as long as the last (up to a minute), so guessing a weak
// TERMD_TOKEN costs hours per thousand tries. A right token ends the count. Behind a reverse
// proxy every client shares the proxy's address: a guesser there slows the others' sign-ins too,
// for at most a minute.

/** Wrong tries an address has before it must wait. */
export const FREE_TRIES = 3;
const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 60_000;
/** Addresses remembered at most: the oldest are forgotten first. */
const MAX_ADDRESSES = 10_000;

interface Tries {
  wrong: number;
  /** No try from this address counts before this (ms since the epoch). */
  lockedUntil: number;
}

export class LoginThrottle {
  private readonly byAddress = new Map<string, Tries>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds `address` must still wait before it may try; 0: it may. */
  wait(address: string): number {
    const t = this.byAddress.get(address);
    return t ? Math.max(0, t.lockedUntil - this.now()) : 0;
  }

  failed(address: string): void {
    const t = this.byAddress.get(address) ?? { wrong: 0, lockedUntil: 0 };
    this.byAddress.delete(address); // re-inserted last: the map stays oldest first
    t.wrong++;
    if (t.wrong >= FREE_TRIES) t.lockedUntil = this.now() + Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (t.wrong - FREE_TRIES));
    this.byAddress.set(address, t);
    for (const oldest of this.byAddress.keys()) {
      if (this.byAddress.size <= MAX_ADDRESSES) break;
      this.byAddress.delete(oldest);
    }
  }

  succeeded(address: string): void {
    this.byAddress.delete(address);
  }
}
