// What the bench and the soak both measure and report with: percentiles, a process's RSS and
// descriptors from /proc, a seeded PRNG, and the tables they print.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");
export const MB = 1024 * 1024;

/** Nearest-rank percentile; NaN for no samples. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

export function median(xs: number[]): number {
  const s = Float64Array.from(xs).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Samples a process's RSS every `everyMs` until stopped, which gives the peak. */
export function rssPeak(pid: number, everyMs = 250): { stop: () => number } {
  let peak = rssBytes(pid);
  const sample = () => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {}
  };
  const timer = setInterval(sample, everyMs);
  // An error elsewhere must not leave the timer holding the process open.
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** Deterministic PRNG (mulberry32): a seed replays a run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const f1 = (x: number) => x.toFixed(1);
export const f2 = (x: number) => x.toFixed(2);
export const mb = (bytes: number) => f1(bytes / MB);

/** Rows in columns: the first left-aligned, the others right-aligned. */
export function table(rows: string[][], indent = "  "): string {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return rows
    .map(
      (r) =>
        indent +
        r
          .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
          .join("   ")
          .trimEnd(),
    )
    .join("\n");
}
