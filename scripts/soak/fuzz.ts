// 1. Fuzz: seeded random and malformed requests on many connections; the daemon must answer each.
import { createConnection, type Socket } from "node:net";
import { until } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { steadyRss, withTimeout } from "./helpers.ts";
import { type Summary, kv, n0, ok } from "./report.ts";
import { MB, f1, fdCount, mb, prng, rssBytes, rssPeak } from "../common/measure.ts";

const SAFE_METHODS = [
  "system.ping",
  "system.stats",
  "session.list",
  "session.info",
  "session.screen",
  "session.output",
  "session.cast",
  "session.debug",
  "session.wait",
] as const;

/** Params each method knows; the fuzzer fills them with values of any type. */
const METHOD_KEYS: Record<string, string[]> = {
  "system.ping": [],
  "system.stats": [],
  "system.screens": ["restart"],
  "session.create": [
    "command",
    "name",
    "cwd",
    "env",
    "rows",
    "cols",
    "scrollback",
    "term",
    "socket",
    "log_path",
    "exec_timeout_ms",
    "socket_dialect",
    "socket_cleanup",
    "log_append",
    "record",
    "shell_integration",
    "meta",
  ],
  "session.list": [],
  "session.info": ["session"],
  "session.input": ["session", "text", "keys", "paste", "base64", "mouse", "submit", "timeout_ms", "wait"],
  "session.screen": ["session", "format", "scrollback", "since_seq"],
  "session.screenshot": ["session", "format", "scale"],
  "session.wait": [
    "session",
    "text",
    "regex",
    "gone",
    "exit",
    "activity",
    "settle_ms",
    "changed_from",
    "command_done",
    "since",
    "timeout_ms",
  ],
  "session.resize": ["session", "rows", "cols"],
  "session.signal": ["session", "signal", "target"],
  "session.stop": ["session", "grace_ms"],
  "session.remove": ["session", "force"],
  "session.cast": ["session", "from", "max_bytes"],
  "session.output": ["session", "from", "max_bytes"],
  "session.debug": ["session", "clear"],
  "session.subscribe": ["session", "events", "replay", "size", "read_only", "strip_queries"],
  "session.unsubscribe": ["session", "events"],
  "exec.run": ["session", "command", "timeout_ms", "stdin", "env", "fresh"],
  "exec.cancel": ["session", "signal"],
};
/** Never given a session that exists (and session.create never valid params): they would end or start programs. */
const UNSAFE = new Set(["session.signal", "session.stop", "session.remove", "exec.run", "session.create"]);

const HUGE = [
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "9007199254740993",
  "-0",
  "1e-400",
  "0.0000000000000000000001",
  "4294967296",
  "-2147483649",
  "1.7976931348623157e308",
  "-9223372036854775809",
  "1E+999999999",
];
const UNKNOWN = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "system.",
  "session.",
  ".",
  "",
  "session.info.x",
  "SESSION.INFO",
  "session.info ",
  "system/ping",
  "rpc.discover",
  "session.__proto__",
  "session.constructor",
  "exec.runs",
  "a".repeat(5000),
];

class Fuzzer {
  readonly r: () => number;
  constructor(
    seed: number,
    private readonly targets: string[],
  ) {
    this.r = prng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  str(max = 20): string {
    const alphabets = [
      "abcdefghijklmnopqrstuvwxyz0123456789",
      " \t\r\x00\x01\x1b[]{}\"\\/'",
      "é日本語🙂\u200b\u202e\ufeff",
      "\ud800\udfff\udc00",
    ];
    let s = "";
    const n = this.int(max + 1);
    const alpha = this.pick(alphabets);
    for (let i = 0; i < n; i++) s += alpha[this.int(alpha.length)];
    return s;
  }
  value(depth = 0): unknown {
    switch (this.int(depth > 2 ? 9 : 12)) {
      case 0:
        return this.int(100);
      case 1:
        return -this.int(1_000_000) - 1;
      case 2:
        return this.r() * 1e6;
      case 3:
        return this.pick([0, 1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, 0.5, -0.5, 1e-300]);
      case 4:
        return this.str();
      case 5:
        return this.pick([
          "",
          "text",
          "ansi",
          "cells",
          "output",
          "*",
          "SIGINT",
          "INT",
          "program",
          "foreground",
          "session",
          "unlink",
          "interminai",
          "C-c",
          "Enter",
        ]);
      case 6:
        return this.r() < 0.5;
      case 7:
        return null;
      case 8:
        return this.pick(this.targets);
      case 9:
        return Array.from({ length: this.int(5) }, () => this.value(depth + 1));
      case 10: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(4); i > 0; i--)
          o[this.pick(["rows", "cols", "a", "__proto__", "constructor", this.str(6)])] = this.value(depth + 1);
        return o;
      }
      default:
        return this.r() < 0.02 ? "x".repeat(1 + this.int(200_000)) : this.str(300);
    }
  }
  id(): unknown {
    return this.r() < 0.9 ? this.int(1e9) : this.pick([null, "s" + this.int(1000), 0, -1, 1.5, true, [], {}]);
  }
  /** A request a client could send, on the sessions that exist. */
  valid(): Record<string, unknown> {
    const method = this.pick(SAFE_METHODS);
    const params: Record<string, unknown> = {};
    if (method.startsWith("session.") && method !== "session.list") params.session = this.pick(this.targets);
    if (method === "session.screen" && this.r() < 0.3) params.format = this.pick(["text", "ansi", "cells"]);
    if (method === "session.screen" && this.r() < 0.2) params.scrollback = this.int(100);
    if (method === "session.output" || method === "session.cast") params.from = this.int(100);
    if (method === "session.wait") Object.assign(params, { text: this.str(5), timeout_ms: this.int(50) });
    return { jsonrpc: "2.0", id: this.int(1e9), method, params };
  }
  /** A known method with params of random types. */
  wrongTypes(): Record<string, unknown> {
    const method = this.pick(Object.keys(METHOD_KEYS));
    const params: Record<string, unknown> = {};
    for (const k of METHOD_KEYS[method]!) if (this.r() < 0.6) params[k] = this.value();
    if (this.r() < 0.2) params[this.str(8)] = this.value();
    if (UNSAFE.has(method)) {
      if (typeof params.session === "string" && this.targets.includes(params.session)) params.session = `nosuch-${params.session}`;
      if (method === "session.create") params.rows = "fuzz"; // never valid: nothing is started
    }
    // Now and then params that are not an object at all (never for the methods that act).
    const p = this.r();
    return { jsonrpc: "2.0", id: this.id(), method, params: p < 0.05 && !UNSAFE.has(method) ? this.value() : params };
  }
  enc(s: string): Buffer {
    return Buffer.from(s, "utf8");
  }
  mutate(): Buffer {
    const b = [...this.enc(JSON.stringify(this.valid()))];
    for (let n = 1 + this.int(4); n > 0; n--) {
      const at = this.int(b.length + 1);
      switch (this.int(5)) {
        case 0:
          b[at] = this.int(256);
          break;
        case 1:
          b.splice(at, 1 + this.int(8));
          break;
        case 2:
          b.splice(at, 0, ...this.enc(this.pick(["{", "}", "[", "]", '"', ",", ":", "\\", "0", "-", "e", "null", "\\u", "\\ud800"])));
          break;
        case 3:
          b.splice(at, 0, ...b.slice(at, at + 1 + this.int(30)));
          break;
        default:
          b[at] = this.pick([0x22, 0x5c, 0x7b, 0x7d, 0x00, 0x0a, 0x0d, 0xff]);
      }
    }
    return Buffer.from(b.filter((x) => x !== undefined));
  }
  truncated(): Buffer {
    const s = JSON.stringify(this.r() < 0.7 ? this.valid() : this.wrongTypes());
    return this.enc(s.slice(0, this.int(s.length)));
  }
  randomBytes(): Buffer {
    const n = 1 + this.int(this.r() < 0.05 ? 20_000 : 200);
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  invalidUtf8(): Buffer {
    const bad = this.pick([[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xfe, 0xfe]]);
    const s = JSON.stringify({ ...this.valid(), method: "session.info", params: { session: "@@" } });
    const i = s.indexOf("@@");
    return Buffer.concat([this.enc(s.slice(0, i)), Buffer.from(bad), this.enc(s.slice(i + 2))]);
  }
  hugeNumbers(): Buffer {
    const m = this.pick(["session.screen", "session.output", "session.resize", "session.wait", "session.cast", "system.screens"]);
    const key = this.pick(["id", "rows", "cols", "scrollback", "from", "max_bytes", "timeout_ms", "restart"]);
    const req: Record<string, unknown> = {
      jsonrpc: "2.0",
      id: "@ID@",
      method: m,
      params: { session: this.pick(this.targets), [key]: "@N@" },
    };
    return this.enc(
      JSON.stringify(req)
        .replace('"@ID@"', key === "id" ? this.pick(HUGE) : String(this.int(1e9)))
        .replace('"@N@"', this.pick(HUGE)),
    );
  }
  deep(): Buffer {
    // Now and then far deeper than any parser's stack; mostly shallow, which keeps the run quick.
    const d = 1 + this.int(this.r() < 0.9 ? 1000 : 100_000);
    switch (this.int(3)) {
      case 0:
        return this.enc("[".repeat(d) + "]".repeat(d));
      case 1:
        return this.enc(`{"jsonrpc":"2.0","id":1,"method":"session.info","params":{"session":${"[".repeat(d)}${"]".repeat(d)}}}`);
      default:
        return this.enc(`{"jsonrpc":"2.0","id":2,"method":"session.input","params":${'{"a":'.repeat(d)}1${"}".repeat(d)}}`);
    }
  }
  unknownMethod(): Buffer {
    const method = this.r() < 0.5 ? this.pick(UNKNOWN) : this.str(30);
    return this.enc(JSON.stringify({ jsonrpc: "2.0", id: this.id(), method, params: this.r() < 0.5 ? {} : this.value() }));
  }
  envelope(): Buffer {
    const base = this.valid();
    switch (this.int(9)) {
      case 0:
        delete base.jsonrpc;
        break;
      case 1:
        base.jsonrpc = this.pick(["1.0", "2", 2, null, ""]);
        break;
      case 2:
        delete base.id; // a notification: no reply
        break;
      case 3:
        base.method = this.value();
        break;
      case 4:
        base.params = this.pick([[], [1, 2], "x", 1, null, true]);
        break;
      case 5:
        return this.enc(JSON.stringify(this.value()));
      case 6:
        return this.enc(
          `{"jsonrpc":"2.0","id":3,"method":"system.ping","__proto__":{"method":"system.shutdown"},"params":{"__proto__":{"x":1}}}`,
        );
      case 7:
        return this.enc(`{"jsonrpc":"2.0","id":4,"method":"system.ping","method":"session.list"}`);
      default:
        return this.enc(
          this.pick(["", " ", "\r", "null", "{}", "[]", "[{}]", '"x"', "1", "true", "\t{}", "{}{}", '{"jsonrpc":"2.0"}{"jsonrpc":"2.0"}']),
        );
    }
    return this.enc(JSON.stringify(base));
  }
  batch(): Buffer {
    const n = this.r() < 0.02 ? 1000 : this.int(20);
    const items: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const k = this.r();
      if (k < 0.4) items.push(this.valid());
      else if (k < 0.7) items.push(this.wrongTypes());
      else if (k < 0.8) items.push({ jsonrpc: "2.0", method: this.pick(SAFE_METHODS), params: {} });
      else if (k < 0.9) items.push({ jsonrpc: "2.0", id: this.id(), method: this.pick(UNKNOWN) });
      else items.push(this.value());
    }
    return this.enc(JSON.stringify(items));
  }
  /** A line of 256 KiB to 4 MiB (the request-line parser's thread takes it): a long text, a long name, or a long unknown method. */
  bigLine(): Buffer {
    const long = "x".repeat(256 * 1024 + this.int(4 * 1024 * 1024 - 256 * 1024));
    switch (this.int(3)) {
      case 0:
        return this.enc(
          JSON.stringify({ jsonrpc: "2.0", id: this.id(), method: "session.input", params: { session: "nosuch", text: long } }),
        );
      case 1:
        return this.enc(JSON.stringify({ jsonrpc: "2.0", id: this.id(), method: "session.info", params: { session: long } }));
      default:
        return this.enc(JSON.stringify({ jsonrpc: "2.0", id: this.id(), method: long, params: { [this.str(6)]: long } }));
    }
  }
  /** One fuzzed line, newline included. */
  next(): { kind: string; bytes: Buffer } {
    const k = this.r();
    let kind: string;
    let bytes: Buffer;
    if (k < 0.1) [kind, bytes] = ["valid", this.enc(JSON.stringify(this.valid()))];
    else if (k < 0.34) [kind, bytes] = ["wrong types", this.enc(JSON.stringify(this.wrongTypes()))];
    else if (k < 0.48) [kind, bytes] = ["mutated", this.mutate()];
    else if (k < 0.57) [kind, bytes] = ["truncated", this.truncated()];
    else if (k < 0.65) [kind, bytes] = ["random bytes", this.randomBytes()];
    else if (k < 0.71) [kind, bytes] = ["invalid UTF-8", this.invalidUtf8()];
    else if (k < 0.77) [kind, bytes] = ["huge numbers", this.hugeNumbers()];
    else if (k < 0.8) [kind, bytes] = ["deep nesting", this.deep()];
    else if (k < 0.86) [kind, bytes] = ["unknown method", this.unknownMethod()];
    else if (k < 0.92) [kind, bytes] = ["envelope", this.envelope()];
    else if (k < 0.998) [kind, bytes] = ["batch", this.batch()];
    else [kind, bytes] = ["big line", this.bigLine()];
    return { kind, bytes: Buffer.concat([bytes, Buffer.from("\n")]) };
  }
}

interface ReplyCounts {
  lines: number;
  results: number;
  /** Error replies by JSON-RPC code. */
  errors: Map<number, number>;
  batches: number;
  events: number;
  unparsable: number;
}

/** A raw connection: sends any bytes, counts what comes back, and knows when its sync pings are answered. */
class RawConn {
  closedByDaemon = false;
  private buf = "";
  private readonly syncs = new Map<string, () => void>();
  private readonly closed = Promise.withResolvers<void>();

  private constructor(
    private readonly sock: Socket,
    private readonly counts: ReplyCounts,
  ) {
    sock.setEncoding("utf8");
    sock.on("data", (d: string) => this.onData(d));
    sock.on("close", () => {
      this.closedByDaemon = true;
      this.closed.resolve();
    });
  }

  /** A connection whose first line, a native ping, makes it speak the native protocol (not a dialect). */
  static open(path: string, counts: ReplyCounts): Promise<RawConn> {
    return new Promise((resolve, reject) => {
      const sock = createConnection(path, () => {
        sock.off("error", reject);
        sock.on("error", () => {});
        sock.write(`{"jsonrpc":"2.0","id":"soak-hello","method":"system.ping"}\n`);
        resolve(new RawConn(sock, counts));
      });
      sock.once("error", reject);
    });
  }

  private onData(d: string): void {
    this.buf += d;
    let i: number;
    while ((i = this.buf.indexOf("\n")) >= 0) {
      this.count(this.buf.slice(0, i));
      this.buf = this.buf.slice(i + 1);
    }
  }

  private count(line: string): void {
    const c = this.counts;
    c.lines++;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      c.unparsable++;
      return;
    }
    const one = (m: unknown) => {
      const o = (m ?? {}) as { id?: unknown; result?: unknown; error?: { code?: number }; method?: string };
      if (o.method === "event") c.events++;
      else if (o.error) c.errors.set(o.error.code ?? 0, (c.errors.get(o.error.code ?? 0) ?? 0) + 1);
      else if ("result" in o) {
        c.results++;
        if (typeof o.id === "string") this.syncs.get(o.id)?.();
      } else c.unparsable++;
    };
    if (Array.isArray(msg)) {
      c.batches++;
      msg.forEach(one);
    } else one(msg);
  }

  async write(b: Buffer | string): Promise<void> {
    if (this.closedByDaemon) return;
    if (!this.sock.write(b)) await Promise.race([new Promise((r) => this.sock.once("drain", r)), this.closed.promise]);
  }

  /** A ping with a string id: true once answered, which means the daemon read everything before it. */
  async sync(id: string, timeoutMs: number): Promise<boolean> {
    const answered = new Promise<void>((r) => this.syncs.set(id, r));
    await this.write(`{"jsonrpc":"2.0","id":"${id}","method":"system.ping"}\n`);
    try {
      await withTimeout(Promise.race([answered, this.closed.promise]), timeoutMs, "sync");
      return !this.closedByDaemon;
    } catch {
      return false;
    } finally {
      this.syncs.delete(id);
    }
  }

  close(): void {
    this.sock.destroy();
  }
}

const FUZZ_CONNECTIONS = 8;
/** A sync ping after every this many fuzzed lines on a connection. */
const SYNC_EVERY = 500;
/** How long a sync ping may take before the daemon counts as stuck (on a busy 2-core machine the 500 lines before it can take tens of seconds). */
const SYNC_TIMEOUT_MS = 120_000;
/** How long the daemon is left idle after the fuzz before its RSS is read (then read again once steady). */
const IDLE_MS = 10_000;

export async function fuzz(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "fuzz");
  const conns: RawConn[] = [];
  try {
    const c = d.client;
    const targets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const info = await c.call("session.create", { name: `fz${i}`, command: ["cat"], rows: 24, cols: 80 });
      targets.push(info.name, info.id);
    }
    const pid = d.proc.pid;
    const rssBefore = rssBytes(pid);
    const fdsBefore = fdCount(pid);
    const peak = rssPeak(pid);
    const counts: ReplyCounts = { lines: 0, results: 0, errors: new Map(), batches: 0, events: 0, unparsable: 0 };
    const kinds = new Map<string, number>();
    let sentBytes = 0;
    let closedByDaemon = 0;
    let unanswered = 0;
    /** The longest a sync ping took to be answered: how far behind its connection the daemon fell. */
    let slowestSyncMs = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: FUZZ_CONNECTIONS }, async (_, ci) => {
        // Each connection's lines come from a generator of its own, seeded from the run's seed.
        const f = new Fuzzer((o.seed + Math.imul(ci, 0x9e3779b9)) >>> 0, targets);
        const count = Math.floor(o.messages / FUZZ_CONNECTIONS) + (ci < o.messages % FUZZ_CONNECTIONS ? 1 : 0);
        let conn = await RawConn.open(d.socket, counts);
        conns.push(conn);
        for (let i = 0; i < count; i++) {
          if (conn.closedByDaemon) {
            // Only a line over 10 MiB closes a connection by design; the count shows if anything else did.
            closedByDaemon++;
            conn = await RawConn.open(d.socket, counts);
            conns.push(conn);
          }
          const m = f.next();
          kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
          sentBytes += m.bytes.length;
          await conn.write(m.bytes);
          if (i % SYNC_EVERY === SYNC_EVERY - 1 || i === count - 1) {
            const t = performance.now();
            if (!(await conn.sync(`soak-sync-${ci}-${i}`, SYNC_TIMEOUT_MS)) && !conn.closedByDaemon) unanswered++;
            slowestSyncMs = Math.max(slowestSyncMs, performance.now() - t);
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const rssPeakBytes = peak.stop();
    for (const x of conns) x.close();
    // Closed connections give back their descriptors (waits still pending on them included).
    const released = await until(
      "the fuzz connections' descriptors to be released",
      10_000,
      () => (fdCount(pid) <= fdsBefore ? true : undefined),
      20,
    ).catch(() => false);
    const fdsAfter = fdCount(pid);
    // Still there, and still useful?
    let survived = false;
    let after = "";
    try {
      const ping = await withTimeout(c.call("system.ping"), 5000, "system.ping");
      const s = await c.call("session.create", { command: ["sh", "-c", "echo soak-after-fuzz; exec cat"], rows: 24, cols: 80 });
      const w = await c.call("session.wait", { session: s.id, text: "soak-after-fuzz", timeout_ms: 10_000 });
      const stats = await c.call("system.stats");
      survived = ping.pid === pid && w.outcome === "matched";
      after = `pid ${ping.pid === pid ? "unchanged" : `${ping.pid}, was ${pid}`}, a new session's screen: ${w.outcome}, ${stats.sessions} sessions, RSS ${mb(stats.memory_rss_bytes)} MB`;
    } catch (err) {
      after = `no answer: ${(err as Error).message}`;
    }
    // What the fuzz left behind, once its sessions are removed too: the daemon's steady RSS.
    let idle = NaN;
    let settled = NaN;
    if (survived) {
      for (const s of (await c.call("session.list")).sessions)
        await c.call("session.remove", { session: s.id, force: true }).catch(() => {});
      // What a client sees once the daemon has been idle for a while, then once it stays put.
      await Bun.sleep(IDLE_MS);
      idle = rssBytes(pid);
      settled = await steadyRss(pid);
    }
    const errorsTotal = [...counts.errors.values()].reduce((a, b) => a + b, 0);
    const internal = counts.errors.get(-32603) ?? 0;
    console.log(`1. Fuzz: ${n0(o.messages)} messages over ${FUZZ_CONNECTIONS} connections, seed ${o.seed}`);
    console.log(
      kv([
        [
          "messages by kind",
          [...kinds]
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n0(n)}`)
            .join(", "),
        ],
        ["MB sent, seconds, messages / s", `${mb(sentBytes)}, ${f1(seconds)}, ${n0(Math.round(o.messages / seconds))}`],
        ["reply lines (batches)", `${n0(counts.lines)} (${n0(counts.batches)})`],
        [
          "results / errors / events / unparsable",
          `${n0(counts.results)} / ${n0(errorsTotal)} / ${n0(counts.events)} / ${n0(counts.unparsable)}`,
        ],
        [
          "errors by code",
          [...counts.errors]
            .sort((a, b) => b[1] - a[1])
            .map(([code, n]) => `${code}: ${n0(n)}`)
            .join(", ") || "none",
        ],
        ["internal errors (-32603)", n0(internal)],
        ["connections the daemon closed (a line over 10 MiB)", String(closedByDaemon)],
        [
          `sync pings unanswered in ${SYNC_TIMEOUT_MS / 1000} s; the slowest answered after, s`,
          `${unanswered}; ${f1(slowestSyncMs / 1000)}`,
        ],
        [
          `daemon RSS before → peak → idle ${IDLE_MS / 1000} s once the sessions are removed → steady, MB`,
          `${mb(rssBefore)} → ${mb(rssPeakBytes)} → ${mb(idle)} → ${mb(settled)}`,
        ],
        ["descriptors before → after the connections closed", `${fdsBefore} → ${fdsAfter}`],
        ["after", after],
      ]) + "\n",
    );
    if (!survived) console.log(`  the daemon's last stderr lines:\n    ${d.stderrTail.join("\n    ")}\n`);
    summary.push([`fuzz: ${n0(o.messages)} messages, seed ${o.seed}`, survived ? "survived" : "DIED", "survives", ok(survived)]);
    summary.push([
      "fuzz: internal errors, sync pings unanswered",
      `${internal}, ${unanswered}`,
      "0, 0",
      ok(internal === 0 && unanswered === 0),
    ]);
    summary.push([
      `fuzz: RSS growth once over, its sessions removed: idle ${IDLE_MS / 1000} s, steady; peak`,
      `+${mb(idle - rssBefore)} MB, +${mb(settled - rssBefore)} MB; ${mb(rssPeakBytes)} MB`,
      "≤ +60 MB, ≤ +50 MB; < 400 MB",
      ok(idle - rssBefore <= 60 * MB && settled - rssBefore <= 50 * MB && rssPeakBytes < 400 * MB),
    ]);
    summary.push([
      "fuzz: unparsable replies, descriptors given back",
      `${counts.unparsable}, ${released ? "yes" : "no"}`,
      "0, yes",
      ok(counts.unparsable === 0 && released),
    ]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}
