// 12. Fair shares: a fresh connection's pings, one at a time, while other clients (fair-load.ts, a
// process of their own) keep the daemon busy: 4 connections pipelining pings, an 8 MiB input
// after another, a 1 MiB page of output after another, a 10 MiB request line after another;
// and with no other client, in the same daemon and run.
import { join } from "node:path";
import { connect } from "../../src/client/index.ts";
import { startDaemon } from "./daemon.ts";
import { SINK } from "./input.ts";
import type { Options } from "./flags.ts";
import { NONE, spread, verdict } from "./report.ts";
import { ROOT, percentile, table } from "../common/measure.ts";

/** How long each case's pings run, after its load has run WARMUP_MS. */
const PING_MS = 3000;
const WARMUP_MS = 300;

/** A fresh connection's ping round trips for `ms`, one at a time. */
async function pings(socket: string, ms: number): Promise<number[]> {
  const c = await connect(socket);
  try {
    for (let i = 0; i < 5; i++) await c.call("system.ping");
    const times: number[] = [];
    for (const end = performance.now() + ms; performance.now() < end; ) {
      const t0 = performance.now();
      await c.call("system.ping");
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    c.close();
  }
}

/** The load running (it says "ready"), the pings, then the load stopped: the pings and what the load got answered. */
async function underLoad(socket: string, load: string[], ms: number): Promise<{ times: number[]; answered: number }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "scripts/bench/fair-load.ts"), socket, ...load], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const out = proc.stdout.getReader();
    const dec = new TextDecoder();
    let said = "";
    const line = async (): Promise<string> => {
      while (!said.includes("\n")) {
        const { value, done } = await out.read();
        if (done) throw new Error(`the ${load[0]} load ended: ${said}`);
        said += dec.decode(value, { stream: true });
      }
      const nl = said.indexOf("\n");
      const first = said.slice(0, nl);
      said = said.slice(nl + 1);
      return first;
    };
    if ((await line()) !== "ready") throw new Error(`the ${load[0]} load did not start`);
    await Bun.sleep(WARMUP_MS);
    const times = await pings(socket, ms);
    proc.stdin.end();
    const done = await line();
    return { times, answered: Number(done.split(" ")[1]) };
  } finally {
    proc.kill();
    await proc.exited;
  }
}

export async function reportFairness(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const d = await startDaemon(dir, "fairness");
  const ms = o.runs === 1 ? PING_MS / 3 : PING_MS;
  const rows: string[][] = [
    ["a fresh connection's ping, p50 / p99 / max ms (pings)", "termd", "other client's requests answered", "target"],
  ];
  try {
    const sink = await d.client.call("session.create", { command: SINK });
    // 3 MiB of output, then quiet: its first MiB is read from the log, as a client paging from the start does.
    const paged = await d.client.call("session.create", {
      command: ["sh", "-c", "head -c 3145728 /dev/zero | tr '\\0' x; exec sleep 100000"],
    });
    await d.client.call("session.wait", { session: paged.id, settle_ms: 200, timeout_ms: 30_000 });
    const alone = await pings(d.socket, ms);
    rows.push([`  no other client`, `${spread(alone)} (${alone.length})`, NONE, ""]);
    const cases: [string, string[]][] = [
      ["4 clients pipelining pings (400 a write)", ["pipeline", "4"]],
      ["a client sending 8 MiB inputs (to cat >/dev/null)", ["input", sink.id]],
      ["a client reading 1 MiB pages (session.output)", ["output", paged.id]],
      ["a client sending 10 MiB request lines", ["lines"]],
    ];
    for (const [what, load] of cases) {
      const { times, answered } = await underLoad(d.socket, load, ms);
      rows.push([`  while ${what}`, `${spread(times)} (${times.length})`, String(answered), "p99 < 5 ms"]);
      verdicts.push([
        `fairness: fresh ping p99 < 5 ms while ${what}`,
        `${percentile(times, 0.99).toFixed(2)} ms`,
        verdict(percentile(times, 0.99) < 5),
      ]);
    }
  } finally {
    await d.stop();
  }
  console.log(`12. Fair shares: a fresh connection's pings, one at a time for ${ms / 1000} s, while other clients keep the daemon busy`);
  console.log(table(rows) + "\n");
}
