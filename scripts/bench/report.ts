// How the bench reports: verdicts against the targets, and a section whose failure is its own.
import { f2 } from "../common/measure.ts";
import { percentile } from "../common/measure.ts";

export const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

export const NONE = "—";

/** p50 / p99 / max, ms. */
export const spread = (xs: number[]) => `${f2(percentile(xs, 0.5))} / ${f2(percentile(xs, 0.99))} / ${f2(Math.max(...xs))}`;

/** Runs one section; a failure is reported as such and the sections after it still run. */
export async function section(name: string, verdicts: string[][], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    console.log(`${name}: failed: ${(err as Error).message}\n`);
    verdicts.push([name, "failed", "MISS"]);
  }
}
