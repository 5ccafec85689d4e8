// termd benchmark: side-by-side figures against tmux and the raw PTY limit, measured in one run.
// A script, not a test:  node_modules/.bin/bun scripts/bench.ts [flags]
//
//   --quick          sanity check: 5 MB file, 1 run, 50 / 20 key round trips, 20 idle shells,
//                    a 10 s redraw flood, 50 shells for idle1000
//   --size MB        size of the text file `cat` writes (default 50)
//   --runs N         throughput runs per contender; the median is reported (default 3)
//   --keys N         key round trips per measurement through termd and tmux's control mode (default 300)
//   --tmux-keys N    key round trips through tmux's spawned send-keys + capture-pane (default 100)
//   --sessions N     idle shells for the memory figure (default 100)
//   --redraw-seconds N  how long the redraw section's colour flood runs, per contender (default 60)
//   --idle-sessions N   idle shells for the idle1000 section (default 1000)
//   --many LIST      session counts for the many section (default 1000,10000)
//   --cli-runs N     runs of each command-line call in the cli section; the median is reported (default 30)
//   --only LIST      comma-separated sections to run (default all): throughput, keys, memory,
//                    parser, isolation, redraw, waits, idle1000, cli, many
//   --no-tmux        leave out the tmux column (also automatic when tmux is not installed)
//   --help           this text
//
// What is measured:
//   1. Output throughput: `cat FILE` of varied ~80-column printable lines, from start until the
//      program has exited and the screen shows the file's last line. termd: session.create, then
//      session.wait for that line and for the exit. tmux: a private server (-L, -f /dev/null)
//      whose pane runs `cat FILE; tmux wait-for -S CH`, then capture-pane until the last line
//      shows. Raw PTY: `script -qc 'cat FILE' /dev/null > /dev/null` (kernel PTY, no emulator).
//   2. Key round trip: one character into a session running `cat` (the tty echoes it) until the
//      screen shows it. termd through the client library; tmux through spawned send-keys +
//      capture-pane (what scripts do) and, for reference, a control-mode client (tmux -C).
//   3. Idle memory: RSS (VmRSS) of a fresh daemon, then with N `bash --norc --noprofile` sessions
//      at their prompt; the same for a tmux server holding N sessions. Children not counted.
//   4. VT parser (src/vt) with a performer that does nothing: plain text, and a stream recorded
//      with termd itself — vim with syntax on paging through this repository's sources at
//      50x160, taken from the session's log — repeated to 20 MB.
//   5. Isolation: a quiet `cat` session's key round trip (p50, p99, max) while another session of
//      the same daemon floods — `yes` of 80-column lines, then a program redrawing the whole 24x80
//      screen in random 256-colour SGR as fast as it can — and with no flood, in the same run.
//      termd: session.input, then session.wait(changed_from). tmux: a control-mode client on a
//      quiet pane while another session of the same server floods. The flood's own write rate
//      (/proc/PID/io wchar) is shown: a server that reads a flood slower has less to do.
//   6. Redraw: the colour-redraw program for --redraw-seconds in a fresh daemon (and a fresh tmux
//      server), the server's RSS sampled every 250 ms: peak growth over the RSS before. The
//      program then stops itself, its last bytes a unique line, and notes the time of its last
//      write: how long after that the screen shows the line (termd: the screen's offset is then the
//      session's bytes_out). tmux: polled with capture-pane, so a few ms of spawning are included.
//   7. Waits: 5,000 session.wait calls for text that never appears, spread over 10 connections, on
//      a session printing ~50 lines/s; meanwhile another `cat` session's key round trip and the
//      daemon's CPU and RSS. Then the connections close: their file descriptors must be released
//      and the daemon must go on answering. No tmux equivalent.
//   8. Idle sessions: --idle-sessions `bash --norc --noprofile` sessions created 20 at a time in a
//      fresh daemon (file-descriptor limit raised as far as allowed), each then asked for its
//      screen; then RSS and descriptors per session. tmux: the same number of sessions in one
//      server, created in batches of commands, each captured with capture-pane.
//   9. Command line: each client command (ls, info, send, screen, wait on a ready session, and
//      --version) run as a whole process, wall time from spawn to exit, through the compiled
//      binary (dist/termd, built first) and the Node stub (dist/termd-client.mjs under node);
//      beside `tmux ls` on a server holding one session and a compiled Bun hello-world (the floor
//      any Bun executable pays). Median and p90 of --cli-runs runs, after 3 unmeasured ones.
//   10. Many sessions: for each count in --many, that many `cat` sessions in a fresh daemon (open-
//      file limit raised as far as allowed), every screen read, then RSS and descriptors per
//      session, then SIGTERM: the time until the daemon has exited, and how many of the programs
//      are still running then. tmux: the same in one server, then kill-server.
//   Sections 5-10 each report a failure as theirs and let the run go on.
//
// Everything it starts (daemons, tmux servers, temp dirs) is removed on exit, also on error or ^C.
// The machine's load average is printed: other work on the machine makes the figures noisy.
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { inPool, until } from "./concurrency.ts";
import { connect, type Client } from "../src/client/index.ts";
import { benchParser, plainText as vtPlainText } from "../src/vt/bench.ts";
import { SCREEN_CURRENT_MS } from "../src/session/session.ts";

const ROOT = join(import.meta.dir, "..");
const MB = 1024 * 1024;

// ---------------------------------------------------------------- flags

interface Options {
  sizeMb: number;
  runs: number;
  keys: number;
  tmuxKeys: number;
  sessions: number;
  redrawSeconds: number;
  idleSessions: number;
  cliRuns: number;
  many: number[];
  only: Set<string>;
  tmux: boolean;
}

const SECTIONS = ["throughput", "keys", "memory", "parser", "isolation", "redraw", "waits", "idle1000", "cli", "many"];

function parseFlags(argv: string[]): Options {
  const quick = argv.includes("--quick");
  const o: Options = {
    sizeMb: quick ? 5 : 50,
    runs: quick ? 1 : 3,
    keys: quick ? 50 : 300,
    tmuxKeys: quick ? 20 : 100,
    sessions: quick ? 20 : 100,
    redrawSeconds: quick ? 10 : 60,
    idleSessions: quick ? 50 : 1000,
    cliRuns: quick ? 10 : 30,
    many: quick ? [200] : [1000, 10_000],
    only: new Set(SECTIONS),
    tmux: true,
  };
  const intFlag = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, got ${v ?? "nothing"}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case "--quick":
        break;
      case "--size":
        o.sizeMb = intFlag(a, argv[++i]);
        break;
      case "--runs":
        o.runs = Math.round(intFlag(a, argv[++i]));
        break;
      case "--keys":
        o.keys = Math.round(intFlag(a, argv[++i]));
        break;
      case "--tmux-keys":
        o.tmuxKeys = Math.round(intFlag(a, argv[++i]));
        break;
      case "--sessions":
        o.sessions = Math.round(intFlag(a, argv[++i]));
        break;
      case "--redraw-seconds":
        o.redrawSeconds = intFlag(a, argv[++i]);
        break;
      case "--idle-sessions":
        o.idleSessions = Math.round(intFlag(a, argv[++i]));
        break;
      case "--cli-runs":
        o.cliRuns = Math.round(intFlag(a, argv[++i]));
        break;
      case "--many":
        o.many = (argv[++i] ?? "").split(",").map((x) => Math.round(intFlag(a, x)));
        break;
      case "--only": {
        const list = (argv[++i] ?? "").split(",").filter(Boolean);
        for (const s of list) if (!SECTIONS.includes(s)) throw new Error(`--only: unknown section ${s}`);
        o.only = new Set(list);
        break;
      }
      case "--no-tmux":
        o.tmux = false;
        break;
      case "--help":
      case "-h": {
        const src = readFileSync(import.meta.path, "utf8").split("\n");
        const end = src.findIndex((l) => !l.startsWith("//"));
        console.log(src.slice(0, end).map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
        process.exit(0);
      }
      default:
        throw new Error(`unknown flag ${a} (try --help)`);
    }
  }
  return o;
}

// ---------------------------------------------------------------- cleanup

/** Undo actions, newest first. Each must be safe to run twice and must not throw. */
const cleanups: { sync: () => void; async?: () => Promise<void> }[] = [];
let cleanedUp = false;

function onCleanup(sync: () => void, async?: () => Promise<void>): () => void {
  const entry = { sync, async };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

async function cleanupAll(): Promise<void> {
  while (cleanups.length) {
    const c = cleanups.pop()!;
    try {
      if (c.async) await c.async();
      else c.sync();
    } catch {
      try {
        c.sync();
      } catch {}
    }
  }
  cleanedUp = true;
}

function cleanupAllSync(): void {
  if (cleanedUp) return;
  while (cleanups.length) {
    try {
      cleanups.pop()!.sync();
    } catch {}
  }
  cleanedUp = true;
}

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    console.error(`\nbench: ${sig}, cleaning up`);
    cleanupAllSync();
    process.exit(130);
  });
}
process.on("exit", cleanupAllSync);

// ---------------------------------------------------------------- helpers

const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "TMUX" && !k.startsWith("TERMD_")) env[k] = v;
  return env;
};

function sh(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function run(cmd: string[]): { code: number; stdout: string; stderr: string } {
  const p = Bun.spawnSync(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: childEnv() });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

function has(program: string): boolean {
  return Bun.which(program) !== null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile. */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** Bytes a process has written through system calls: a flood's own rate, whoever reads it. */
function writtenBytes(pid: number): number {
  const m = /^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  if (!m) throw new Error(`no wchar for pid ${pid}`);
  return Number(m[1]);
}

let clockTicks = 0;

/** CPU seconds (user + system, every thread) a process has used. */
function cpuSeconds(pid: number): number {
  clockTicks ||= Number(run(["getconf", "CLK_TCK"]).stdout.trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // After "pid (comm) ": field 3 (state) onwards; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** A process's CPU use over the next `ms`, in % of one core. */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await Bun.sleep(ms);
  return ((cpuSeconds(pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
}

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit on open files a running process got. */
function fdLimit(pid: number): string {
  return /^Max open files\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1] ?? "?";
}

/** Samples a process's RSS every `everyMs` until stopped, which gives the peak. */
function rssPeak(pid: number, everyMs = 250): { stop: () => number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {}
  }, everyMs);
  // An error elsewhere must not leave the timer holding the process open.
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid));
    },
  };
}

/** Wall-clock milliseconds, sub-millisecond, comparable with another process's time.time(). */
const wallMs = () => performance.timeOrigin + performance.now();


/** Deterministic PRNG (mulberry32), so every run cats the same bytes. */
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

/** Writes about `bytes` of varied printable lines (60-79 columns), then a unique last line. */
function writeTextFile(path: string, bytes: number, sentinel: string): number {
  const words = (
    "the quick brown fox jumps over lazy dog terminal session daemon screen cursor scroll buffer " +
    "render output input escape sequence parser width column row pane window socket client " +
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt " +
    "ut labore et dolore magna aliqua {} [] () <> == != && || => -> :: ;; ## $$ %% @@ ~~ ^^"
  ).split(" ");
  const rand = prng(42);
  const fd = openSync(path, "w");
  let written = 0;
  try {
    let chunk = "";
    let lineNo = 0;
    while (written + chunk.length < bytes) {
      const target = 60 + Math.floor(rand() * 20);
      let line = `${String(++lineNo).padStart(7, "0")} `;
      while (line.length < target) {
        const r = rand();
        const w = r < 0.85 ? words[Math.floor(rand() * words.length)]! : String(Math.floor(rand() * 1e6));
        line += (r < 0.1 ? w.toUpperCase() : w) + " ";
      }
      chunk += line.slice(0, target).trimEnd() + "\n";
      if (chunk.length >= 1 << 20) {
        written += writeSync(fd, chunk);
        chunk = "";
      }
    }
    written += writeSync(fd, chunk + sentinel + "\n");
  } finally {
    closeSync(fd);
  }
  return written;
}

// ---------------------------------------------------------------- termd daemon

/** A live process, not a zombie (nothing reaps while the event loop is blocked). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** For the signal path: SIGTERM (the daemon stops its sessions), wait up to 3 s, then SIGKILL. */
function terminateSync(proc: Subprocess): void {
  if (proc.exitCode !== null || proc.signalCode !== null || !alive(proc.pid)) return;
  proc.kill("SIGTERM");
  const deadline = performance.now() + 3000;
  while (alive(proc.pid) && performance.now() < deadline) Bun.sleepSync(20);
  if (alive(proc.pid)) proc.kill("SIGKILL");
}

interface Daemon {
  proc: Subprocess<"ignore", "ignore", "pipe">;
  socket: string;
  client: Client;
  stop: () => Promise<void>;
}

/** `openFiles`: raise the daemon's open-file limit that far, or else to the hard limit. */
async function startDaemon(dir: string, label: string, openFiles?: number): Promise<Daemon> {
  const socket = join(dir, `${label}.sock`);
  const stateDir = join(dir, `${label}-state`);
  const argv = [process.execPath, join(ROOT, "src/cli/main.ts"), "daemon", "--socket", socket, "--state-dir", stateDir, "--stop-grace", "1000"];
  // sh execs the daemon, so the pid stays the daemon's.
  const raise = `ulimit -n ${openFiles} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`;
  const proc = Bun.spawn(openFiles ? ["sh", "-c", raise, "sh", ...argv] : argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: childEnv() });
  const kill = onCleanup(() => terminateSync(proc));
  const reader = proc.stderr.getReader();
  let seen = "";
  const dec = new TextDecoder();
  while (!seen.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`termd daemon did not start:\n${seen}`);
    seen += dec.decode(value);
  }
  // Keep draining stderr so the daemon never blocks on a full pipe; show it only if it complains.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const text = dec.decode(value);
      if (/error|exception|fail/i.test(text)) process.stderr.write(`[termd ${label}] ${text}`);
    }
  })();
  const client = await connect(socket);
  const stop = async () => {
    kill();
    try {
      await Promise.race([client.call("system.shutdown", { grace_ms: 500 }), Bun.sleep(3000)]);
    } catch {}
    client.close();
    const killer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(killer);
  };
  onCleanup(() => terminateSync(proc), stop);
  return { proc, socket, client, stop };
}

// ---------------------------------------------------------------- tmux

class Tmux {
  private static count = 0;
  readonly name = `termdbench${process.pid}x${Tmux.count++}`;
  private readonly dropCleanup: () => void;

  constructor() {
    this.dropCleanup = onCleanup(() => this.killServer());
  }

  /** kill-server leaves the socket file behind; remove it too. */
  private killServer(): void {
    run(["tmux", "-L", this.name, "kill-server"]);
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${uid}`, this.name), { force: true });
  }

  cmd(...args: string[]): { code: number; stdout: string; stderr: string } {
    return run(["tmux", "-L", this.name, "-f", "/dev/null", ...args]);
  }

  ok(...args: string[]): string {
    const r = this.cmd(...args);
    if (r.code !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.trim() || `exit ${r.code}`}`);
    return r.stdout;
  }

  serverPid(): number {
    return Number(this.ok("display-message", "-p", "#{pid}").trim());
  }

  kill(): void {
    this.killServer();
    this.dropCleanup();
  }
}

// ---------------------------------------------------------------- 1. throughput

async function termdThroughput(c: Client, file: string, sentinel: string): Promise<number> {
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

async function tmuxThroughput(file: string, sentinel: string): Promise<number> {
  const t = new Tmux();
  try {
    const t0 = performance.now();
    t.ok("new-session", "-d", "-s", "bench", "-x", "80", "-y", "24", `cat ${sh(file)}; tmux -L ${t.name} wait-for -S catdone; exec sleep 86400`);
    t.ok("wait-for", "catdone");
    // cat has exited; tmux may still hold a last buffer of unparsed output: wait for the last line.
    await until("tmux to show the last line", 60_000, () => (t.ok("capture-pane", "-p", "-t", "bench").includes(sentinel) ? true : undefined));
    return performance.now() - t0;
  } finally {
    t.kill();
  }
}

async function rawThroughput(file: string): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(["script", "-qc", `cat ${sh(file)}`, "/dev/null"], { stdin: "ignore", stdout: "ignore", stderr: "ignore", env: childEnv() });
  const code = await p.exited;
  if (code !== 0) throw new Error(`script exited ${code}`);
  return performance.now() - t0;
}

// ---------------------------------------------------------------- 2. key round trip

const KEYS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

async function termdKeys(c: Client, n: number, pipelined: boolean): Promise<number[]> {
  const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
  try {
    // cat's tty echoes each key. Ctrl+U every 60 keys keeps the canonical line short.
    let hash = (await c.call("session.wait", { session: info.id, settle_ms: 50 })).screen.hash;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        await c.call("session.input", { session: info.id, keys: ["Ctrl+U"] });
        hash = (await c.call("session.wait", { session: info.id, settle_ms: 20 })).screen.hash;
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      let r;
      if (pipelined) {
        const w = c.call("session.wait", { session: info.id, changed_from: hash, timeout_ms: 5000 });
        await c.call("session.input", { session: info.id, text: ch });
        r = await w;
      } else {
        await c.call("session.input", { session: info.id, text: ch });
        r = await c.call("session.wait", { session: info.id, changed_from: hash, timeout_ms: 5000 });
      }
      times.push(performance.now() - t0);
      if (r.outcome !== "changed") throw new Error(`termd key ${i}: ${r.outcome}`);
      const row = r.screen.lines[r.screen.cursor.row] ?? "";
      if (!row.slice(0, r.screen.cursor.col).endsWith(ch)) throw new Error(`termd key ${i}: screen shows ${JSON.stringify(row)}, not ${ch}`);
      hash = r.screen.hash;
    }
    return times;
  } finally {
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/** The way scripts drive tmux: spawn send-keys, then spawn capture-pane until the echo shows. */
async function tmuxKeysSpawned(n: number): Promise<number[]> {
  const t = new Tmux();
  try {
    t.ok("new-session", "-d", "-s", "keys", "-x", "80", "-y", "24", "cat");
    await until("tmux cat to start", 5000, () => (t.ok("display-message", "-p", "-t", "keys", "#{pane_current_command}").trim() === "cat" ? true : undefined));
    let typed = "";
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        t.ok("send-keys", "-t", "keys", "C-u");
        typed = "";
        await until("tmux to clear the line", 5000, () => (t.ok("capture-pane", "-p", "-t", "keys").trim() === "" ? true : undefined));
      }
      const ch = KEYS[i % KEYS.length]!;
      typed += ch;
      const t0 = performance.now();
      t.ok("send-keys", "-t", "keys", "-l", ch);
      await until("tmux echo", 5000, () => (t.ok("capture-pane", "-p", "-t", "keys").includes(typed) ? true : undefined), 0);
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    t.kill();
  }
}

/** tmux at its best: one control-mode client, send-keys in, %output notification back. */
async function tmuxKeysControl(n: number): Promise<number[]> {
  const t = new Tmux();
  try {
    await tmuxCat(t, "keys");
    return await controlKeys(t, "keys", n);
  } finally {
    t.kill();
  }
}

/** A session `name` running `cat`, once cat runs. */
async function tmuxCat(t: Tmux, name: string): Promise<void> {
  t.ok("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "cat");
  await until("tmux cat to start", 5000, () => (t.ok("display-message", "-p", "-t", name, "#{pane_current_command}").trim() === "cat" ? true : undefined));
}

/** Key round trips into the `cat` of session `target` through a control-mode client attached to it. */
async function controlKeys(t: Tmux, target: string, n: number): Promise<number[]> {
  // Only this pane's %output counts: another pane's output must never pass for the echo.
  const pane = t.ok("display-message", "-p", "-t", target, "#{pane_id}").trim();
  const proc = Bun.spawn(["tmux", "-L", t.name, "-C", "attach-session", "-t", target], { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: childEnv() });
  try {
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    let buf = "";
    const nextLine = async (): Promise<string> => {
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("tmux control client closed");
        buf += dec.decode(value, { stream: true });
      }
    };
    // 5 s, as termd's waits: a lost line fails the measurement instead of hanging the run.
    const waitLine = async (what: string, pred: (line: string) => boolean) => {
      const deadline = performance.now() + 5000;
      for (;;) {
        const late = Bun.sleep(Math.max(0, deadline - performance.now())).then(() => undefined);
        const line = await Promise.race([nextLine(), late]);
        if (line === undefined) throw new Error(`tmux control mode: no ${what} from ${target} within 5 s`);
        if (pred(line)) return;
      }
    };
    const prefix = `%output ${pane} `;
    const waitOutput = (pred: (data: string) => boolean) => waitLine("echo", (l) => l.startsWith(prefix) && pred(l.slice(prefix.length)));
    // Keys sent before the attach completes can lose their %output (tmux 3.3a; now and then the
    // echo even lands inside the %session-changed line): start once attached.
    await waitLine("%session-changed", (l) => l.startsWith("%session-changed "));
    const send = (cmd: string) => {
      proc.stdin.write(cmd + "\n");
      proc.stdin.flush();
    };
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        send(`send-keys -t ${target} C-u`);
        await waitOutput((d) => d.includes("\\010") || d.includes("\\033") || d.includes("^U"));
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      send(`send-keys -t ${target} -l ${ch}`);
      await waitOutput((d) => d.includes(ch));
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    proc.kill();
  }
}

// ---------------------------------------------------------------- 3. idle memory

const PROMPT = "bench-ready$ ";

async function termdMemory(dir: string, n: number): Promise<{ before: number; after: number; children: number }> {
  const d = await startDaemon(dir, "memory");
  try {
    const pid = (await d.client.call("system.ping")).pid;
    if (pid !== d.proc.pid) throw new Error(`daemon pid ${pid} is not the spawned process ${d.proc.pid}`);
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const env = { PS1: PROMPT, HISTFILE: join(dir, "bash_history") };
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const info = await d.client.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
      ids.push(info.id);
      const r = await d.client.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 10_000 });
      if (r.outcome !== "matched") throw new Error(`termd bash ${i}: no prompt (${r.outcome})`);
    }
    await Bun.sleep(1000);
    const after = rssBytes(pid);
    let children = 0;
    for (const id of ids) {
      const info = await d.client.call("session.info", { session: id });
      if (info.pid) children += rssBytes(info.pid);
    }
    return { before, after, children };
  } finally {
    await d.stop();
  }
}

async function tmuxMemory(dir: string, n: number): Promise<{ before: number; after: number; baseline: string }> {
  const t = new Tmux();
  try {
    const { shell, baseline, created } = tmuxShellServer(t, dir);
    const pid = t.serverPid();
    await Bun.sleep(500);
    const before = rssBytes(pid);
    for (let i = created; i < n; i++) {
      t.ok("new-session", "-d", "-s", `s${i}`, "-x", "80", "-y", "24", shell);
    }
    for (let i = 0; i < n; i++) {
      await until(`tmux bash ${i} prompt`, 10_000, () => (t.ok("capture-pane", "-p", "-t", `s${i}`).includes(PROMPT.trim()) ? true : undefined), 5);
    }
    await Bun.sleep(1000);
    return { before, after: rssBytes(pid), baseline };
  } finally {
    t.kill();
  }
}

/**
 * A tmux server to measure sessions against, and the shell command its sessions run.
 * A server with no session at all, kept alive by exit-empty off; falls back to one session, s0.
 */
function tmuxShellServer(t: Tmux, dir: string): { shell: string; baseline: string; created: number } {
  // tmux 3.3's new-session -e does not reach the pane's command here; env(1) execs bash.
  const shell = `env PS1=${sh(PROMPT)} HISTFILE=${sh(join(dir, "bash_history"))} bash --norc --noprofile`;
  const r = t.cmd("start-server", ";", "set-option", "-g", "exit-empty", "off");
  if (r.code === 0 && !t.cmd("list-sessions").stderr.includes("no server")) return { shell, baseline: "empty server", created: 0 };
  t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", shell);
  return { shell, baseline: "server with 1 session", created: 1 };
}

// ---------------------------------------------------------------- 5. isolation

/** 79 columns, so `yes` writes 80-column lines. */
const FLOOD_LINE = "the quick brown fox jumps over the lazy dog 0123456789 a terminal flood of plain text".slice(0, 79);

/** How long a flood runs before measuring, so it is in full swing. */
const FLOOD_WARMUP_MS = 300;

// The colour-redraw flood: the whole 24x80 screen in random 256-colour SGR, frame after frame, as
// fast as the terminal takes it. argv: seconds (0: forever), then optionally a sentinel, which
// replaces the screen as the program's very last bytes, and a file where it then notes the time of
// that last write and how many bytes it wrote in all.
const REDRAW_PY = String.raw`import os, sys, time
ROWS, COLS = 24, 80
secs = float(sys.argv[1])
sentinel = sys.argv[2].encode() if len(sys.argv) > 2 else b""
stamp = sys.argv[3] if len(sys.argv) > 3 else ""
glyphs = b"#@%&*+=-:.oOxX"
cell = [b"\x1b[38;5;%dm%c" % (n, glyphs[n % len(glyphs)]) for n in range(256)]
moves = [b"\x1b[%d;1H" % (r + 1) for r in range(ROWS)]
out = sys.stdout.buffer
written = 0
end = time.monotonic() + secs if secs > 0 else float("inf")
while time.monotonic() < end:
    noise = os.urandom(ROWS * COLS)
    frame = b"".join(moves[r] + b"".join(map(cell.__getitem__, noise[r * COLS:(r + 1) * COLS])) for r in range(ROWS)) + b"\x1b[0m"
    out.write(frame)
    written += len(frame)
last = b"\x1b[0m\x1b[2J\x1b[H" + sentinel
out.write(last)
out.flush()
written += len(last)
if stamp:
    with open(stamp + ".tmp", "w") as f:
        f.write("%.6f %d" % (time.time(), written))
    os.replace(stamp + ".tmp", stamp)
`;

/** The redraw program's argv (without its own arguments). */
function redrawProgram(dir: string): string[] {
  const script = join(dir, "redraw.py");
  writeFileSync(script, REDRAW_PY);
  // The interpreter itself, not a version manager's shim: the session's pid is then the flood's.
  const python = run(["python3", "-c", "import sys; print(sys.executable)"]).stdout.trim() || "python3";
  return [python, script];
}

interface Isolated {
  times: number[];
  /** What the flooding program wrote meanwhile, MB/s; NaN with no flood. */
  floodMbs: number;
}

/** Runs `measure` once the flood (pid) is in full swing; the flood's own write rate meanwhile. */
async function duringFlood(pid: number, measure: () => Promise<number[]>): Promise<Isolated> {
  await Bun.sleep(FLOOD_WARMUP_MS);
  const w0 = writtenBytes(pid);
  const t0 = performance.now();
  const times = await measure();
  return { times, floodMbs: (writtenBytes(pid) - w0) / MB / ((performance.now() - t0) / 1000) };
}

/** Key round trips into a fresh `cat` session while `flood` runs in another session of the daemon. */
async function termdIsolated(c: Client, n: number, flood?: string[]): Promise<Isolated> {
  if (!flood) return { times: await termdKeys(c, n, false), floodMbs: NaN };
  const info = await c.call("session.create", { command: flood, rows: 24, cols: 80 });
  try {
    if (!info.pid) throw new Error(`termd: ${flood[0]} has no pid`);
    return await duringFlood(info.pid, () => termdKeys(c, n, false));
  } finally {
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/** The same in tmux: the control client is attached to the quiet session only. */
async function tmuxIsolated(t: Tmux, label: string, n: number, flood?: string[]): Promise<Isolated> {
  const quiet = `quiet${label}`;
  const loud = `flood${label}`;
  await tmuxCat(t, quiet);
  try {
    if (!flood) return { times: await controlKeys(t, quiet, n), floodMbs: NaN };
    // exec: the pane's pid is the flood's.
    t.ok("new-session", "-d", "-s", loud, "-x", "80", "-y", "24", `exec ${flood.map(sh).join(" ")}`);
    const pid = Number(t.ok("display-message", "-p", "-t", loud, "#{pane_pid}").trim());
    return await duringFlood(pid, () => controlKeys(t, quiet, n));
  } finally {
    t.cmd("kill-session", "-t", loud);
    t.cmd("kill-session", "-t", quiet);
  }
}

// ---------------------------------------------------------------- 6. redraw

/** Start waiting for the redraw's last line this long before it is due: a text wait costs a check per screen change. */
const LOOK_EARLY_MS = 2000;

interface Redraw {
  before: number;
  peak: number;
  /** RSS 1 s after the screen was current. */
  after: number;
  /** From the program's last write until the screen showed it. */
  lagMs: number;
  /** Output not yet on the screen when the program ended (bytes); NaN where unknown. */
  behind: number;
  /** What the program wrote. */
  bytes: number;
  notes: string[];
}

function sentinelText(what: string): string {
  return `TERMD-BENCH-${what}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The redraw program's note: when it wrote its last byte (wall clock, ms) and how much it wrote. */
async function readStamp(stamp: string): Promise<{ last: number; bytes: number }> {
  const text = await until("the redraw program's stamp", 10_000, () => (existsSync(stamp) ? readFileSync(stamp, "utf8") : undefined), 5);
  const [time, bytes] = text.trim().split(" ");
  return { last: Number(time) * 1000, bytes: Number(bytes) };
}

async function termdRedraw(dir: string, redraw: string[], secs: number): Promise<Redraw> {
  const d = await startDaemon(dir, "redraw");
  try {
    const c = d.client;
    const pid = d.proc.pid;
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const sampler = rssPeak(pid);
    const sentinel = sentinelText("REDRAW");
    const stamp = join(dir, "redraw-termd.stamp");
    const t0 = performance.now();
    const info = await c.call("session.create", { command: [...redraw, String(secs), sentinel, stamp], rows: 24, cols: 80 });
    await Bun.sleep(Math.max(0, secs * 1000 - LOOK_EARLY_MS - (performance.now() - t0)));
    const r = await c.call("session.wait", { session: info.id, text: sentinel, timeout_ms: LOOK_EARLY_MS + 120_000 });
    if (r.outcome === "timeout") throw new Error("termd: the redraw's last line never showed");
    let seen = wallMs();
    let screen = r.screen;
    if (r.outcome === "exited") {
      // The program ended before its last bytes were on the screen (a wait on an ended session
      // answers at once): poll until they are.
      screen = await until("termd's screen to show the redraw's last line", 120_000, async () => {
        const s = await c.call("session.screen", { session: info.id });
        return s.lines.some((l) => l.includes(sentinel)) ? s : undefined;
      }, 2);
      seen = wallMs();
    }
    const peak = sampler.stop();
    await c.call("session.wait", { session: info.id, exit: true, timeout_ms: 10_000 });
    const end = await c.call("session.info", { session: info.id });
    const { last, bytes } = await readStamp(stamp);
    const notes: string[] = [];
    // The sentinel is the very last output, so the screen showing it must reflect every byte.
    if (screen.offset !== end.bytes_out) notes.push(`the screen's offset ${screen.offset} ≠ bytes_out ${end.bytes_out}`);
    if (end.bytes_out !== bytes) notes.push(`bytes_out ${end.bytes_out} ≠ the ${bytes} bytes the program wrote`);
    const behind = r.outcome === "exited" ? end.bytes_out - r.screen.offset : 0;
    await c.call("session.remove", { session: info.id, force: true });
    await Bun.sleep(1000);
    return { before, peak, after: rssBytes(pid), lagMs: seen - last, behind, bytes, notes };
  } finally {
    await d.stop();
  }
}

async function tmuxRedraw(dir: string, redraw: string[], secs: number): Promise<Redraw> {
  const t = new Tmux();
  try {
    await tmuxCat(t, "idle"); // the server, measured before the flood
    const pid = t.serverPid();
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const sampler = rssPeak(pid);
    const sentinel = sentinelText("REDRAW");
    const stamp = join(dir, "redraw-tmux.stamp");
    const t0 = performance.now();
    // The shell stays after the program, so the pane and its screen stay too.
    t.ok("new-session", "-d", "-s", "redraw", "-x", "80", "-y", "24", `${[...redraw, String(secs), sentinel, stamp].map(sh).join(" ")}; exec sleep 86400`);
    await Bun.sleep(Math.max(0, secs * 1000 - LOOK_EARLY_MS - (performance.now() - t0)));
    const shows = () => (t.ok("capture-pane", "-p", "-t", "redraw").includes(sentinel) ? true : undefined);
    await until("tmux to show the redraw's last line", LOOK_EARLY_MS + 120_000, shows, 2);
    const seen = wallMs();
    const peak = sampler.stop();
    const { last, bytes } = await readStamp(stamp);
    t.cmd("kill-session", "-t", "redraw");
    await Bun.sleep(1000);
    return { before, peak, after: rssBytes(pid), lagMs: seen - last, behind: NaN, bytes, notes: [] };
  } finally {
    t.kill();
  }
}

// ---------------------------------------------------------------- 7. pending waits

const NEVER_SHOWN = "TERMD-BENCH-TEXT-THAT-NEVER-SHOWS";

interface Waits {
  n: number;
  connections: number;
  /** From the first wait sent until every connection answered a ping sent after its waits. */
  sendMs: number;
  /** Waits answered, or failed, before their connections closed: none should. */
  early: number;
  keys: { alone: number[]; pending: number[]; after: number[] };
  cpu: { alone: number; pending: number; after: number };
  rss: { alone: number; pending: number; after: number };
  /** From closing the connections until the daemon held no more descriptors than before them. */
  releaseMs: number;
}

async function termdWaits(dir: string, n: number, connections: number, keys: number): Promise<Waits> {
  const d = await startDaemon(dir, "waits");
  const clients: Client[] = [];
  try {
    const c = d.client;
    const pid = d.proc.pid;
    // ~50 lines/s: every line changes the screen, and each change is checked against every wait.
    const chatty = await c.call("session.create", {
      command: ["bash", "--norc", "--noprofile", "-c", "while :; do echo line $RANDOM; sleep 0.02; done"],
      rows: 24,
      cols: 80,
    });
    const lines = await c.call("session.wait", { session: chatty.id, text: "line", timeout_ms: 10_000 });
    if (lines.outcome !== "matched") throw new Error(`termd: the chatty session printed nothing (${lines.outcome})`);

    await termdKeys(c, 30, false); // warm-up, as in isolation
    const aloneKeys = await termdKeys(c, keys, false);
    const aloneCpu = await cpuShare(pid, 2000);
    const aloneRss = rssBytes(pid);
    const fds = fdCount(pid);

    for (let i = 0; i < connections; i++) clients.push(await connect(d.socket));
    let closing = false;
    let early = 0;
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const w = clients[i % connections]!.call("session.wait", { session: chatty.id, text: NEVER_SHOWN, timeout_ms: 120_000 });
      // Closing the connections rejects them here; any other answer is one too early.
      pending.push(w.then(() => void early++, () => void (closing || early++)));
    }
    // Requests on a connection are read in order: a ping answered means its waits were taken in.
    await Promise.all(clients.map((cl) => cl.call("system.ping")));
    const sendMs = performance.now() - t0;
    const pendingCpu = await cpuShare(pid, 2000);
    const pendingKeys = await termdKeys(c, keys, false);
    const pendingRss = rssBytes(pid);

    closing = true;
    const t1 = performance.now();
    for (const cl of clients) cl.close();
    await Promise.all(pending);
    let releaseMs = NaN;
    try {
      await until("the daemon to release the connections", 10_000, () => (fdCount(pid) <= fds ? true : undefined), 2);
      releaseMs = performance.now() - t1;
    } catch {}
    // Still fine: it answers, the chatty session still runs and is watched, keys still echo.
    await c.call("system.ping");
    const still = await c.call("session.wait", { session: chatty.id, activity: true, timeout_ms: 5000 });
    if (still.outcome !== "activity") throw new Error(`termd: after the waits, the chatty session shows ${still.outcome}`);
    const afterKeys = await termdKeys(c, keys, false);
    const afterCpu = await cpuShare(pid, 2000);
    return {
      n,
      connections,
      sendMs,
      early,
      keys: { alone: aloneKeys, pending: pendingKeys, after: afterKeys },
      cpu: { alone: aloneCpu, pending: pendingCpu, after: afterCpu },
      rss: { alone: aloneRss, pending: pendingRss, after: rssBytes(pid) },
      releaseMs,
    };
  } finally {
    for (const cl of clients) cl.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------- 8. idle sessions

interface Idle {
  /** Sessions that exist, and of those, how many reached their prompt. */
  created: number;
  prompted: number;
  failures: number;
  firstError: string;
  createMs: number;
  /** Sessions whose screen read answered with the prompt on it. */
  answered: number;
  readMs: number;
  before: number;
  after: number;
  /** termd: RSS right after the reads, before the idle screens were parked. */
  active?: number;
  /** termd: how long until every screen was parked, ms. */
  parkMs?: number;
  fdsBefore: number;
  fdsAfter: number;
  fdLimit: string;
  /** The sessions the growth is divided by (a tmux baseline session is not one). */
  added: number;
  baseline: string;
}

const IDLE_WIDTH = 20;

async function termdIdle(dir: string, n: number): Promise<Idle> {
  // Each session holds a PTY and files: lift the daemon's descriptor limit as far as allowed.
  const d = await startDaemon(dir, "idle", 65536);
  try {
    const c = d.client;
    const pid = d.proc.pid;
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const fdsBefore = fdCount(pid);
    const env = { PS1: PROMPT, HISTFILE: join(dir, "bash_history") };
    const ids: string[] = [];
    let prompted = 0;
    let failures = 0;
    let firstError = "";
    const t0 = performance.now();
    await inPool(n, IDLE_WIDTH, async (i) => {
      try {
        const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
        ids.push(info.id);
        const r = await c.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 30_000 });
        if (r.outcome !== "matched") throw new Error(`bash ${i}: no prompt (${r.outcome})`);
        prompted++;
      } catch (err) {
        failures++;
        firstError ||= (err as Error).message;
      }
    });
    const createMs = performance.now() - t0;
    let answered = 0;
    const t1 = performance.now();
    await inPool(ids.length, IDLE_WIDTH, async (i) => {
      try {
        const s = await c.call("session.screen", { session: ids[i]! });
        if (s.lines[0]?.includes(PROMPT.trim())) answered++;
      } catch (err) {
        firstError ||= (err as Error).message;
      }
    });
    const readMs = performance.now() - t1;
    await Bun.sleep(1000);
    const active = rssBytes(pid);
    // Idle screens are parked after the daemon's --screen-park (5 s): their emulators are freed.
    const t2 = performance.now();
    await until("every idle screen parked", 60_000, async () => {
      const { workers } = await c.call("system.screens");
      return workers.reduce((sum, w) => sum + w.parked, 0) >= ids.length ? true : undefined;
    }, 250);
    const parkMs = performance.now() - t2;
    // The workers give the freed memory back after a collection (screen-worker.ts).
    await Bun.sleep(3000);
    const after = rssBytes(pid);
    const fdsAfter = fdCount(pid);
    const created = ids.length;
    return { created, prompted, failures, firstError, createMs, answered, readMs, before, after, active, parkMs, fdsBefore, fdsAfter, fdLimit: fdLimit(pid), added: created, baseline: "fresh daemon" };
  } finally {
    await d.stop();
  }
}

async function tmuxIdle(dir: string, n: number): Promise<Idle> {
  const t = new Tmux();
  try {
    const { shell, baseline, created: pre } = tmuxShellServer(t, dir);
    const pid = t.serverPid();
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const fdsBefore = fdCount(pid);
    let failures = 0;
    let firstError = "";
    const t0 = performance.now();
    // 50 sessions per tmux command line: one client spawn per session would time the spawning.
    for (let i = pre; i < n; i += 50) {
      const args: string[] = [];
      for (let j = i; j < Math.min(n, i + 50); j++) args.push(...(args.length ? [";"] : []), "new-session", "-d", "-s", `s${j}`, "-x", "80", "-y", "24", shell);
      const r = t.cmd(...args);
      if (r.code !== 0) {
        failures++;
        firstError ||= r.stderr.trim();
      }
    }
    const created = t.ok("list-sessions", "-F", "#{session_name}").split("\n").filter(Boolean).length;
    // A shell at its prompt has the cursor just after it on the first row.
    const atPrompt = () => t.ok("list-panes", "-a", "-F", "#{cursor_x},#{cursor_y}").split("\n").filter((l) => l === `${PROMPT.length},0`).length;
    let prompted = atPrompt();
    for (const deadline = performance.now() + 60_000; prompted < created && performance.now() < deadline; prompted = atPrompt()) await Bun.sleep(20);
    const createMs = performance.now() - t0;
    let answered = 0;
    const t1 = performance.now();
    for (let i = 0; i < n; i += 100) {
      const args: string[] = [];
      for (let j = i; j < Math.min(n, i + 100); j++) args.push(...(args.length ? [";"] : []), "capture-pane", "-p", "-t", `s${j}`);
      answered += t.cmd(...args).stdout.split(PROMPT.trim()).length - 1;
    }
    const readMs = performance.now() - t1;
    await Bun.sleep(1000);
    const after = rssBytes(pid);
    const fdsAfter = fdCount(pid);
    return { created, prompted, failures, firstError, createMs, answered, readMs, before, after, fdsBefore, fdsAfter, fdLimit: fdLimit(pid), added: created - pre, baseline };
  } finally {
    t.kill();
  }
}

// ---------------------------------------------------------------- 9. command line

interface CliTime {
  what: string;
  /** Wall, spawn to exit. */
  ms: number[];
  /** The process's CPU time (user + system): less swayed by other work on the machine than wall time. */
  cpuMs: number[];
}

/** `argv` as a whole process, `runs` times after 3 unmeasured runs. */
function timeProcess(what: string, argv: string[], runs: number, env: Record<string, string>): CliTime {
  const once = () => {
    const t = performance.now();
    const r = Bun.spawnSync(argv, { env, stdout: "ignore", stderr: "pipe" });
    const ms = performance.now() - t;
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: exit ${r.exitCode}: ${r.stderr.toString().trim().slice(0, 200)}`);
    return { ms, cpuMs: Number(r.resourceUsage.cpuTime.total) / 1000 };
  };
  for (let i = 0; i < 3; i++) once();
  const all = Array.from({ length: runs }, once);
  return { what, ms: all.map((x) => x.ms), cpuMs: all.map((x) => x.cpuMs) };
}

async function cliTimes(o: Options, dir: string): Promise<CliTime[]> {
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts")], { stdout: "ignore", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString().slice(-500)}`);
  const hello = join(dir, "hello");
  await Bun.write(join(dir, "hello.ts"), 'console.log("hello");\n');
  const hb = Bun.spawnSync([process.execPath, "build", "--compile", join(dir, "hello.ts"), "--outfile", hello], { stdout: "ignore", stderr: "pipe" });
  if (hb.exitCode !== 0) throw new Error(`hello-world build failed: ${hb.stderr.toString().slice(-500)}`);
  const d = await startDaemon(dir, "cli");
  const times: CliTime[] = [];
  try {
    const env = { ...childEnv(), TERMD_SOCKET: d.socket };
    await d.client.call("session.create", { name: "s", command: ["cat"] });
    await d.client.call("session.input", { session: "s", text: "ready\n" });
    await d.client.call("session.wait", { session: "s", text: "ready" });
    const termd = join(ROOT, "dist/termd");
    const commands: [string, string[]][] = [
      ["--version", ["--version"]],
      ["ls", ["ls"]],
      ["info s", ["info", "s"]],
      ["send s --text x", ["send", "s", "--text", "x"]],
      ["screen s", ["screen", "s"]],
      ["wait s --text ready", ["wait", "s", "--text", "ready"]],
    ];
    for (const [what, args] of commands) times.push(timeProcess(`termd ${what}`, [termd, ...args], o.cliRuns, env));
    if (has("node")) {
      times.push(timeProcess("node dist/termd-client.mjs ls", ["node", join(ROOT, "dist/termd-client.mjs"), "ls"], o.cliRuns, env));
      await Bun.write(join(dir, "hello.mjs"), 'console.log("hello");\n');
      times.push(timeProcess("node hello-world", ["node", join(dir, "hello.mjs")], o.cliRuns, env));
    }
    if (o.tmux) {
      const t = new Tmux();
      try {
        t.ok("new-session", "-d", "-s", "s", "cat");
        times.push(timeProcess("tmux ls", ["tmux", "-L", t.name, "ls"], o.cliRuns, env));
      } finally {
        t.kill();
      }
    }
    times.push(timeProcess("compiled Bun hello-world", [hello], o.cliRuns, env));
  } finally {
    await d.stop();
  }
  return times;
}

async function reportCli(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const times = await cliTimes(o, dir);
  const rows: string[][] = [["", "median ms", "p90 ms", "CPU ms", "target"]];
  for (const t of times) {
    const target = t.what.startsWith("termd ") ? "≤ 10" : t.what.startsWith("node dist") ? "≤ 40" : "";
    rows.push([t.what, f1(median(t.ms)), f1(percentile(t.ms, 0.9)), f1(median(t.cpuMs)), target]);
  }
  console.log(`9. Command line: one call as a whole process, spawn to exit (${o.cliRuns} runs each; lower is better)`);
  console.log(table(rows) + "\n");
  const client = times.filter((t) => t.what.startsWith("termd ") && t.what !== "termd --version");
  const slowest = Math.max(...client.map((t) => median(t.ms)));
  verdicts.push(["every client command ≤ 10 ms (median, slowest)", `${f1(slowest)} ms`, verdict(slowest <= 10)]);
  const stub = times.find((t) => t.what.startsWith("node dist"));
  if (stub) verdicts.push(["Node stub ≤ 40 ms", `${f1(median(stub.ms))} ms`, verdict(median(stub.ms) <= 40)]);
}

// ---------------------------------------------------------------- 10. many sessions

interface Many {
  n: number;
  created: number;
  firstError: string;
  createMs: number;
  answered: number;
  readMs: number;
  rssBefore: number;
  rssAfter: number;
  fdsBefore: number;
  fdsAfter: number;
  fdLimit: string;
  stopMs: number;
  /** Programs still running once the server had exited. */
  left: number;
}

const MANY_WIDTH = 20;

/** The process's descriptor count once it has not changed for 1.5 s (at most 15 s). */
async function settledFdCount(pid: number): Promise<number> {
  let last = fdCount(pid);
  for (let since = performance.now(), end = since + 15_000; performance.now() < end && performance.now() - since < 1500; ) {
    await Bun.sleep(100);
    const now = fdCount(pid);
    if (now !== last) [last, since] = [now, performance.now()];
  }
  return last;
}

async function termdMany(dir: string, n: number): Promise<Many> {
  const d = await startDaemon(dir, `many${n}`, 65536);
  const pid = d.proc.pid;
  const c = d.client;
  await Bun.sleep(500);
  const rssBefore = rssBytes(pid);
  const fdsBefore = fdCount(pid);
  const ids: string[] = [];
  const pids: number[] = [];
  let firstError = "";
  const t0 = performance.now();
  await inPool(n, MANY_WIDTH, async () => {
    try {
      const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
      ids.push(info.id);
      if (info.pid !== null) pids.push(info.pid);
    } catch (err) {
      firstError ||= (err as Error).message;
    }
  });
  const createMs = performance.now() - t0;
  let answered = 0;
  const t1 = performance.now();
  await inPool(ids.length, MANY_WIDTH, async (i) => {
    try {
      await c.call("session.screen", { session: ids[i]! });
      answered++;
    } catch (err) {
      firstError ||= (err as Error).message;
    }
  });
  const readMs = performance.now() - t1;
  const rssAfter = rssBytes(pid);
  // Idle: a session's log and journal close after 1 s without output (append-file.ts).
  const fdsAfter = await settledFdCount(pid);
  const limit = fdLimit(pid);
  // As a container runtime or systemd stops it.
  const t2 = performance.now();
  d.proc.kill("SIGTERM");
  const killer = setTimeout(() => d.proc.kill("SIGKILL"), 120_000);
  await d.proc.exited;
  clearTimeout(killer);
  const stopMs = performance.now() - t2;
  const left = pids.filter(alive).length;
  await d.stop();
  return { n, created: ids.length, firstError, createMs, answered, readMs, rssBefore, rssAfter, fdsBefore, fdsAfter, fdLimit: limit, stopMs, left };
}

async function tmuxMany(n: number): Promise<Many> {
  const t = new Tmux();
  try {
    t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", "cat");
    const pid = t.serverPid();
    await Bun.sleep(500);
    const rssBefore = rssBytes(pid);
    const fdsBefore = fdCount(pid);
    let firstError = "";
    const t0 = performance.now();
    for (let i = 1; i < n; i += 50) {
      const args: string[] = [];
      for (let j = i; j < Math.min(n, i + 50); j++) args.push(...(args.length ? [";"] : []), "new-session", "-d", "-s", `s${j}`, "-x", "80", "-y", "24", "cat");
      const r = t.cmd(...args);
      if (r.code !== 0) firstError ||= r.stderr.trim();
    }
    const createMs = performance.now() - t0;
    const pids = t.ok("list-panes", "-a", "-F", "#{pane_pid}").split("\n").filter(Boolean).map(Number);
    let answered = 0;
    const t1 = performance.now();
    for (let i = 0; i < n; i += 100) {
      const args: string[] = [];
      for (let j = i; j < Math.min(n, i + 100); j++) args.push(...(args.length ? [";"] : []), "display-message", "-p", "-t", `s${j}`, "x", ";", "capture-pane", "-p", "-t", `s${j}`);
      answered += t.cmd(...args).stdout.split("\n").filter((l) => l === "x").length;
    }
    const readMs = performance.now() - t1;
    const rssAfter = rssBytes(pid);
    const fdsAfter = fdCount(pid);
    const limit = fdLimit(pid);
    const t2 = performance.now();
    process.kill(pid, "SIGTERM");
    await until("the tmux server to exit", 120_000, () => (alive(pid) ? undefined : true), 5);
    const stopMs = performance.now() - t2;
    const left = pids.filter(alive).length;
    return { n, created: pids.length, firstError, createMs, answered, readMs, rssBefore, rssAfter, fdsBefore, fdsAfter, fdLimit: limit, stopMs, left };
  } finally {
    t.kill();
  }
}

async function reportMany(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  for (const n of o.many) {
    const termd = await termdMany(dir, n);
    const tmux = o.tmux ? await tmuxMany(n) : null;
    const both = (get: (m: Many) => string) => [get(termd), tmux ? get(tmux) : "—"];
    const stopTarget = n <= 1000 ? 3 : 30;
    const perSession = (m: Many) => (m.created > 0 ? (m.rssAfter - m.rssBefore) / m.created : NaN);
    const fdsPer = (m: Many) => (m.created > 0 ? (m.fdsAfter - m.fdsBefore) / m.created : NaN);
    console.log(`10. Many sessions: ${n} \`cat\` sessions, every screen read, then SIGTERM to the server`);
    console.log(
      table([
        ["", "termd", "tmux", "target"],
        ["created (time, s)", ...both((m) => `${m.created} (${f1(m.createMs / 1000)})`), `${n}`],
        ["screens read (time, s)", ...both((m) => `${m.answered} (${f1(m.readMs / 1000)})`), ""],
        ["RSS, MB (per session)", ...both((m) => `${mb(m.rssAfter)} (${f2(perSession(m) / MB)})`), ""],
        ["descriptors per session (open-file limit)", ...both((m) => `${f1(fdsPer(m))} (${m.fdLimit})`), "≤ 2"],
        ["SIGTERM until the server exited, s", ...both((m) => f2(m.stopMs / 1000)), `≤ ${stopTarget}`],
        ["programs still running after", ...both((m) => String(m.left)), "0"],
      ]),
    );
    for (const [who, m] of [["termd", termd], ["tmux", tmux]] as const) if (m?.firstError) console.log(`  ${who}: ${m.n - m.created} not created; the first error: ${m.firstError}`);
    console.log();
    verdicts.push([`${n} sessions: all created`, `${termd.created}/${n}`, verdict(termd.created === n)]);
    verdicts.push([`${n} sessions stopped in ≤ ${stopTarget} s, none left`, `${f2(termd.stopMs / 1000)} s, ${termd.left} left`, verdict(termd.stopMs <= stopTarget * 1000 && termd.left === 0)]);
    verdicts.push([`${n} sessions: ≤ 2 descriptors each`, f1(fdsPer(termd)), verdict(fdsPer(termd) <= 2)]);
  }
}

// ---------------------------------------------------------------- report

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const mb = (bytes: number) => f1(bytes / MB);
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

function table(rows: string[][], indent = "  "): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => indent + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("   ").trimEnd()).join("\n");
}

/** vim with syntax on paging through the sources at 50x160; returns the session's raw output. */
async function recordVim(c: Client, dir: string): Promise<Uint8Array> {
  const file = join(dir, "sources.ts");
  const sources = new Bun.Glob("src/**/*.ts").scanSync({ cwd: ROOT });
  await Bun.write(file, [...sources].sort().map((f) => readFileSync(join(ROOT, f), "utf8")).join("\n"));
  const name = `vim${process.pid}`;
  await c.call("session.create", { name, command: ["vim", "-u", "NONE", "-N", "-c", "syntax on", "-c", "set nowrap", file], rows: 50, cols: 160 });
  let screen = await c.call("session.wait", { session: name, text: "sources.ts" });
  for (let i = 0; i < 150; i++) {
    await c.call("session.input", { session: name, keys: ["PageDown"] });
    screen = await c.call("session.wait", { session: name, changed_from: screen.screen.hash, timeout_ms: 5000 });
  }
  await c.call("session.input", { session: name, text: ":qa!\r" });
  await c.call("session.wait", { session: name, exit: true });
  const parts: Uint8Array[] = [];
  for (let from = 0; ; ) {
    const r = await c.call("session.output", { session: name, from });
    if (r.to === from) break;
    parts.push(Buffer.from(r.base64, "base64"));
    from = r.to;
  }
  return Buffer.concat(parts);
}

function repeatTo(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(size / bytes.length) * bytes.length);
  for (let at = 0; at < out.length; at += bytes.length) out.set(bytes, at);
  return out;
}

const NONE = "—";

/** p50 / p99 / max, ms. */
const spread = (xs: number[]) => `${f2(percentile(xs, 0.5))} / ${f2(percentile(xs, 0.99))} / ${f2(Math.max(...xs))}`;

/** Runs one section; a failure is reported as such and the sections after it still run. */
async function section(name: string, verdicts: string[][], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    console.log(`${name}: failed: ${(err as Error).message}\n`);
    verdicts.push([name, "failed", "MISS"]);
  }
}

async function reportIsolation(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const redraw = redrawProgram(dir);
  const phases: { label: string; short: string; flood?: string[] }[] = [
    { label: "no flood", short: "idle" },
    { label: "plain-text flood (`yes`, 80-column lines)", short: "text", flood: ["yes", FLOOD_LINE] },
    { label: "colour-redraw flood (24x80, random SGR)", short: "colour", flood: [...redraw, "0"] },
  ];
  const termd: Isolated[] = [];
  const d = await startDaemon(dir, "isolation");
  try {
    // Warm-up: a fresh daemon's first requests pay for compiling its code, not what this compares.
    await termdKeys(d.client, 30, false);
    for (const p of phases) {
      termd.push(await termdIsolated(d.client, o.keys, p.flood));
      process.stderr.write(`  isolation: termd, ${p.short} done\n`);
    }
  } finally {
    await d.stop();
  }
  const tmux: Isolated[] = [];
  if (o.tmux) {
    const t = new Tmux();
    try {
      for (const [i, p] of phases.entries()) {
        tmux.push(await tmuxIsolated(t, String(i), o.keys, p.flood));
        process.stderr.write(`  isolation: tmux, ${p.short} done\n`);
      }
    } finally {
      t.kill();
    }
  }
  const rows: string[][] = [["", "termd", "tmux", "target"]];
  phases.forEach((p, i) => {
    const target = p.flood ? "p99 ≤ tmux's (aim < 2 ms)" : "p50 ≤ 0.1 ms";
    rows.push([p.label, spread(termd[i]!.times), tmux[i] ? spread(tmux[i]!.times) : NONE, target]);
    if (p.flood) rows.push(["  the flood's own write rate meanwhile (MB/s)", f1(termd[i]!.floodMbs), tmux[i] ? f1(tmux[i]!.floodMbs) : NONE, ""]);
  });
  console.log(`5. Isolation: a quiet \`cat\` session's key round trip while another session of the same server floods`);
  console.log(`   (ms, p50 / p99 / max of ${o.keys} keys; termd: input, then wait(changed); tmux: control mode)`);
  console.log(table(rows));
  // A server that stops reading a flood makes the keys' figure meaningless: say so.
  phases.forEach((p, i) => {
    for (const [who, r] of [["termd", termd[i]], ["tmux", tmux[i]]] as const) {
      if (p.flood && r && r.floodMbs < 1) console.log(`  ${who}: the ${p.short} flood hardly wrote meanwhile (${f2(r.floodMbs)} MB/s): it was held back, not measured against`);
    }
  });
  console.log();
  const idle = percentile(termd[0]!.times, 0.5);
  verdicts.push(["isolation: idle key p50 ≤ 0.1 ms", `${f2(idle)} ms`, verdict(idle <= 0.1)]);
  phases.forEach((p, i) => {
    if (!p.flood) return;
    const p99 = percentile(termd[i]!.times, 0.99);
    if (tmux[i]) {
      const theirs = percentile(tmux[i]!.times, 0.99);
      verdicts.push([`isolation: key p99 in a ${p.short} flood ≤ tmux's`, `${f2(p99)} vs ${f2(theirs)} ms`, verdict(p99 <= theirs)]);
    }
    verdicts.push([`isolation: key p99 in a ${p.short} flood < 2 ms (aim)`, `${f2(p99)} ms`, verdict(p99 < 2)]);
  });
}

async function reportRedraw(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const redraw = redrawProgram(dir);
  const secs = o.redrawSeconds;
  const termd = await termdRedraw(dir, redraw, secs);
  const tmux = o.tmux ? await tmuxRedraw(dir, redraw, secs) : undefined;
  const both = (f: (r: Redraw) => string) => [f(termd), tmux ? f(tmux) : NONE];
  const rows: string[][] = [
    ["", "termd", "tmux", "target"],
    ["the program wrote, MB (MB/s)", ...both((r) => `${mb(r.bytes)} (${f1(r.bytes / MB / secs)})`), ""],
    ["RSS before, MB", ...both((r) => mb(r.before)), ""],
    ["peak RSS growth during the flood, MB", ...both((r) => mb(r.peak - r.before)), "< 100 MB"],
    ["RSS growth 1 s after it, MB", ...both((r) => mb(r.after - r.before)), ""],
    ["output not on the screen when the wait saw the exit, KB", ...both((r) => (Number.isNaN(r.behind) ? NONE : f1(r.behind / 1024))), ""],
    ["screen current after the program's last byte, ms", ...both((r) => f1(r.lagMs)), `≤ ${SCREEN_CURRENT_MS} ms`],
  ];
  console.log(`6. Redraw: the whole 24x80 screen in random 256-colour SGR for ${secs} s, as fast as the server takes it`);
  console.log(table(rows));
  for (const note of termd.notes) console.log(`  termd: ${note}`);
  if (tmux) console.log(`  (tmux's screen is polled with spawned capture-pane: its figure includes a few ms of spawning)`);
  console.log();
  const growth = termd.peak - termd.before;
  verdicts.push(["redraw: RSS growth < 100 MB", `${mb(growth)} MB`, verdict(growth < 100 * MB)]);
  verdicts.push([`redraw: screen current ≤ ${SCREEN_CURRENT_MS} ms after the last byte`, `${f1(termd.lagMs)} ms`, verdict(termd.lagMs <= SCREEN_CURRENT_MS && termd.notes.length === 0)]);
}

async function reportWaits(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const w = await termdWaits(dir, 5000, 10, o.keys);
  const p5099 = (xs: number[]) => `${f2(percentile(xs, 0.5))} / ${f2(percentile(xs, 0.99))}`;
  const rows: string[][] = [
    ["", "termd", "tmux", "target"],
    ["another session's key round trip, p50 / p99 ms: chatty session alone", p5099(w.keys.alone), NONE, ""],
    [`  with ${w.n} waits pending on the chatty session`, p5099(w.keys.pending), NONE, "p50 < 1 ms"],
    ["  after their connections closed", p5099(w.keys.after), NONE, ""],
    ["daemon CPU, % of a core: alone / pending / after", `${f1(w.cpu.alone)} / ${f1(w.cpu.pending)} / ${f1(w.cpu.after)}`, NONE, ""],
    ["daemon RSS, MB: alone / pending / after", `${mb(w.rss.alone)} / ${mb(w.rss.pending)} / ${mb(w.rss.after)}`, NONE, ""],
    [`${w.n} waits over ${w.connections} connections sent and taken in, ms`, f1(w.sendMs), NONE, ""],
    ["waits answered before their connections closed", String(w.early), NONE, "0"],
    ["descriptors released after the close, ms", Number.isNaN(w.releaseMs) ? "not in 10 s" : f1(w.releaseMs), NONE, ""],
  ];
  console.log(`7. Pending waits: ${w.n} session.wait calls for text that never shows, on a session printing ~50 lines/s (${o.keys} keys each)`);
  console.log(table(rows) + "\n");
  const p50 = percentile(w.keys.pending, 0.5);
  verdicts.push([`waits: another session's key p50 < 1 ms with ${w.n} pending`, `${f2(p50)} ms`, verdict(p50 < 1)]);
  verdicts.push(["waits: none answered early, all released on close", `${w.early} early`, verdict(w.early === 0 && !Number.isNaN(w.releaseMs))]);
}

async function reportIdle(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const n = o.idleSessions;
  const termd = await termdIdle(dir, n);
  const tmux = o.tmux ? await tmuxIdle(dir, n) : undefined;
  const both = (f: (r: Idle) => string) => [f(termd), tmux ? f(tmux) : NONE];
  const perSession = (r: Idle) => (r.after - r.before) / r.added;
  const rows: string[][] = [
    ["", "termd", "tmux", "target"],
    ["sessions created (at their prompt)", ...both((r) => `${r.created} (${r.prompted})`), `all ${n}`],
    ["time to create them, s (ms per session)", ...both((r) => `${f1(r.createMs / 1000)} (${f1(r.createMs / n)})`), ""],
    ["screen reads answered with the prompt", ...both((r) => `${r.answered}/${r.created}`), "each"],
    ["time to read every screen, ms", ...both((r) => f1(r.readMs)), ""],
    ["RSS before → after, MB", ...both((r) => `${mb(r.before)} → ${mb(r.after)}`), ""],
    ["termd before its screens were parked: RSS, MB (per session)", `${mb(termd.active!)} (${f2((termd.active! - termd.before) / termd.added / MB)})`, NONE, ""],
    ["termd: time until every screen was parked, s", f1(termd.parkMs! / 1000), NONE, ""],
    ["RSS growth per session, MB", ...both((r) => f2(perSession(r) / MB)), "≤ 0.15 MB"],
    ["file descriptors per session (open-file limit)", ...both((r) => `${f1((r.fdsAfter - r.fdsBefore) / r.added)} (${r.fdLimit})`), ""],
  ];
  console.log(`8. Idle sessions: ${n} \`bash --norc --noprofile\` sessions, then a screen read of each (termd: ${IDLE_WIDTH} at a time; tmux: ${tmux?.baseline ?? "—"} before)`);
  console.log(table(rows));
  for (const [who, r] of [["termd", termd], ["tmux", tmux]] as const) {
    if (r?.firstError) console.log(`  ${who}: ${r.failures} failed; the first: ${r.firstError}`);
  }
  console.log();
  const all = termd.created === n && termd.prompted === n && termd.answered === n;
  verdicts.push([`idle sessions: all ${n} created, each answers a screen read`, `${termd.answered}/${n}`, verdict(all)]);
  verdicts.push(["idle sessions: ≤ 0.15 MB RSS per session", `${f2(perSession(termd) / MB)} MB`, verdict(perSession(termd) <= 0.15 * MB)]);
}

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2));
  for (const p of ["cat", "script", "bash", "vim"]) if (!has(p)) throw new Error(`${p} is not installed; the benchmark needs it`);
  if ((o.only.has("isolation") || o.only.has("redraw")) && !has("python3")) throw new Error("python3 is not installed; the redraw flood needs it");
  let tmuxVersion = "";
  if (o.tmux && !has("tmux")) {
    console.log("tmux is not installed (apt-get install tmux): the tmux column is left out.\n");
    o.tmux = false;
  }
  if (o.tmux) tmuxVersion = run(["tmux", "-V"]).stdout.trim();

  const dir = mkdtempSync(join(tmpdir(), "termd-bench-"));
  onCleanup(() => {
    // A daemon that just stopped may still be closing files in there: retry a few times.
    for (let i = 0; i < 5; i++) {
      try {
        return rmSync(dir, { recursive: true, force: true });
      } catch {
        Bun.sleepSync(50);
      }
    }
  });

  const load = () => loadavg().map(f2).join(" ");
  console.log(`termd bench — ${cpus().length} CPUs, bun ${Bun.version}${o.tmux ? `, ${tmuxVersion}` : ", no tmux"}, load average ${load()}`);
  console.log(`(figures are noisy when other work runs on the machine)\n`);

  const verdicts: string[][] = [];

  if (o.only.has("throughput") || o.only.has("keys")) {
    const d = await startDaemon(dir, "bench");
    try {
      if (o.only.has("throughput")) {
        const file = join(dir, "text.txt");
        const sentinel = `TERMD-BENCH-LAST-LINE-${Math.random().toString(36).slice(2, 10)}`;
        const bytes = writeTextFile(file, o.sizeMb * MB, sentinel);
        const size = bytes / MB;
        const results = { termd: [] as number[], tmux: [] as number[], raw: [] as number[] };
        for (let i = 0; i < o.runs; i++) {
          results.raw.push(size / ((await rawThroughput(file)) / 1000));
          if (o.tmux) results.tmux.push(size / ((await tmuxThroughput(file, sentinel)) / 1000));
          results.termd.push(size / ((await termdThroughput(d.client, file, sentinel)) / 1000));
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
        if (o.tmux) verdicts.push(["throughput ≥ 2× tmux", `${f2(med.termd / med.tmux)}×`, verdict(med.termd >= 2 * med.tmux)]);
        rmSync(file, { force: true });
      }

      if (o.only.has("keys")) {
        const pipelined = await termdKeys(d.client, o.keys, true);
        const sequential = await termdKeys(d.client, o.keys, false);
        const rows: string[][] = [["", "p50 ms", "p99 ms", "n"]];
        rows.push(["termd: input ‖ wait(changed), pipelined", f2(percentile(pipelined, 0.5)), f2(percentile(pipelined, 0.99)), String(pipelined.length)]);
        rows.push(["termd: input, then wait(changed)", f2(percentile(sequential, 0.5)), f2(percentile(sequential, 0.99)), String(sequential.length)]);
        if (o.tmux) {
          const spawned = await tmuxKeysSpawned(o.tmuxKeys);
          rows.push(["tmux: spawned send-keys + capture-pane", f2(percentile(spawned, 0.5)), f2(percentile(spawned, 0.99)), String(spawned.length)]);
          try {
            const control = await tmuxKeysControl(o.keys);
            rows.push(["tmux: control mode (-C) send-keys → %output", f2(percentile(control, 0.5)), f2(percentile(control, 0.99)), String(control.length)]);
          } catch (err) {
            rows.push(["tmux: control mode (-C)", "n/a", "n/a", (err as Error).message.slice(0, 40)]);
          }
        }
        console.log(`2. Key round trip: one character into \`cat\` until the screen shows the tty's echo (lower is better)`);
        console.log(table(rows) + "\n");
        // Judged on the slower of the two ways a client can do it.
        const p50 = Math.max(percentile(pipelined, 0.5), percentile(sequential, 0.5));
        verdicts.push(["key round trip p50 < 0.5 ms", `${f2(p50)} ms`, verdict(p50 < 0.5)]);
      }
    } finally {
      await d.stop();
    }
  }

  if (o.only.has("memory")) {
    const n = o.sessions;
    const t = await termdMemory(dir, n);
    const perT = (t.after - t.before) / n;
    const rows: string[][] = [["", "before MB", "after MB", "per session MB"]];
    rows.push(["termd daemon (fresh, no sessions before)", mb(t.before), mb(t.after), f2(perT / MB)]);
    if (o.tmux) {
      const x = await tmuxMemory(dir, n);
      const added = x.baseline === "empty server" ? n : n - 1;
      rows.push([`tmux server (${x.baseline} before)`, mb(x.before), mb(x.after), f2((x.after - x.before) / added / MB)]);
    }
    console.log(`3. Idle memory: RSS with ${n} \`bash --norc --noprofile\` sessions at their prompt (children not counted)`);
    console.log(table(rows));
    console.log(`  (the ${n} bash children themselves: ${mb(t.children)} MB, the same under either)\n`);
    verdicts.push([`< 3 MB per idle session`, `${f2(perT / MB)} MB`, verdict(perT < 3 * MB)]);
  }

  if (o.only.has("parser")) {
    const d = await startDaemon(dir, "parser");
    let recorded: Uint8Array;
    try {
      recorded = await recordVim(d.client, dir);
    } finally {
      await d.stop();
    }
    const plainMbs = benchParser(vtPlainText(50 * 1000 * 1000), 3);
    const vim = repeatTo(recorded, 20 * 1000 * 1000);
    const vimMbs = benchParser(vim, 3);
    console.log(`4. VT parser, no-op performer (MB/s = 10^6 bytes/s, higher is better)`);
    console.log(
      table([
        ["", "MB/s", "target"],
        ["plain text, 50 MB", f1(plainMbs), "300"],
        [`vim with syntax on, recorded (${f1(recorded.length / 1e6)} MB, repeated to 20 MB)`, f1(vimMbs), "100"],
      ]) + "\n",
    );
    verdicts.push(["parser, plain text ≥ 300 MB/s", `${f1(plainMbs)} MB/s`, verdict(plainMbs >= 300)]);
    verdicts.push(["parser, vim stream ≥ 100 MB/s", `${f1(vimMbs)} MB/s`, verdict(vimMbs >= 100)]);
  }

  if (o.only.has("isolation")) await section("isolation", verdicts, () => reportIsolation(o, dir, verdicts));
  if (o.only.has("redraw")) await section("redraw", verdicts, () => reportRedraw(o, dir, verdicts));
  if (o.only.has("waits")) await section("waits", verdicts, () => reportWaits(o, dir, verdicts));
  if (o.only.has("idle1000")) await section("idle1000", verdicts, () => reportIdle(o, dir, verdicts));
  if (o.only.has("cli")) await section("cli", verdicts, () => reportCli(o, dir, verdicts));
  if (o.only.has("many")) await section("many", verdicts, () => reportMany(o, dir, verdicts));

  if (verdicts.length) {
    console.log("Targets");
    console.log(table(verdicts));
  }
  console.log(`\nload average at the end ${load()}`);
}

try {
  await main();
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
} finally {
  await cleanupAll();
}
