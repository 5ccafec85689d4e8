// 13. Input size: one session.input of 1 MiB and of 8 MiB into `cat >/dev/null`, until it is
// answered (every byte written to the terminal): its time, and the daemon's RSS growth meanwhile
// (peak sampled every 10 ms, over the RSS before the call).
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { verdict } from "./report.ts";
import { MB, f1, mb, rssBytes, rssPeak, table } from "../common/measure.ts";

/** A program that reads its input and throws it away, the terminal echoing none of it. */
export const SINK = ["sh", "-c", "stty raw -echo; exec cat >/dev/null"];

/** `bytes` of text in 64-byte lines. */
export const inputText = (bytes: number): string => `${"a".repeat(63)}\n`.repeat(bytes / 64);

export async function reportInput(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const d = await startDaemon(dir, "input");
  const rows: string[][] = [["one session.input into cat >/dev/null", "time ms", "daemon RSS growth MB", "growth / input"]];
  const took = new Map<number, number>();
  try {
    const sink = await d.client.call("session.create", { command: SINK });
    await d.client.call("session.wait", { session: sink.id, settle_ms: 100, timeout_ms: 10_000 });
    await d.client.call("session.input", { session: sink.id, text: "warm-up\n" });
    for (const size of [1 * MB, 8 * MB]) {
      const text = inputText(size);
      const times: number[] = [];
      let growth = 0;
      for (let r = 0; r < o.runs; r++) {
        Bun.gc(true);
        const before = rssBytes(d.proc.pid);
        const peak = rssPeak(d.proc.pid, 10);
        const t0 = performance.now();
        await d.client.call("session.input", { session: sink.id, text, timeout_ms: 120_000 });
        times.push(performance.now() - t0);
        growth = Math.max(growth, peak.stop() - before);
      }
      const t = times.sort((a, b) => a - b)[times.length >> 1]!;
      took.set(size, t);
      rows.push([`  ${size / MB} MiB (median time, largest growth of ${o.runs})`, f1(t), mb(growth), f1(growth / size)]);
      if (size === 8 * MB) {
        verdicts.push(["input: 8 MiB RSS growth ≤ 3× the input", `${f1(growth / size)}×`, verdict(growth <= 3 * size)]);
      }
    }
  } finally {
    await d.stop();
  }
  const ratio = took.get(8 * MB)! / took.get(1 * MB)!;
  rows.push(["  8 MiB's time over 1 MiB's", f1(ratio), "", "target ≤ 10"]);
  verdicts.push(["input: 8 MiB's time ≤ 10× 1 MiB's", `${f1(ratio)}×`, verdict(ratio <= 10)]);
  console.log("13. Input size: one session.input into a program that reads it all (cat >/dev/null)");
  console.log(table(rows) + "\n");
}
