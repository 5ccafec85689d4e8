// 12. Subscribers: `cat` of a large file until the screen shows its end, with 1 and with 16 clients
// subscribed to the flooding session's output (each reading everything), beside tmux with as many
// control-mode clients attached to the flooding pane. Output is framed once and shared, so 16
// readers should cost the flood little beyond the kernel's copy to each socket.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { until } from "../concurrency.ts";
import { childEnv } from "../common/daemon-process.ts";
import { MB, f1, f2, median, table } from "../common/measure.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { cpuSeconds, sh, writeTextFile } from "./helpers.ts";
import { verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";

const COUNTS = [1, 16];

/** A program that waits for `go` to exist, then writes `file`: subscribers attach before the flood. */
const gated = (go: string, file: string) => `while [ ! -e ${sh(go)} ]; do sleep 0.01; done; cat ${sh(file)}`;

/**
 * Reads a byte stream until `needle` has passed; only the seam between two reads is copied, so
 * the readers cost this process little beside the daemon they measure.
 */
class Watch {
  private tail = Buffer.alloc(0);
  bytes = 0;
  seen = false;

  constructor(private readonly needle: Buffer) {}

  take(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (this.seen) return;
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const seam = Buffer.concat([this.tail, buf.subarray(0, this.needle.length)]);
    if (seam.indexOf(this.needle) >= 0 || buf.indexOf(this.needle) >= 0) this.seen = true;
    this.tail = Buffer.from(buf.subarray(Math.max(0, buf.length - this.needle.length)));
  }
}

interface Run {
  /** Seconds from the go until the screen showed the last line. */
  shown: number;
  /** Seconds from the go until every subscriber had read the last byte. */
  delivered: number;
  /** Bytes each subscriber read, on average. */
  perReader: number;
  /** CPU seconds the server (every thread) used from the go until every reader had read the end. */
  cpu: number;
}

async function termdRun(dir: string, file: string, sentinel: string, outputEnd: number, n: number): Promise<Run> {
  const d = await startDaemon(dir, `subs${n}`);
  const go = join(dir, `go-termd-${n}`);
  rmSync(go, { force: true });
  const sockets: Socket<Watch>[] = [];
  try {
    const info = await d.client.call("session.create", { command: ["sh", "-c", gated(go, file)], rows: 24, cols: 80 });
    // The last output event ends at the output's end: its data says "to":END.
    const needle = Buffer.from(`"to":${outputEnd},`);
    const subscribed: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const watch = new Watch(needle);
      let replied!: () => void;
      subscribed.push(new Promise((r) => (replied = r)));
      let first = true;
      const s = await Bun.connect<Watch>({
        unix: d.socket,
        data: watch,
        socket: {
          data(sock, chunk) {
            if (first) {
              first = false;
              replied();
            }
            sock.data.take(chunk);
          },
        },
      });
      s.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session.subscribe", params: { session: info.id, events: ["output"] } })}\n`,
      );
      sockets.push(s);
    }
    await Promise.all(subscribed);
    const cpu0 = cpuSeconds(d.proc.pid);
    const t0 = performance.now();
    writeFileSync(go, "");
    for (;;) {
      const r = await d.client.call("session.wait", { session: info.id, text: sentinel, timeout_ms: 600_000 });
      if (r.outcome === "matched") break;
      if (r.outcome === "timeout") throw new Error("termd: the last line never showed");
      await Bun.sleep(1);
    }
    const shown = (performance.now() - t0) / 1000;
    const ended = await d.client.call("session.wait", { session: info.id, exit: true, timeout_ms: 60_000 });
    if (ended.outcome !== "exited") throw new Error(`termd: cat ended with ${ended.outcome}`);
    const end = (await d.client.call("session.info", { session: info.id })).bytes_out;
    if (end !== outputEnd) throw new Error(`termd: ${end} bytes of output, expected ${outputEnd}`);
    await until("every subscriber to read the last byte", 600_000, () => (sockets.every((s) => s.data.seen) ? true : undefined));
    const delivered = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(d.proc.pid) - cpu0;
    return { shown, delivered, perReader: sockets.reduce((a, s) => a + s.data.bytes, 0) / n, cpu };
  } finally {
    for (const s of sockets) s.end();
    await d.stop();
  }
}

async function tmuxAsync(t: Tmux, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["tmux", "-L", t.name, "-f", "/dev/null", ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    env: childEnv(),
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  if (code !== 0) throw new Error(`tmux ${args.join(" ")}: exit ${code}`);
  return out;
}

async function tmuxRun(dir: string, file: string, sentinel: string, n: number): Promise<Run> {
  const t = new Tmux();
  const go = join(dir, `go-tmux-${n}`);
  rmSync(go, { force: true });
  const clients: Bun.Subprocess<"pipe", "pipe", "ignore">[] = [];
  const watches: Watch[] = [];
  try {
    const cmd = `${gated(go, file)}; tmux -L ${t.name} wait-for -S catdone; exec sleep 86400`;
    t.ok("new-session", "-d", "-s", "bench", "-x", "80", "-y", "24", cmd);
    const attached: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const proc = Bun.spawn(["tmux", "-L", t.name, "-C", "attach-session", "-t", "bench"], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "ignore",
        env: childEnv(),
      });
      clients.push(proc);
      // %output escapes only non-printable bytes and backslashes: the sentinel passes as it is.
      const watch = new Watch(Buffer.from(sentinel));
      watches.push(watch);
      let ready!: () => void;
      attached.push(new Promise((r) => (ready = r)));
      void (async () => {
        const reader = proc.stdout.getReader();
        for (let first = true; ; first = false) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
          if (done) return;
          if (first) ready();
          watch.take(value);
        }
      })();
    }
    // A control client speaks first (its %begin/%end) once attached.
    await Promise.all(attached);
    const server = t.serverPid();
    const cpu0 = cpuSeconds(server);
    const t0 = performance.now();
    writeFileSync(go, "");
    // Not t.ok: a synchronous spawn would stop this process reading its control clients, and
    // tmux holds the pane for a control client that does not read.
    await tmuxAsync(t, "wait-for", "catdone");
    await until("tmux to show the last line", 600_000, async () =>
      (await tmuxAsync(t, "capture-pane", "-p", "-t", "bench")).includes(sentinel) ? true : undefined,
    );
    const shown = (performance.now() - t0) / 1000;
    await until("every control client to read the last line", 600_000, () => (watches.every((w) => w.seen) ? true : undefined));
    const delivered = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server) - cpu0;
    return { shown, delivered, perReader: watches.reduce((a, w) => a + w.bytes, 0) / n, cpu };
  } finally {
    for (const p of clients) p.kill();
    t.kill();
  }
}

/** 12. Subscribers: the flood's rate with 1 and with 16 readers of its output, termd and tmux. */
export async function reportSubscribers(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const file = join(dir, "subscribers.txt");
  const sentinel = `TERMD-BENCH-LAST-LINE-${Math.random().toString(36).slice(2, 10)}`;
  const bytes = writeTextFile(file, o.sizeMb * MB, sentinel);
  // The terminal turns each newline into CR LF: that is the session's output.
  const newlines = readFileSync(file).reduce((a, b) => a + (b === 10 ? 1 : 0), 0);
  const outputEnd = bytes + newlines;
  const size = bytes / MB;
  const contenders = o.tmux ? ["termd", "tmux"] : ["termd"];
  const runs = new Map<string, Run[]>();
  for (let i = 0; i < o.runs; i++) {
    for (const n of COUNTS) {
      for (const who of contenders) {
        const r = who === "termd" ? await termdRun(dir, file, sentinel, outputEnd, n) : await tmuxRun(dir, file, sentinel, n);
        runs.set(`${who} ${n}`, [...(runs.get(`${who} ${n}`) ?? []), r]);
      }
    }
    process.stderr.write(`  subscribers run ${i + 1}/${o.runs} done\n`);
  }
  const rate = (key: string) => size / median(runs.get(key)!.map((r) => r.shown));
  const rows: string[][] = [["", "shown MB/s", "all read MB/s", "MB each reader read", "server CPU s", "vs 1 reader"]];
  for (const who of contenders) {
    for (const n of COUNTS) {
      const key = `${who} ${n}`;
      const rs = runs.get(key)!;
      rows.push([
        `${who}, ${n} ${who === "termd" ? "subscriber" : "control client"}${n > 1 ? "s" : ""}`,
        f1(rate(key)),
        f1(size / median(rs.map((r) => r.delivered))),
        f1(median(rs.map((r) => r.perReader)) / MB),
        f2(median(rs.map((r) => r.cpu))),
        `${f2(rate(key) / rate(`${who} 1`))}×`,
      ]);
    }
  }
  console.log(
    `12. Subscribers: cat of a ${f1(size)} MB text file until the screen shows its last line, with 1 and 16 readers of its output (median of ${o.runs})`,
  );
  console.log(table(rows));
  const ratio = rate("termd 16") / rate("termd 1");
  console.log(`  termd 16/1 ${f2(ratio)}×${o.tmux ? `   tmux 16/1 ${f2(rate("tmux 16") / rate("tmux 1"))}×` : ""}\n`);
  verdicts.push(["16 subscribers ≥ 0.5× of one's rate", `${f2(ratio)}×`, verdict(ratio >= 0.5)]);
  rmSync(file, { force: true });
}
