// How long a daemon takes to park its idle screens (--screen-park frees their emulators): what the
// bench's idle section and the soak's both time.
import type { Client } from "../../src/client/index.ts";
import { until } from "../concurrency.ts";

/** Resolves once the daemon's workers hold at least `count` parked screens, with the time that took, ms. */
export async function screensParked(c: Client, count: number, timeoutMs: number): Promise<number> {
  const t = performance.now();
  await until(
    "every idle screen parked",
    timeoutMs,
    async () => {
      const { workers, pty_workers } = await c.call("system.screens");
      return [...workers, ...pty_workers].reduce((sum, w) => sum + w.parked, 0) >= count ? true : undefined;
    },
    250,
  );
  return performance.now() - t;
}
