// Requests that come in together (the lines of one read, the entries of a batch) run in order,
// each getting its turn before the next starts.

/** Resolves once `p` settles or after one turn of the event loop, whichever comes first; a rejection goes to `onError`. */
export function settledOrNextTurn(p: Promise<unknown>, onError: (err: unknown) => void = () => {}): Promise<unknown> {
  const turn = new Promise<void>((resolve) => setImmediate(resolve));
  return Promise.race([p, turn]).catch(onError);
}
