// 4. Flood: sessions that write as fast as they can, with subscribers that lag.
import { until } from "../concurrency.ts";
import { connect, type Client, type EventMessage } from "../../src/client/index.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { type Summary, kv, n0, ok } from "./report.ts";
import { MB, f1, mb, rssBytes, rssPeak, table } from "../common/measure.ts";

interface Sub {
  name: string;
  /** The offset up to which this subscriber has the output. */
  next: number;
  bytes: number;
  /** Bytes skipped: an output event that started past `next`. */
  lost: number;
  hash: Bun.CryptoHasher;
  note: string;
}

function newSub(name: string): Sub {
  return { name, next: 0, bytes: 0, lost: 0, hash: new Bun.CryptoHasher("sha256"), note: "" };
}

/** Takes one output event into `s`; what it already has (a replay's overlap) is not counted twice. */
export function take(s: Sub, e: EventMessage): void {
  if (e.type !== "output") return;
  const { from, to, base64 } = e.data as { from: number; to: number; base64: string };
  if (to <= s.next) return;
  let buf = Buffer.from(base64, "base64");
  if (from > s.next) s.lost += from - s.next;
  else buf = buf.subarray(s.next - from);
  s.hash.update(buf);
  s.bytes += buf.length;
  s.next = to;
}

export async function flood(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "flood");
  const conns: Client[] = [];
  let stopTimers = () => {};
  try {
    const c = d.client;
    // base64 makes 76-column lines; the terminal sends each with \r\n: 78 bytes for 57 random ones.
    const input = Math.round((o.floodMb * 1e6 * 57) / 78);
    // The program waits for a line of input, so all three subscribe before it writes.
    const id = (
      await c.call("session.create", { command: ["sh", "-c", `read go; head -c ${input} /dev/urandom | base64`], rows: 24, cols: 80 })
    ).id;
    const fast = newSub("fast");
    const slow = newSub("slow (stops reading 800 ms in every second)");
    const again = newSub("vanishing (reconnects every 1.5 s, replays from its offset)");
    const subscribe = async (s: Sub) => {
      const cl = await connect(d.socket);
      conns.push(cl);
      await cl.subscribe({ session: id, events: ["output"], replay: s.next }, (e) => take(s, e));
      return cl;
    };
    await subscribe(fast);
    const sc = await subscribe(slow);
    let rc = await subscribe(again);
    let pauses = 0;
    let reconnects = 0;
    const pauser = setInterval(() => {
      sc.pause();
      pauses++;
      setTimeout(() => sc.resume(), 800);
    }, 1000);
    let reconnecting = false;
    const reconnector = setInterval(async () => {
      if (reconnecting) return;
      reconnecting = true;
      try {
        rc.close();
        rc = await subscribe(again);
        reconnects++;
      } catch (err) {
        again.note ||= `reconnect failed: ${(err as Error).message}`;
      } finally {
        reconnecting = false;
      }
    }, 1500);
    stopTimers = () => {
      clearInterval(pauser);
      clearInterval(reconnector);
      sc.resume();
    };
    const peak = rssPeak(d.proc.pid);
    const rssBefore = rssBytes(d.proc.pid);
    const t0 = performance.now();
    await c.call("session.input", { session: id, text: "go", submit: true });
    const w = await c.call("session.wait", { session: id, exit: true, timeout_ms: 1_200_000 });
    const writeSeconds = (performance.now() - t0) / 1000;
    if (w.outcome !== "exited" || w.exit_code !== 0) throw new Error(`the flood ended with ${w.outcome} ${w.exit_code}`);
    const total = (await c.call("session.info", { session: id })).bytes_out;
    // The slow and the vanishing one stay so until they have every byte.
    const subs = [fast, slow, again];
    await until("the subscribers to catch up", 600_000, () => (subs.every((s) => s.next >= total) ? true : undefined), 50).catch((err) => {
      for (const s of subs) if (s.next < total) s.note ||= (err as Error).message;
    });
    stopTimers();
    const catchUpSeconds = (performance.now() - t0) / 1000;
    const rssPeakBytes = peak.stop();
    // The session's bytes, paged with session.output from 0 (memory first, then the log file).
    const log = new Bun.CryptoHasher("sha256");
    let logBytes = 0;
    let gaps = 0;
    for (let from = 0; ; ) {
      const r = await c.call("session.output", { session: id, from, max_bytes: MB });
      if (r.gap) gaps += r.to - r.from;
      else {
        const b = Buffer.from(r.base64, "base64");
        log.update(b);
        logBytes += b.length;
      }
      if (r.eof || r.to >= total) break;
      if (r.to <= from) throw new Error(`session.output did not move on from ${from}`);
      from = r.to;
    }
    const logHash = log.digest("hex");
    const rows: string[][] = [["subscriber", "bytes received", "bytes lost", "sha256 = session.output's", "note"]];
    for (const s of subs) {
      const lost = s.lost + Math.max(0, total - s.next);
      const same = s.hash.digest("hex") === logHash && lost === 0;
      rows.push([s.name, n0(s.bytes), n0(lost), same ? "yes" : "NO", s.note]);
      summary.push([`flood: bytes lost, ${s.name.split(" ")[0]} subscriber`, n0(lost), "0", ok(same)]);
    }
    console.log(
      `4. Flood: \`head -c ${n0(input)} /dev/urandom | base64\`, ${n0(total)} bytes of output (session.output: ${n0(logBytes)} bytes, ${gaps} in gaps)`,
    );
    console.log(table(rows));
    console.log(
      kv([
        ["written in, s (MB/s)", `${f1(writeSeconds)} (${f1(total / 1e6 / writeSeconds)})`],
        ["every subscriber had every byte after, s", f1(catchUpSeconds)],
        ["the slow one's pauses, the vanishing one's reconnects", `${pauses}, ${reconnects}`],
        ["daemon RSS before → peak, MB", `${mb(rssBefore)} → ${mb(rssPeakBytes)}`],
      ]) + "\n",
    );
    summary.push([`flood: ${f1(total / 1e6)} MB; daemon RSS peak`, `${mb(rssPeakBytes)} MB`, "", ""]);
  } finally {
    stopTimers();
    for (const x of conns) x.close();
    await d.stop();
  }
}
