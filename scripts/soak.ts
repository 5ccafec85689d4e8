// termd soak: what a daemon survives, each part in a private daemon of its own.
// A script run outside CI, not a test:  node_modules/.bin/bun scripts/soak.ts [flags]  (npm run soak)
//
//   --quick            a short run: 20,000 fuzzed messages, 20 clients x 200 requests,
//                      a 20 MB flood, 100 idle sessions, 20 s of races
//   --seed N           the fuzzer's seed (default: a new one, printed; give it back to replay a run)
//   --messages N       fuzzed messages (default 200000)
//   --clients N        concurrent clients (default 100)
//   --requests N       requests per client (default 1000)
//   --flood-mb N       MB (10^6 bytes) the flooding session writes (default 200)
//   --idle-sessions N  idle shells for the RSS figure (default 1000)
//   --race-seconds N   how long the races run (default 180)
//   --only LIST        comma-separated sections to run (default all): fuzz, clients, orphans,
//                      flood, idle, races
//   --help             this text
//
// What it does:
//   1. fuzz: N lines made by a seeded PRNG, over 8 connections: valid requests, known methods
//      with params of the wrong types, byte mutations of valid requests, truncated JSON, random
//      bytes, invalid UTF-8, huge numbers, deep nesting, unknown methods, odd envelopes, batches.
//      Each connection's first line is a ping, so it speaks the native protocol. Methods that end
//      or start programs (session.stop, session.remove, session.signal, exec.run, session.create)
//      only ever name no session or carry invalid params; system.shutdown is never sent. Replies
//      are counted by code; then the connections close and the daemon must give back their
//      descriptors, answer a ping from the same pid and run a new session; once every session is
//      removed, its steady RSS must be within 50 MB of where it started, and its peak under 400 MB.
//   2. clients: C clients at once, each R requests one after another (system.ping, session.info,
//      session.screen of 4 sessions: two idle shells, a clock printing 20 lines/s, a `cat`):
//      errors, and latency p50 / p99 / max.
//   3. orphans: 3 bash sessions per case, each having started `nohup sleep 1000 &` three times and
//      `sleep 1000 &` once; then session.stop; session.remove with force; and kill -9 of the
//      daemon followed by a new daemon on the same state dir. The processes left in those terminal
//      sessions (their SID, /proc/*/stat field 6) are counted after each: expect 0.
//   4. flood: a session writes `head -c N /dev/urandom | base64` (--flood-mb of output) to 3
//      subscribers: a fast one, a slow one (it stops reading for 800 ms in every second) and one
//      that disconnects every 1.5 s and resubscribes from its last offset, all three kept so
//      until they have every byte. Each one's bytes (sha256) against session.output's paged from
//      0: bytes lost per subscriber, expect 0.
//   5. idle: --idle-sessions `bash --norc --noprofile` sessions at their prompt, then their screens
//      parked (system.screens says so): the daemon's RSS growth per session once it is steady.
//   6. races: 16 connections, each with 4 calls in flight, call create (up to 100×300 with 5,000
//      lines of scrollback, a third of them recorded), remove (force), stop, resize, screenshot
//      (SVG, or PNG at scale 0.5 to 2), screen, subscribe, unsubscribe, input, wait and output on 4
//      session names for --race-seconds. Each connection is closed after 2–10 s, mid-call, and a
//      new one takes its place; one in 4 never reads. Every answer must be a result or a client's
//      error; the daemon must log nothing; once every session is removed, its steady RSS must be
//      within 50 MB of where it started, and its peak under 400 MB.
//   Each section's failure is reported as its own and the run goes on. A summary table ends it;
//   the exit code is 1 if any figure missed what is expected.
//
// Everything it starts (daemons, what their sessions left, the temp dir) is removed on exit, also
// on error or ^C. Nothing touches the user's own daemon: sockets and state dirs are in a temp dir.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { inPool, until } from "./concurrency.ts";
import { connect, type Client, type EventMessage } from "../src/client/index.ts";

const ROOT = join(import.meta.dir, "..");
const MB = 1024 * 1024;

// ---------------------------------------------------------------- flags

const SECTIONS = ["fuzz", "clients", "orphans", "flood", "idle", "races"];

interface Options {
  quick: boolean;
  seed: number;
  messages: number;
  clients: number;
  requests: number;
  floodMb: number;
  idleSessions: number;
  raceSeconds: number;
  only: Set<string>;
}

function parseFlags(argv: string[]): Options {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: "boolean" },
      seed: { type: "string" },
      messages: { type: "string" },
      clients: { type: "string" },
      requests: { type: "string" },
      "flood-mb": { type: "string" },
      "idle-sessions": { type: "string" },
      "race-seconds": { type: "string" },
      only: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (v.help) {
    const src = readFileSync(import.meta.path, "utf8").split("\n");
    console.log(src.slice(0, src.findIndex((l) => !l.startsWith("//"))).map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
    process.exit(0);
  }
  const int = (flag: string, given: string | undefined, dflt: number, min = 1): number => {
    if (given === undefined) return dflt;
    const n = Number(given);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} needs a whole number of at least ${min}, got ${given}`);
    return n;
  };
  const quick = v.quick === true;
  const only = v.only === undefined ? SECTIONS : v.only.split(",").filter(Boolean);
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`--only: unknown section ${s} (${SECTIONS.join(", ")})`);
  return {
    quick,
    seed: int("seed", v.seed, (Date.now() ^ (process.pid << 16)) >>> 0, 0) >>> 0,
    messages: int("messages", v.messages, quick ? 20_000 : 200_000),
    clients: int("clients", v.clients, quick ? 20 : 100),
    requests: int("requests", v.requests, quick ? 200 : 1000),
    floodMb: int("flood-mb", v["flood-mb"], quick ? 20 : 200),
    idleSessions: int("idle-sessions", v["idle-sessions"], quick ? 100 : 1000),
    raceSeconds: int("race-seconds", v["race-seconds"], quick ? 20 : 180),
    only: new Set(only),
  };
}

// ---------------------------------------------------------------- what to clean up, also on ^C

/** Daemons started and not yet known to have exited. */
const daemons = new Set<Subprocess>();
/** Every process the orphan sessions started, by pid and start time (a reused pid is never touched). */
const strays = new Map<number, string>();
let tempDir: string | undefined;

function cleanUp(): void {
  for (const p of daemons) terminateSync(p);
  daemons.clear();
  for (const [pid, start] of strays) {
    if (statFields(pid)?.[19] !== start) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  strays.clear();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true, maxRetries: 5 });
  tempDir = undefined;
}

process.on("exit", cleanUp);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    console.error(`\nsoak: ${sig}, cleaning up`);
    cleanUp();
    process.exit(130);
  });
}

/** SIGTERM (the daemon stops its sessions), up to 3 s for it to go, then SIGKILL. */
function terminateSync(proc: Subprocess): void {
  if (!alive(proc.pid)) return;
  proc.kill("SIGTERM");
  const deadline = performance.now() + 3000;
  while (alive(proc.pid) && performance.now() < deadline) Bun.sleepSync(20);
  if (alive(proc.pid)) proc.kill("SIGKILL");
}

// ---------------------------------------------------------------- helpers

/** The environment of a daemon that must find nothing of the user's own termd. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "TMUX" && !k.startsWith("TERMD_")) env[k] = v;
  return env;
}

/** Nearest-rank percentile. */
function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Samples a process's RSS every 250 ms until stopped, which gives the peak. */
function rssPeak(pid: number): { stop: () => number } {
  let peak = rssBytes(pid);
  const sample = () => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {}
  };
  const timer = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/**
 * A process's RSS once it has settled: sampled every 250 ms until `windowMs` (default 5 s) of
 * samples lie within 1 % of each other, at most `maxMs`. 5 s is longer than a screen worker waits
 * (2 s) before it collects what parking freed, so the step down that collection makes is in the
 * figure.
 */
async function steadyRss(pid: number, windowMs = 5000, maxMs = 60_000): Promise<number> {
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


function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: Timer | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Deterministic PRNG (mulberry32): a seed replays a run's messages. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** /proc/PID/stat after "pid (comm) ": [0] state, [1] ppid, [2] pgrp, [3] session, … [19] starttime. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** A live process, not a zombie. */
function alive(pid: number): boolean {
  const f = statFields(pid);
  return f !== undefined && f[0] !== "Z";
}

interface Proc {
  pid: number;
  comm: string;
  start: string;
}

/** Live (not zombie) processes whose terminal session (SID) is one of `sids`. */
function processesInSessions(sids: Set<number>): Proc[] {
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

// ---------------------------------------------------------------- a private daemon

interface Daemon {
  proc: Subprocess<"ignore", "ignore", "pipe">;
  socket: string;
  client: Client;
  /** The daemon's last lines on stderr, shown if it dies (a fuzzed daemon may log a lot). */
  stderrTail: string[];
  /** Lines it wrote to stderr so far, its banner included. */
  stderrLines: () => number;
  /** Its distinct log lines that start a message (not a stack's "at" lines), counted; at most 50 kept. */
  messages: Map<string, number>;
  stop: () => Promise<void>;
}

/**
 * A daemon on `dir/LABEL.sock` with state in `dir/LABEL-state` (the same label again reuses the
 * state dir), its open-file limit raised to the hard limit: each session holds a PTY and files.
 */
async function startDaemon(dir: string, label: string): Promise<Daemon> {
  const socket = join(dir, `${label}.sock`);
  const argv = [process.execPath, join(ROOT, "src/cli/main.ts"), "daemon", "--socket", socket, "--state-dir", join(dir, `${label}-state`), "--stop-grace", "1000"];
  // sh execs the daemon, so the pid stays the daemon's.
  const raise = `ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"`;
  const proc = Bun.spawn(["sh", "-c", raise, "sh", ...argv], { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: childEnv() });
  daemons.add(proc);
  void proc.exited.then(() => daemons.delete(proc));
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let seen = "";
  while (!seen.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`termd daemon did not start:\n${seen}`);
    seen += dec.decode(value);
  }
  const stderrTail = seen.split("\n").filter(Boolean);
  let lines = stderrTail.length;
  const messages = new Map<string, number>();
  // Keep draining stderr so the daemon never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      for (const line of dec.decode(value).split("\n")) {
        if (!line) continue;
        stderrTail.push(line.slice(0, 300));
        lines++;
        const m = line.slice(0, 200);
        if (!/^\s/.test(m) && (messages.has(m) || messages.size < 50)) messages.set(m, (messages.get(m) ?? 0) + 1);
      }
      if (stderrTail.length > 40) stderrTail.splice(0, stderrTail.length - 40);
    }
  })();
  const client = await connect(socket);
  const stop = async () => {
    if (alive(proc.pid)) await withTimeout(client.call("system.shutdown", { grace_ms: 500 }), 3000, "system.shutdown").catch(() => {});
    client.close();
    const killer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(killer);
  };
  return { proc, socket, client, stderrTail, stderrLines: () => lines, messages, stop };
}

// ---------------------------------------------------------------- report helpers

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const mb = (bytes: number) => f1(bytes / MB);
const n0 = (x: number) => x.toLocaleString("en-US");

function table(rows: string[][], indent = "  "): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => indent + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("   ").trimEnd()).join("\n");
}

/** Label and value rows, the values left-aligned. */
function kv(rows: string[][], indent = "  "): string {
  const w = Math.max(...rows.map((r) => r[0]!.length));
  return rows.map((r) => `${indent}${r[0]!.padEnd(w)}   ${r.slice(1).join("   ")}`.trimEnd()).join("\n");
}

/** Summary rows: what, figure, expected, verdict ("ok", "MISS", "FAIL" or "" for a figure only). */
type Summary = string[][];
const ok = (good: boolean) => (good ? "ok" : "MISS");

async function section(name: string, summary: Summary, body: () => Promise<void>): Promise<void> {
  const t0 = performance.now();
  try {
    await body();
  } catch (err) {
    console.log(`${name}: failed: ${(err as Error).stack ?? err}\n`);
    summary.push([name, "failed", "", "FAIL"]);
  }
  process.stderr.write(`  (${name}: ${f1((performance.now() - t0) / 1000)} s)\n`);
}

// ---------------------------------------------------------------- 1. fuzz

const SAFE_METHODS = ["system.ping", "system.stats", "session.list", "session.info", "session.screen", "session.output", "session.cast", "session.debug", "session.wait"] as const;

/** Params each method knows; the fuzzer fills them with values of any type. */
const METHOD_KEYS: Record<string, string[]> = {
  "system.ping": [],
  "system.stats": [],
  "system.screens": ["restart"],
  "session.create": ["command", "name", "cwd", "env", "rows", "cols", "scrollback", "term", "socket", "log_path", "exec_timeout_ms", "socket_dialect", "socket_cleanup", "log_append", "record", "shell_integration", "meta"],
  "session.list": [],
  "session.info": ["session"],
  "session.input": ["session", "text", "keys", "paste", "base64", "mouse", "submit", "timeout_ms", "wait"],
  "session.screen": ["session", "format", "scrollback", "since_seq"],
  "session.screenshot": ["session", "format", "scale"],
  "session.wait": ["session", "text", "regex", "gone", "exit", "activity", "settle_ms", "changed_from", "command_done", "since", "timeout_ms"],
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

const HUGE = ["1e400", "-1e400", "123456789012345678901234567890", "9007199254740993", "-0", "1e-400", "0.0000000000000000000001", "4294967296", "-2147483649", "1.7976931348623157e308", "-9223372036854775809", "1E+999999999"];
const UNKNOWN = ["__proto__", "constructor", "toString", "hasOwnProperty", "system.", "session.", ".", "", "session.info.x", "SESSION.INFO", "session.info ", "system/ping", "rpc.discover", "session.__proto__", "session.constructor", "exec.runs", "a".repeat(5000)];

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
    const alphabets = ["abcdefghijklmnopqrstuvwxyz0123456789", " \t\r\x00\x01\x1b[]{}\"\\/'", "é日本語🙂\u200b\u202e\ufeff", "\ud800\udfff\udc00"];
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
        return this.pick(["", "text", "ansi", "cells", "output", "*", "SIGINT", "INT", "program", "foreground", "session", "unlink", "interminai", "C-c", "Enter"]);
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
        for (let i = this.int(4); i > 0; i--) o[this.pick(["rows", "cols", "a", "__proto__", "constructor", this.str(6)])] = this.value(depth + 1);
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
    const req: Record<string, unknown> = { jsonrpc: "2.0", id: "@ID@", method: m, params: { session: this.pick(this.targets), [key]: "@N@" } };
    return this.enc(JSON.stringify(req).replace('"@ID@"', key === "id" ? this.pick(HUGE) : String(this.int(1e9))).replace('"@N@"', this.pick(HUGE)));
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
        return this.enc(`{"jsonrpc":"2.0","id":3,"method":"system.ping","__proto__":{"method":"system.shutdown"},"params":{"__proto__":{"x":1}}}`);
      case 7:
        return this.enc(`{"jsonrpc":"2.0","id":4,"method":"system.ping","method":"session.list"}`);
      default:
        return this.enc(this.pick(["", " ", "\r", "null", "{}", "[]", "[{}]", '"x"', "1", "true", "\t{}", "{}{}", '{"jsonrpc":"2.0"}{"jsonrpc":"2.0"}']));
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
    else [kind, bytes] = ["batch", this.batch()];
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

async function fuzz(o: Options, dir: string, summary: Summary): Promise<void> {
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
    const released = await until("the fuzz connections' descriptors to be released", 10_000, () => (fdCount(pid) <= fdsBefore ? true : undefined), 20).catch(() => false);
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
    let settled = NaN;
    if (survived) {
      for (const s of (await c.call("session.list")).sessions) await c.call("session.remove", { session: s.id, force: true }).catch(() => {});
      settled = await steadyRss(pid);
    }
    const errorsTotal = [...counts.errors.values()].reduce((a, b) => a + b, 0);
    const internal = counts.errors.get(-32603) ?? 0;
    console.log(`1. Fuzz: ${n0(o.messages)} messages over ${FUZZ_CONNECTIONS} connections, seed ${o.seed}`);
    console.log(
      kv([
        ["messages by kind", [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n0(n)}`).join(", ")],
        ["MB sent, seconds, messages / s", `${mb(sentBytes)}, ${f1(seconds)}, ${n0(Math.round(o.messages / seconds))}`],
        ["reply lines (batches)", `${n0(counts.lines)} (${n0(counts.batches)})`],
        ["results / errors / events / unparsable", `${n0(counts.results)} / ${n0(errorsTotal)} / ${n0(counts.events)} / ${n0(counts.unparsable)}`],
        ["errors by code", [...counts.errors].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code}: ${n0(n)}`).join(", ") || "none"],
        ["internal errors (-32603)", n0(internal)],
        ["connections the daemon closed (a line over 10 MiB)", String(closedByDaemon)],
        [`sync pings unanswered in ${SYNC_TIMEOUT_MS / 1000} s; the slowest answered after, s`, `${unanswered}; ${f1(slowestSyncMs / 1000)}`],
        ["daemon RSS before → peak → steady once the sessions are removed, MB", `${mb(rssBefore)} → ${mb(rssPeakBytes)} → ${mb(settled)}`],
        ["descriptors before → after the connections closed", `${fdsBefore} → ${fdsAfter}`],
        ["after", after],
      ]) + "\n",
    );
    if (!survived) console.log(`  the daemon's last stderr lines:\n    ${d.stderrTail.join("\n    ")}\n`);
    summary.push([`fuzz: ${n0(o.messages)} messages, seed ${o.seed}`, survived ? "survived" : "DIED", "survives", ok(survived)]);
    summary.push(["fuzz: internal errors, sync pings unanswered", `${internal}, ${unanswered}`, "0, 0", ok(internal === 0 && unanswered === 0)]);
    summary.push(["fuzz: RSS growth once over, its sessions removed; peak", `+${mb(settled - rssBefore)} MB; ${mb(rssPeakBytes)} MB`, "≤ +50 MB; < 400 MB", ok(settled - rssBefore <= 50 * MB && rssPeakBytes < 400 * MB)]);
    summary.push(["fuzz: unparsable replies, descriptors given back", `${counts.unparsable}, ${released ? "yes" : "no"}`, "0, yes", ok(counts.unparsable === 0 && released)]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------- 2. clients

async function clients(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "clients");
  const conns: Client[] = [];
  try {
    const c = d.client;
    const env = { PS1: "soak$ ", HISTFILE: join(dir, "bash_history") };
    const bash = ["bash", "--norc", "--noprofile"];
    const sessions = [
      await c.call("session.create", { command: bash, env, rows: 24, cols: 80 }),
      await c.call("session.create", { command: bash, env, rows: 24, cols: 80 }),
      await c.call("session.create", { command: ["sh", "-c", "while :; do date +%T.%N; sleep 0.05; done"], rows: 24, cols: 80 }),
      await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 }),
    ].map((s) => s.id);
    // Ready: both shells at their prompt, the clock ticking (cat is ready once it runs).
    for (const [id, text] of [[sessions[0]!, "soak$"], [sessions[1]!, "soak$"], [sessions[2]!, "."]] as const) {
      const w = await c.call("session.wait", { session: id, text, timeout_ms: 10_000 });
      if (w.outcome !== "matched") throw new Error(`session ${id} never showed ${text} (${w.outcome})`);
    }
    const rand = prng(o.seed ^ 0x5eed);
    const methods = ["system.ping", "session.info", "session.screen"] as const;
    const lat: Record<(typeof methods)[number], number[]> = { "system.ping": [], "session.info": [], "session.screen": [] };
    let errors = 0;
    let firstError = "";
    for (let i = 0; i < o.clients; i++) conns.push(await connect(d.socket));
    const t0 = performance.now();
    await Promise.all(
      conns.map(async (cl) => {
        for (let r = 0; r < o.requests; r++) {
          const method = methods[Math.floor(rand() * 3)]!;
          const session = sessions[Math.floor(rand() * sessions.length)]!;
          const s = performance.now();
          try {
            if (method === "system.ping") await cl.call(method);
            else await cl.call(method, { session });
            lat[method].push(performance.now() - s);
          } catch (err) {
            errors++;
            firstError ||= (err as Error).message;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const all = Object.values(lat).flat();
    const total = o.clients * o.requests;
    const spread = (xs: number[]) => `${f2(percentile(xs, 0.5))} / ${f2(percentile(xs, 0.99))} / ${f2(Math.max(...xs))}`;
    console.log(`2. Clients: ${o.clients} clients at once × ${n0(o.requests)} requests each, one after another (ping, info, screen of 4 sessions)`);
    console.log(
      kv([
        ["requests, errors", `${n0(total)}, ${n0(errors)}`],
        ["seconds, requests / s", `${f1(seconds)}, ${n0(Math.round(total / seconds))}`],
        ["latency p50 / p99 / max, ms: all", spread(all)],
        ...methods.map((m) => [`  ${m}`, spread(lat[m])]),
      ]),
    );
    if (firstError) console.log(`  the first error: ${firstError}`);
    console.log();
    summary.push([`clients: ${o.clients} × ${n0(o.requests)} requests, errors`, n0(errors), "0", ok(errors === 0)]);
    summary.push([`clients: latency p50 / p99`, `${f2(percentile(all, 0.5))} / ${f2(percentile(all, 0.99))} ms`, "", ""]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------- 3. orphans

const ORPHAN_SESSIONS = 3;
const ORPHAN_PROMPT = "orphan$ ";

/** ORPHAN_SESSIONS bash sessions, each with 3 nohup'ed sleeps and a background sleep: their ids and SIDs. */
async function orphanSessions(c: Client, dir: string): Promise<{ ids: string[]; sids: Set<number>; before: number }> {
  const ids: string[] = [];
  const sids = new Set<number>();
  for (let i = 0; i < ORPHAN_SESSIONS; i++) {
    const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: ORPHAN_PROMPT, HISTFILE: join(dir, "bash_history") }, rows: 24, cols: 80 });
    ids.push(info.id);
    // The program leads its terminal's session: its pid is the SID.
    sids.add(info.pid!);
    const w = await c.call("session.wait", { session: info.id, text: ORPHAN_PROMPT.trim(), timeout_ms: 10_000 });
    if (w.outcome !== "matched") throw new Error(`bash gave no prompt (${w.outcome})`);
    const line = "nohup sleep 1000 >/dev/null 2>&1 & nohup sleep 1000 >/dev/null 2>&1 & nohup sleep 1000 >/dev/null 2>&1 & sleep 1000 & echo started-$((6*7))";
    await c.call("session.input", { session: info.id, text: line, submit: true });
    const w2 = await c.call("session.wait", { session: info.id, text: "started-42", timeout_ms: 10_000 });
    if (w2.outcome !== "matched") throw new Error(`the sleeps did not start (${w2.outcome})`);
  }
  const procs = await until("every session's bash and 4 sleeps", 10_000, () => {
    const p = processesInSessions(sids);
    return p.length >= 5 * ORPHAN_SESSIONS ? p : undefined;
  }, 20);
  for (const p of procs) strays.set(p.pid, p.start);
  return { ids, sids, before: procs.length };
}

/** Processes left in `sids` at once, and after up to `ms` for the last to go. */
async function leftover(sids: Set<number>, ms: number): Promise<{ atOnce: number; later: number }> {
  const atOnce = processesInSessions(sids).length;
  const later = await until("", ms, () => (processesInSessions(sids).length === 0 ? 0 : undefined), 20).catch(() => processesInSessions(sids).length);
  return { atOnce, later };
}

async function orphans(_o: Options, dir: string, summary: Summary): Promise<void> {
  const rows: string[][] = [["case", "processes before", "left when the call returned", "left within 5 s"]];
  const results: [string, number][] = [];
  let d = await startDaemon(dir, "orphans");
  try {
    for (const [what, call] of [
      ["session.stop", (id: string) => d.client.call("session.stop", { session: id, grace_ms: 1000 })],
      ["session.remove force", (id: string) => d.client.call("session.remove", { session: id, force: true })],
    ] as const) {
      const s = await orphanSessions(d.client, dir);
      for (const id of s.ids) await call(id);
      const l = await leftover(s.sids, 5000);
      rows.push([what, String(s.before), String(l.atOnce), String(l.later)]);
      results.push([what, l.atOnce]);
    }
    // kill -9 of the daemon: its PTYs close, the shells take the hangup and end, and what ignores
    // the hangup (the nohup'ed sleeps) is left for the next daemon on the state dir to reap.
    const s = await orphanSessions(d.client, dir);
    const pid = d.proc.pid;
    d.proc.kill("SIGKILL");
    await d.proc.exited;
    d.client.close();
    await until("the shells to end on the hangup", 10_000, () => (processesInSessions(s.sids).some((p) => p.comm === "bash") ? undefined : true), 20);
    const lost = processesInSessions(s.sids).length;
    const t0 = performance.now();
    d = await startDaemon(dir, "orphans");
    const readyMs = performance.now() - t0;
    const l = await leftover(s.sids, 5000);
    rows.push([`kill -9 (pid ${pid}), once the shells ended`, String(s.before), String(lost), ""]);
    rows.push([`  a new daemon on its state dir (listening after ${f1(readyMs)} ms)`, "", String(l.atOnce), String(l.later)]);
    const states = (await d.client.call("session.list")).sessions.filter((x) => s.ids.includes(x.id)).map((x) => x.state);
    rows.push(["  the lost sessions' state in the new daemon", "", states.join(", "), ""]);
    // The new daemon signals them as it restores the lost sessions; they end a moment later.
    results.push(["kill -9 and a new daemon (5 s later)", l.later]);
  } finally {
    await d.stop();
  }
  console.log(`3. Orphans: ${ORPHAN_SESSIONS} \`bash --norc\` sessions per case, each with 3 \`nohup sleep 1000 &\` and a \`sleep 1000 &\` (processes counted by SID)`);
  console.log(table(rows) + "\n");
  for (const [what, left] of results) summary.push([`orphans after ${what}`, String(left), "0", ok(left === 0)]);
}

// ---------------------------------------------------------------- 4. flood

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
function take(s: Sub, e: EventMessage): void {
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

async function flood(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "flood");
  const conns: Client[] = [];
  let stopTimers = () => {};
  try {
    const c = d.client;
    // base64 makes 76-column lines; the terminal sends each with \r\n: 78 bytes for 57 random ones.
    const input = Math.round((o.floodMb * 1e6 * 57) / 78);
    // The program waits for a line of input, so all three subscribe before it writes.
    const id = (await c.call("session.create", { command: ["sh", "-c", `read go; head -c ${input} /dev/urandom | base64`], rows: 24, cols: 80 })).id;
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
    console.log(`4. Flood: \`head -c ${n0(input)} /dev/urandom | base64\`, ${n0(total)} bytes of output (session.output: ${n0(logBytes)} bytes, ${gaps} in gaps)`);
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

// ---------------------------------------------------------------- 5. idle

const IDLE_PROMPT = "soak-ready$ ";

async function idle(o: Options, dir: string, summary: Summary): Promise<void> {
  const n = o.idleSessions;
  const d = await startDaemon(dir, "idle");
  try {
    const c = d.client;
    const pid = d.proc.pid;
    const before = await steadyRss(pid);
    const fdsBefore = fdCount(pid);
    const env = { PS1: IDLE_PROMPT, HISTFILE: join(dir, "bash_history") };
    let created = 0;
    let prompted = 0;
    let firstError = "";
    const t0 = performance.now();
    await inPool(n, 20, async (i) => {
      try {
        const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
        created++;
        const r = await c.call("session.wait", { session: info.id, text: IDLE_PROMPT.trim(), timeout_ms: 30_000 });
        if (r.outcome !== "matched") throw new Error(`bash ${i}: no prompt (${r.outcome})`);
        prompted++;
      } catch (err) {
        firstError ||= (err as Error).message;
      }
    });
    const createMs = performance.now() - t0;
    const active = rssBytes(pid);
    const t2 = performance.now();
    await until("every idle screen parked", 120_000, async () => {
      const { workers } = await c.call("system.screens");
      return workers.reduce((sum, w) => sum + w.parked, 0) >= created ? true : undefined;
    }, 250);
    const parkMs = performance.now() - t2;
    const after = await steadyRss(pid);
    const per = (after - before) / Math.max(1, created);
    console.log(`5. Idle sessions: ${n0(n)} \`bash --norc --noprofile\` sessions at their prompt, their screens then parked`);
    console.log(
      kv([
        ["sessions created (at their prompt), in s", `${created} (${prompted}), ${f1(createMs / 1000)}`],
        ["RSS with their screens live, MB (per session)", `${mb(active)} (${f2((active - before) / Math.max(1, created) / MB)})`],
        ["every screen parked after, s", f1(parkMs / 1000)],
        ["RSS fresh → parked and steady, MB", `${mb(before)} → ${mb(after)}`],
        ["RSS per idle session, MB", f2(per / MB)],
        ["file descriptors per session", f1((fdCount(pid) - fdsBefore) / Math.max(1, created))],
      ]),
    );
    if (firstError) console.log(`  ${n - prompted} failed; the first: ${firstError}`);
    console.log();
    summary.push([`idle: sessions at their prompt`, `${prompted}/${n}`, `${n}`, ok(prompted === n)]);
    // The daemon's fixed cost weighs on a small count: judged at 1,000 sessions, as the bench does.
    summary.push([`idle: RSS per parked idle session at ${n0(n)}`, `${f2(per / MB)} MB`, "≤ 0.15 MB at 1,000", n >= 1000 ? ok(per <= 0.15 * MB) : ""]);
  } finally {
    await d.stop();
  }
}

// ---------------------------------------------------------------- 6. races

/** Names the race clients fight over: few, so every call meets another one on the same session. */
const RACE_NAMES = ["race0", "race1", "race2", "race3"];
const RACE_CONNECTIONS = 16;
/** What a call on a session that another client removes, stops or has not created yet may answer. */
const RACE_EXPECTED = new Set(["SESSION_NOT_FOUND", "SESSION_NOT_RUNNING", "NAME_TAKEN", "INPUT_NOT_READ", "TIMEOUT"]);

async function races(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "races");
  let conns: Client[] = [];
  try {
    const pid = d.proc.pid;
    const before = await steadyRss(pid);
    const logFrom = d.stderrLines();
    const peak = rssPeak(pid);
    const rand = prng(o.seed ^ 0x7ace);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const calls = new Map<string, number>();
    const answers = new Map<string, number>();
    let unexpected = "";
    let events = 0;
    let reconnects = 0;
    let stalled = 0;
    const deadline = performance.now() + o.raceSeconds * 1000;
    // One step: a random method on a random one of the few names, as a hostile client would.
    const step = async (c: Client, closing: () => boolean): Promise<void> => {
      const session = pick(RACE_NAMES);
      const k = rand();
      let method: string;
      let call: Promise<unknown>;
      if (k < 0.12) {
        method = "session.create";
        const command = pick([["cat"], ["sh", "-c", "while :; do echo tick; sleep 0.05; done"], ["sh", "-c", "printf '\\033]0;t\\007\\033[?1049h'; seq 1 5000; exec cat"]]);
        // A third of them recorded: the recording and the timing journal close as the session goes.
        const record = rand() < 0.33 ? join(dir, "race-casts", `${session}.cast`) : undefined;
        call = c.call("session.create", { name: session, command, rows: 10 + Math.floor(rand() * 90), cols: 20 + Math.floor(rand() * 280), scrollback: pick([0, 1000, 5000]), record });
      } else if (k < 0.22) {
        method = "session.remove";
        call = c.call("session.remove", { session, force: true });
      } else if (k < 0.27) {
        method = "session.stop";
        call = c.call("session.stop", { session, grace_ms: 200 });
      } else if (k < 0.4) {
        method = "session.resize";
        call = c.call("session.resize", { session, rows: 5 + Math.floor(rand() * 95), cols: 10 + Math.floor(rand() * 290) });
      } else if (k < 0.52) {
        method = "session.screenshot";
        call = c.call("session.screenshot", { session, format: pick(["svg", "png"] as const), scale: pick([0.5, 1, 2]) });
      } else if (k < 0.66) {
        method = "session.screen";
        call = c.call("session.screen", { session, format: pick(["text", "ansi", "cells"] as const), scrollback: pick([0, 50]) });
      } else if (k < 0.78) {
        method = "session.subscribe";
        call = c.call("session.subscribe", { session, events: ["*"], replay: 0 });
      } else if (k < 0.83) {
        method = "session.unsubscribe";
        call = c.call("session.unsubscribe", { session, events: ["*"] });
      } else if (k < 0.9) {
        method = "session.input";
        call = c.call("session.input", { session, text: "hello\r", timeout_ms: 500 });
      } else if (k < 0.95) {
        method = "session.wait";
        call = c.call("session.wait", { session, text: "tick", timeout_ms: 200 });
      } else {
        method = "session.output";
        call = c.call("session.output", { session, from: 0, max_bytes: 65536 });
      }
      calls.set(method, (calls.get(method) ?? 0) + 1);
      try {
        await call;
        answers.set("ok", (answers.get("ok") ?? 0) + 1);
      } catch (err) {
        if (closing()) return; // this side hung up on it
        const name = (err as Error).name;
        answers.set(name, (answers.get(name) ?? 0) + 1);
        if (!RACE_EXPECTED.has(name)) unexpected ||= `${method} on ${session}: ${name}: ${(err as Error).message}`;
      }
    };
    // Each connection keeps 4 calls in flight, and goes away after 2–10 s, mid-call; a new one takes
    // its place. One in 4 stops reading: what the daemon holds for it (its unread replies, its
    // subscribers' queues) must go when it closes.
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: RACE_CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          const c = await connect(d.socket);
          conns.push(c);
          c.onEvent(() => events++);
          if (rand() < 0.25) {
            c.pause();
            stalled++;
          }
          const end = Math.min(deadline, performance.now() + 2000 + rand() * 8000);
          let closing = false;
          const calls = Promise.all(
            Array.from({ length: 4 }, async () => {
              while (!closing && performance.now() < end) await step(c, () => closing);
            }),
          );
          await Promise.race([calls, Bun.sleep(end - performance.now())]);
          closing = true;
          c.close();
          conns = conns.filter((x) => x !== c);
          reconnects++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const peakBytes = peak.stop();
    // The fuzz is over: its sessions removed, its connections closed.
    const c = d.client;
    for (const s of (await c.call("session.list")).sessions) await c.call("session.remove", { session: s.id, force: true }).catch(() => {});
    const left = (await c.call("session.list")).sessions.length;
    // The PNG worker stays 30 s after its last picture, for the next one (rasterizer.ts): "after"
    // is the RSS once it stayed put for longer than that.
    const t1 = performance.now();
    const after = await steadyRss(pid, 35_000, 180_000);
    const settleS = (performance.now() - t1) / 1000;
    const logged = d.stderrLines() - logFrom;
    const internal = answers.get("INTERNAL_ERROR") ?? 0;
    console.log(`6. Races: ${RACE_CONNECTIONS} connections × 4 calls in flight for ${f1(seconds)} s on ${RACE_NAMES.length} session names (create, remove, stop, resize, screenshot, screen, subscribe, input, wait, output)`);
    console.log(
      kv([
        ["calls by method", [...calls].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m.replace("session.", "")} ${n0(n)}`).join(", ")],
        ["answers", [...answers].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n0(n)}`).join(", ")],
        ["events received, connections replaced (of them, stalled: never read)", `${n0(events)}, ${n0(reconnects)} (${n0(stalled)})`],
        ["daemon log lines during the run", String(logged)],
        ["RSS before → peak → after (sessions removed, steady for 35 s, after s), MB", `${mb(before)} → ${mb(peakBytes)} → ${mb(after)} (${f1(settleS)})`],
      ]),
    );
    if (unexpected) console.log(`  the first unexpected answer: ${unexpected}`);
    if (logged) {
      console.log(`  the daemon's log, its distinct messages:\n    ${[...d.messages].map(([m, n]) => `${n} × ${m}`).join("\n    ")}`);
      console.log(`  its last lines:\n    ${d.stderrTail.slice(-Math.min(logged, 10)).join("\n    ")}`);
    }
    console.log();
    summary.push([`races: internal errors, unexpected answers, log lines`, `${internal}, ${unexpected ? "some" : 0}, ${logged}`, "0, 0, 0", ok(internal === 0 && !unexpected && logged === 0)]);
    summary.push([`races: RSS after, growth, sessions left`, `${mb(after)} MB, +${mb(after - before)} MB, ${left}`, "≤ +50 MB, 0", ok(after - before <= 50 * MB && left === 0)]);
    summary.push([`races: RSS peak`, `${mb(peakBytes)} MB`, "< 400 MB", ok(peakBytes < 400 * MB)]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2));
  for (const p of ["bash", "sh", "cat", "head", "base64", "sleep", "nohup"]) if (!Bun.which(p)) throw new Error(`${p} is not installed; the soak needs it`);
  const dir = (tempDir = mkdtempSync(join(tmpdir(), "termd-soak-")));
  const load = () => loadavg().map(f2).join(" ");
  const t0 = performance.now();
  console.log(`termd soak${o.quick ? " --quick" : ""}: seed ${o.seed} (replay with --seed ${o.seed}), ${new Date().toISOString()}, ${cpus().length} CPUs, bun ${Bun.version}, load average ${load()}\n`);
  const summary: Summary = [];
  const run = { fuzz, clients, orphans, flood, idle, races };
  for (const name of SECTIONS) if (o.only.has(name)) await section(name, summary, () => run[name as keyof typeof run](o, dir, summary));
  console.log(`Summary (seed ${o.seed}, ${f1((performance.now() - t0) / 1000)} s, load average at the end ${load()})`);
  console.log(table([["", "figure", "expected", ""], ...summary]));
  if (summary.some((r) => r[3] === "FAIL" || r[3] === "MISS")) process.exitCode = 1;
}

try {
  await main();
} catch (err) {
  console.error(`soak failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
