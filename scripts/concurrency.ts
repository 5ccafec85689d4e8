// Small helpers the bench and the soak share: a bounded pool of jobs, and polling for a value.

/** Runs job(0 … n-1) with at most `width` in flight. */
export async function inPool(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

/** Polls `probe` every `pauseMs` until it gives a value; throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  pauseMs = 1,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(pauseMs);
  }
}
