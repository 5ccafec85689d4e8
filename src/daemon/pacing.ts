// Requests that come in together run in order, each getting its turn before the next starts.
import { logFault } from "./errors.ts";

/** Resolves once `p` settles or after one turn of the event loop, whichever comes first. */
export function settledOrNextTurn(p: Promise<unknown>): Promise<unknown> {
  const turn = new Promise<void>((resolve) => setImmediate(resolve));
  return Promise.race([p, turn]).catch((err) => logFault("a request", err));
}
