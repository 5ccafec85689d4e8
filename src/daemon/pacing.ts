// Requests that come in together run in order, each getting its turn before the next starts.
import { clientLog } from "../session/client-log.ts";

/** Resolves once `p` settles or after one turn of the event loop, whichever comes first. */
export function settledOrNextTurn(p: Promise<unknown>): Promise<unknown> {
  const turn = new Promise<void>((resolve) => setImmediate(resolve));
  return Promise.race([p, turn]).catch((err) => clientLog.log("termd: request failed:", err));
}
