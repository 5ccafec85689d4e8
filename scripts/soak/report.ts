// How the soak reports: its summary rows, and a section whose failure is its own.
import { f1 } from "../common/measure.ts";

export const n0 = (x: number) => x.toLocaleString("en-US");

/** Label and value rows, the values left-aligned. */
export function kv(rows: string[][], indent = "  "): string {
  const w = Math.max(...rows.map((r) => r[0]!.length));
  return rows.map((r) => `${indent}${r[0]!.padEnd(w)}   ${r.slice(1).join("   ")}`.trimEnd()).join("\n");
}

/** Summary rows: what, figure, expected, verdict ("ok", "MISS", "FAIL" or "" for a figure only). */
export type Summary = string[][];
export const ok = (good: boolean) => (good ? "ok" : "MISS");

export async function section(name: string, summary: Summary, body: () => Promise<void>): Promise<void> {
  const t0 = performance.now();
  try {
    await body();
  } catch (err) {
    console.log(`${name}: failed: ${(err as Error).stack ?? err}\n`);
    summary.push([name, "failed", "", "FAIL"]);
  }
  process.stderr.write(`  (${name}: ${f1((performance.now() - t0) / 1000)} s)\n`);
}
