// CPU per MB: the CPU seconds a flood costs the server, per MB of output, for a plain and a colour
// `cat` until the screen shows its last line. termd: every thread of the daemon's process (its own,
// the pty and screen workers, Bun's JIT and collector threads), from /proc/PID/stat, and the same
// by thread name; tmux: its server process. Counted rather than timed, so a loaded machine moves
// it far less than the throughput beside it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../../src/client/index.ts";
import { MB, f2, median, table } from "../common/measure.ts";
import { cpuSeconds, threadCpuSeconds, writeTextFile } from "./helpers.ts";
import type { Options } from "./flags.ts";
import { termdThroughput, tmuxThroughput } from "./throughput.ts";

interface Kind {
  label: string;
  colour: boolean;
}

const KINDS: Kind[] = [
  { label: "plain", colour: false },
  { label: "colour", colour: true },
];

/** The names Bun gives its threads, as the report groups them: the daemon's own thread is named after the executable, every worker (pty, screen, PNG) "Worker". */
function group(name: string): string {
  if (/^(bun|bun\.exe|termd)$/.test(name) || name === "") return "daemon";
  if (name === "Worker") return "workers";
  if (/^JIT/i.test(name)) return "JIT";
  if (/Heap|GC|Collector|Marker/i.test(name)) return "GC";
  return name;
}

function byGroup(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, s] of after) {
    const g = group(name);
    out.set(g, (out.get(g) ?? 0) + s - (before.get(name) ?? 0));
  }
  return out;
}

/** CPU seconds per MB of a plain and a colour flood: termd's daemon (all threads) beside tmux's server. */
export async function reportCpu(o: Options, c: Client, daemonPid: number, dir: string): Promise<void> {
  const rows: string[][] = [["flood", "termd s/MB", ...(o.tmux ? ["tmux s/MB", "termd/tmux"] : []), "termd MB/s", "termd's threads, s/MB"]];
  for (const kind of KINDS) {
    const file = join(dir, `cpu-${kind.label}.txt`);
    const sentinel = `TERMD-BENCH-CPU-${Math.random().toString(36).slice(2, 10)}`;
    const size = writeTextFile(file, o.sizeMb * MB, sentinel, kind.colour) / MB;
    const termd: number[] = [];
    const tmux: number[] = [];
    const rates: number[] = [];
    const threads: Map<string, number>[] = [];
    for (let i = 0; i < o.runs; i++) {
      const t0 = threadCpuSeconds(daemonPid);
      const c0 = cpuSeconds(daemonPid);
      const ms = await termdThroughput(c, file, sentinel);
      termd.push((cpuSeconds(daemonPid) - c0) / size);
      threads.push(byGroup(t0, threadCpuSeconds(daemonPid)));
      rates.push(size / (ms / 1000));
      if (o.tmux) {
        let server = 0;
        await tmuxThroughput(file, sentinel, (pid) => (server = cpuSeconds(pid)));
        tmux.push(server / size);
      }
      process.stderr.write(`  cpu ${kind.label} run ${i + 1}/${o.runs} done\n`);
    }
    // The run whose total is the median, thread by thread.
    const mid = Math.max(0, termd.indexOf(median(termd)));
    const split = [...(threads[mid] ?? new Map<string, number>())]
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([g, s]) => `${g} ${(s / size).toFixed(4)}`)
      .join(", ");
    const t = median(termd);
    const x = o.tmux ? median(tmux) : NaN;
    rows.push([
      `${kind.label} (${f2(size)} MB)`,
      t.toFixed(4),
      ...(o.tmux ? [x.toFixed(4), `${f2(t / x)}×`] : []),
      f2(median(rates)),
      split,
    ]);
    rmSync(file, { force: true });
  }
  console.log("CPU per MB: a `cat` flood until the screen shows its last line (CPU seconds per MB, lower is better; median of the runs)");
  console.log(table(rows));
  console.log("");
}
