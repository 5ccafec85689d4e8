// The page's sign-ins, kept by the daemon: the cookie holds a random id that stands for nothing
// else, valid until it expires or its holder signs out, and lost with the daemon (a restart signs
// everyone out). Only a hash of each id is kept, so the table leaks nothing usable.
import { createHash, randomBytes } from "node:crypto";

/** How long a sign-in lasts. */
export const SIGN_IN_TTL_S = 24 * 3600;
/** Sign-ins kept at most; past it the oldest ends (each one is a successful sign-in with the token). */
const MAX_SIGN_INS = 1000;

const hashOf = (id: string) => createHash("sha256").update(id).digest("base64url");

export class SignIns {
  /** Expiry (ms since the epoch) by the id's hash, oldest first. */
  private readonly expiry = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new sign-in: the id for the cookie. */
  start(): string {
    const id = randomBytes(32).toString("base64url");
    this.expiry.set(hashOf(id), this.now() + SIGN_IN_TTL_S * 1000);
    for (const oldest of this.expiry.keys()) {
      if (this.expiry.size <= MAX_SIGN_INS) break;
      this.expiry.delete(oldest);
    }
    return id;
  }

  /** Is `id` a sign-in that has neither expired nor been ended? */
  valid(id: string): boolean {
    const key = hashOf(id);
    const until = this.expiry.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.expiry.delete(key);
    return false;
  }

  /** Signing out: the id stops working at once. */
  end(id: string): void {
    this.expiry.delete(hashOf(id));
  }
}
