// 1. Output throughput: cat of a large text file until the screen shows its last line.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { until } from "../concurrency.ts";
import type { Client } from "../../src/client/index.ts";
import { sh } from "./helpers.ts";
import { Tmux } from "./tmux.ts";
import { childEnv } from "../common/daemon-process.ts";
import { writeTextFile } from "./helpers.ts";
import { verdict } from "./report.ts";
import type { Options } from "./flags.ts";
import { MB, f1, f2, median, table } from "../common/measure.ts";

/** Milliseconds from session.create until the screen shows `sentinel` and `cat` exited. */
export async function termdThroughput(c: Client, file: string, sentinel: string): Promise<number> {
  const t0 = performance.now();
  const info = await c.call("session.create", { command: ["cat", file], rows: 24, cols: 80 });
  try {
    // The screen may catch up after the exit (it parses at its own pace): wait for the last line,
    // polling once the session has ended (a wait on an ended session answers at once).
    for (;;) {
      const r = await c.call("session.wait", { session: info.id, text: sentinel, timeout_ms: 600_000 });
      if (r.outcome === "matched") break;
      if (r.outcome === "timeout") throw new Error("termd: the last line never showed");
      await Bun.sleep(1);
    }
    const r = await c.call("session.wait", { session: info.id, exit: true, timeout_ms: 60_000 });
    if (r.outcome !== "exited" || r.exit_code !== 0) throw new Error(`termd: cat ended with ${r.outcome} ${r.exit_code}`);
    return performance.now() - t0;
  } finally {
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/** The same through a fresh tmux server; `atEnd` gets the server's pid just before it is killed. */
export async function tmuxThroughput(file: string, sentinel: string, atEnd?: (serverPid: number) => void): Promise<number> {
  const t = new Tmux();
  try {
    const t0 = performance.now();
    t.ok(
      "new-session",
      "-d",
      "-s",
      "bench",
      "-x",
      "80",
      "-y",
      "24",
      `cat ${sh(file)}; tmux -L ${t.name} wait-for -S catdone; exec sleep 86400`,
    );
    t.ok("wait-for", "catdone");
    // cat has exited; tmux may still hold a last buffer of unparsed output: wait for the last line.
    await until("tmux to show the last line", 60_000, () =>
      t.ok("capture-pane", "-p", "-t", "bench").includes(sentinel) ? true : undefined,
    );
    const ms = performance.now() - t0;
    atEnd?.(t.serverPid());
    return ms;
  } finally {
    t.kill();
  }
}

async function rawThroughput(file: string): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(["script", "-qc", `cat ${sh(file)}`, "/dev/null"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    env: childEnv(),
  });
  const code = await p.exited;
  if (code !== 0) throw new Error(`script exited ${code}`);
  return performance.now() - t0;
}

/** 1. Output throughput: termd, tmux and the raw PTY side by side. */
export async function reportThroughput(o: Options, c: Client, dir: string, verdicts: string[][]): Promise<void> {
  const file = join(dir, "text.txt");
  const sentinel = `TERMD-BENCH-LAST-LINE-${Math.random().toString(36).slice(2, 10)}`;
  const bytes = writeTextFile(file, o.sizeMb * MB, sentinel);
  const size = bytes / MB;
  const results = { termd: [] as number[], tmux: [] as number[], raw: [] as number[] };
  for (let i = 0; i < o.runs; i++) {
    results.raw.push(size / ((await rawThroughput(file)) / 1000));
    if (o.tmux) results.tmux.push(size / ((await tmuxThroughput(file, sentinel)) / 1000));
    results.termd.push(size / ((await termdThroughput(c, file, sentinel)) / 1000));
    process.stderr.write(`  throughput run ${i + 1}/${o.runs} done\n`);
  }
  const med = { termd: median(results.termd), tmux: o.tmux ? median(results.tmux) : NaN, raw: median(results.raw) };
  const rows: string[][] = [["", "termd", ...(o.tmux ? ["tmux"] : []), "raw PTY"]];
  for (let i = 0; i < o.runs; i++) {
    rows.push([`run ${i + 1}`, f1(results.termd[i]!), ...(o.tmux ? [f1(results.tmux[i]!)] : []), f1(results.raw[i]!)]);
  }
  rows.push([`median MB/s`, f1(med.termd), ...(o.tmux ? [f1(med.tmux)] : []), f1(med.raw)]);
  rows.push([`median seconds`, f2(size / med.termd), ...(o.tmux ? [f2(size / med.tmux)] : []), f2(size / med.raw)]);
  console.log(`1. Output throughput: cat of a ${f1(size)} MB text file until the screen shows its last line (MB/s, higher is better)`);
  console.log(table(rows));
  const ratios: string[] = [];
  if (o.tmux) ratios.push(`termd/tmux ${f2(med.termd / med.tmux)}×`);
  ratios.push(`termd/raw ${f2(med.termd / med.raw)}×`);
  console.log(`  ${ratios.join("   ")}\n`);
  if (o.tmux) verdicts.push(["throughput ≥ 1.2× tmux", `${f2(med.termd / med.tmux)}×`, verdict(med.termd >= 1.2 * med.tmux)]);
  verdicts.push(["throughput ≥ 0.8× the raw PTY", `${f2(med.termd / med.raw)}×`, verdict(med.termd >= 0.8 * med.raw)]);
  rmSync(file, { force: true });
}
