// Small tools of the soak's sections: steady RSS, timeouts, /proc readings.
import { rssBytes } from "../common/measure.ts";
import { readdirSync, readFileSync } from "node:fs";

/**
 * A process's RSS once it has settled: sampled every 250 ms until `windowMs` (default 5 s) of
 * samples lie within 1 % of each other, at most `maxMs`. 5 s is longer than a screen worker waits
 * (2 s) before it collects what parking freed, so the step down that collection makes is in the
 * figure.
 */
export async function steadyRss(pid: number, windowMs = 5000, maxMs = 60_000): Promise<number> {
  const samples: number[] = [];
  const deadline = performance.now() + maxMs;
  const n = Math.round(windowMs / 250);
  for (;;) {
    samples.push(rssBytes(pid));
    const last = samples.slice(-n);
    if (last.length === n && Math.max(...last) - Math.min(...last) <= 0.01 * Math.min(...last)) return last.at(-1)!;
    if (performance.now() > deadline) return samples.at(-1)!;
    await Bun.sleep(250);
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: Timer | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** /proc/PID/stat after "pid (comm) ": [0] state, [1] ppid, [2] pgrp, [3] session, … [19] starttime. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

interface Proc {
  pid: number;
  comm: string;
  start: string;
}

/** Live (not zombie) processes whose terminal session (SID) is one of `sids`. */
export function processesInSessions(sids: Set<number>): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (f[0] === "Z" || !sids.has(Number(f[3]))) continue;
    out.push({ pid: Number(name), comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), start: f[19]! });
  }
  return out;
}
