// Waiting for a daemon that is starting: its socket answers a moment after the process starts.
// The CLI's autostart, termd/testing's private daemon and a client whose daemon is being replaced
// (client.ts) all wait so.

/**
 * Calls `connect` (once at least) until it succeeds or `deadline` (a Date.now() time) passes, pausing 5 ms after
 * the first failure and twice as long after each next one, up to 100 ms. After each failure
 * `between` runs: it may throw to give up (the starter failed), or return a connection it got itself.
 * Undefined once the deadline passed.
 */
export async function connectWhenUp<T>(
  connect: () => Promise<T>,
  deadline: number,
  between: () => Promise<T | undefined> | T | undefined = () => undefined,
): Promise<T | undefined> {
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return await connect();
    } catch {}
    if (Date.now() >= deadline) return undefined;
    const got = await between();
    if (got) return got;
    await new Promise((r) => setTimeout(r, delay));
  }
}
