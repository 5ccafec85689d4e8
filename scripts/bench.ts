// termd benchmark: side-by-side figures against tmux and the raw PTY limit, measured in one run.
// A script, not a test:  node_modules/.bin/bun scripts/bench.ts [flags]
//
//   --quick          sanity check: 5 MB file, 1 run, 50 / 20 key round trips, 20 idle shells
//   --size MB        size of the text file `cat` writes (default 50)
//   --runs N         throughput runs per contender; the median is reported (default 3)
//   --keys N         key round trips through termd (default 300)
//   --tmux-keys N    key round trips through tmux (default 100)
//   --sessions N     idle shells for the memory figure (default 100)
//   --only LIST      comma-separated sections to run: throughput,keys,memory,parser (default all)
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
//
// Everything it starts (daemons, tmux servers, temp dirs) is removed on exit, also on error or ^C.
// The machine's load average is printed: other work on the machine makes the figures noisy.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { connect, type Client } from "../src/client/index.ts";
import { benchParser, plainText as vtPlainText } from "../src/vt/bench.ts";

const ROOT = join(import.meta.dir, "..");
const MB = 1024 * 1024;

// ---------------------------------------------------------------- flags

interface Options {
  sizeMb: number;
  runs: number;
  keys: number;
  tmuxKeys: number;
  sessions: number;
  only: Set<string>;
  tmux: boolean;
}

function parseFlags(argv: string[]): Options {
  const quick = argv.includes("--quick");
  const o: Options = {
    sizeMb: quick ? 5 : 50,
    runs: quick ? 1 : 3,
    keys: quick ? 50 : 300,
    tmuxKeys: quick ? 20 : 100,
    sessions: quick ? 20 : 100,
    only: new Set(["throughput", "keys", "memory", "parser"]),
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
      case "--only": {
        const list = (argv[++i] ?? "").split(",").filter(Boolean);
        for (const s of list) if (!["throughput", "keys", "memory", "parser"].includes(s)) throw new Error(`--only: unknown section ${s}`);
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

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>, pauseMs = 1): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(pauseMs);
  }
}

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

async function startDaemon(dir: string, label: string): Promise<Daemon> {
  const socket = join(dir, `${label}.sock`);
  const stateDir = join(dir, `${label}-state`);
  const proc = Bun.spawn(
    [process.execPath, join(ROOT, "src/cli/main.ts"), "daemon", "--socket", socket, "--state-dir", stateDir, "--stop-grace", "1000"],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: childEnv() },
  );
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
  let proc: Subprocess<"pipe", "pipe", "ignore"> | undefined;
  try {
    t.ok("new-session", "-d", "-s", "keys", "-x", "80", "-y", "24", "cat");
    await until("tmux cat to start", 5000, () => (t.ok("display-message", "-p", "-t", "keys", "#{pane_current_command}").trim() === "cat" ? true : undefined));
    proc = Bun.spawn(["tmux", "-L", t.name, "-C", "attach-session", "-t", "keys"], { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: childEnv() });
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
    const waitOutput = async (pred: (data: string) => boolean) => {
      for (;;) {
        const line = await nextLine();
        if (line.startsWith("%output ") && pred(line.slice(line.indexOf(" ", 8) + 1))) return;
      }
    };
    const send = (cmd: string) => {
      proc!.stdin.write(cmd + "\n");
      proc!.stdin.flush();
    };
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        send("send-keys -t keys C-u");
        await waitOutput((d) => d.includes("\\010") || d.includes("\\033") || d.includes("^U"));
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      send(`send-keys -t keys -l ${ch}`);
      await waitOutput((d) => d.includes(ch));
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    proc?.kill();
    t.kill();
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
    // A server with no session at all, kept alive by exit-empty off; falls back to one session.
    // tmux 3.3's new-session -e does not reach the pane's command here; env(1) execs bash.
    const shell = `env PS1=${sh(PROMPT)} HISTFILE=${sh(join(dir, "bash_history"))} bash --norc --noprofile`;
    let baseline = "empty server";
    let created = 0;
    const r = t.cmd("start-server", ";", "set-option", "-g", "exit-empty", "off");
    if (r.code !== 0 || t.cmd("list-sessions").stderr.includes("no server")) {
      baseline = "server with 1 session";
      t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", shell);
      created = 1;
    }
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

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2));
  for (const p of ["cat", "script", "bash", "vim"]) if (!has(p)) throw new Error(`${p} is not installed; the benchmark needs it`);
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
