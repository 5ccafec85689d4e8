// 11. Big request lines: while another client's 10 MiB line is read and parsed, how long this
// client's pings take, one at a time.
import { join } from "node:path";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { NONE, spread, verdict } from "./report.ts";
import { f1, percentile, ROOT, table } from "../common/measure.ts";

const KINDS = ["escapes", "plain", "unicode"] as const;

interface LineRun {
  /** The big line's own round trip, ms. */
  bigMs: number;
  /** Every ping round trip while the big line was on its way, ms. */
  pings: number[];
}

async function oneLine(socket: string, kind: string, ping: () => Promise<unknown>): Promise<LineRun> {
  const writer = Bun.spawn([process.execPath, join(ROOT, "scripts/bench/line-writer.ts"), socket, kind], {
    stdout: "pipe",
    stderr: "inherit",
  });
  // It says "connected", then "answered MS STATUS" once its reply came.
  const lines = (async function* () {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of writer.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        yield buf.slice(0, nl);
        buf = buf.slice(nl + 1);
      }
    }
  })();
  const first = await lines.next();
  if (first.value !== "connected") throw new Error(`the line writer did not connect: ${first.value ?? "it ended"}`);
  let answer: string | null = null;
  const answered = lines.next().then(
    (r) => (answer = r.value ?? "ended"),
    (err: unknown) => (answer = `failed ${err}`),
  );
  const pings: number[] = [];
  while (answer === null) {
    const t0 = performance.now();
    await ping();
    if (answer === null) pings.push(performance.now() - t0);
  }
  await answered;
  await writer.exited;
  const [word, ms, ...status] = (answer as string).split(" ");
  if (word !== "answered" || status.join(" ") !== "ok") throw new Error(`the ${kind} line: ${answer}`);
  return { bigMs: Number(ms), pings };
}

export async function reportLines(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const d = await startDaemon(dir, "lines");
  const rows: string[][] = [["", "termd", "tmux", "target"]];
  const all: number[] = [];
  try {
    const ping = () => d.client.call("system.ping");
    for (let i = 0; i < 20; i++) await ping(); // warm-up
    // The same pings with no big line, for scale: what the machine's own noise is.
    const quiet: number[] = [];
    for (const end = performance.now() + 1000; performance.now() < end; ) {
      const t0 = performance.now();
      await ping();
      quiet.push(performance.now() - t0);
    }
    rows.push([`pings with no big line for 1 s: p50 / p99 / max ms (${quiet.length})`, spread(quiet), NONE, ""]);
    for (const kind of KINDS) {
      const runs: LineRun[] = [];
      for (let r = 0; r < o.runs; r++) runs.push(await oneLine(d.socket, kind, ping));
      const pings = runs.flatMap((r) => r.pings);
      all.push(...pings);
      rows.push(
        [
          `10 MiB line of ${kind}: its own round trip, ms (median of ${o.runs})`,
          f1(runs.map((r) => r.bigMs).sort((a, b) => a - b)[runs.length >> 1]!),
          NONE,
          "",
        ],
        [`  another client's pings meanwhile: p50 / p99 / max ms (${pings.length})`, spread(pings), NONE, "p99 < 5 ms"],
      );
    }
  } finally {
    await d.stop();
  }
  console.log(
    `11. Big request lines: another client pings, one at a time, while one client's 10 MiB line is read and parsed (${o.runs} lines each)`,
  );
  console.log(table(rows) + "\n");
  const p99 = percentile(all, 0.99);
  verdicts.push(["lines: another client's ping p99 < 5 ms while a 10 MiB line is parsed", `${p99.toFixed(2)} ms`, verdict(p99 < 5)]);
}
