// The HTTP transport's one secret, the bearer token (protocol/token.ts says where it comes from),
// compared in constant time. The page's cookie carries a sign-in of the daemon's (sign-ins.ts),
// never the token or anything made from it.
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant-time: both sides are hashed first, so neither the length nor a prefix leaks. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
