// 13. Input size: one session.input of 1 MiB and of 8 MiB into `cat >/dev/null`, until it is
// answered (every byte written to the terminal): its time, and the daemon's RSS growth meanwhile
// (peak sampled every 10 ms, over the RSS before the call). After an unmeasured 1 MiB input: the
// first large request starts the request-line parser's thread, once.
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { verdict } from "./report.ts";
import { MB, f1, mb, median, rssBytes, rssPeak, table } from "../common/measure.ts";

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
    // Unmeasured, so that what a first large input starts once (the request-line parser's thread) is not counted.
    await d.client.call("session.input", { session: sink.id, text: inputText(1 * MB) });
    for (const size of [1 * MB, 8 * MB]) {
      const text = inputText(size);
      const times: number[] = [];
      const growths: number[] = [];
      for (let r = 0; r < o.runs; r++) {
        Bun.gc(true);
        const before = rssBytes(d.proc.pid);
        const peak = rssPeak(d.proc.pid, 10);
        const t0 = performance.now();
        await d.client.call("session.input", { session: sink.id, text, timeout_ms: 120_000 });
        times.push(performance.now() - t0);
        growths.push(peak.stop() - before);
      }
      const t = median(times);
      const growth = median(growths);
      took.set(size, t);
      rows.push([
        `  ${size / MB} MiB (medians of ${o.runs}; growth's largest after the slash)`,
        f1(t),
        `${mb(growth)} / ${mb(Math.max(...growths))}`,
        f1(growth / size),
      ]);
      if (size === 8 * MB) {
        verdicts.push(["input: 8 MiB RSS growth ≤ 3× the input (median)", `${f1(growth / size)}×`, verdict(growth <= 3 * size)]);
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
