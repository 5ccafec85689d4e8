// Small tools of the bench's sections: running programs, /proc readings, test files.
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { childEnv } from "../common/daemon-process.ts";
import { fdCount, prng, rssBytes } from "../common/measure.ts";

export function sh(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

export function run(cmd: string[]): { code: number; stdout: string; stderr: string } {
  const p = Bun.spawnSync(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: childEnv() });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

export function has(program: string): boolean {
  return Bun.which(program) !== null;
}

/** Bytes a process has written through system calls: a flood's own rate, whoever reads it. */
export function writtenBytes(pid: number): number {
  const m = /^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  if (!m) throw new Error(`no wchar for pid ${pid}`);
  return Number(m[1]);
}

let clockTicks = 0;

/** CPU seconds (user + system) in a /proc stat file: a process's (every thread) or one thread's. */
function statCpuSeconds(path: string): number {
  clockTicks ||= Number(run(["getconf", "CLK_TCK"]).stdout.trim()) || 100;
  const stat = readFileSync(path, "utf8");
  // After "pid (comm) ": field 3 (state) onwards; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** CPU seconds (user + system, every thread) a process has used. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds of each live thread of a process, summed by thread name (several share one: Bun's pool threads). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      out.set(name, (out.get(name) ?? 0) + statCpuSeconds(`/proc/${pid}/task/${tid}/stat`));
    } catch {} // the thread ended meanwhile
  }
  return out;
}

/** A process's CPU use over the next `ms`, in % of one core. */
export async function cpuShare(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await Bun.sleep(ms);
  return ((cpuSeconds(pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
}

/** The soft limit on open files a running process got. */
export function fdLimit(pid: number): string {
  return /^Max open files\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1] ?? "?";
}

/** Wall-clock milliseconds, sub-millisecond, comparable with another process's time.time(). */
export const wallMs = () => performance.timeOrigin + performance.now();

/** What `f` gave, and how long it took, ms. */
export async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const result = await f();
  return [result, performance.now() - t];
}

/**
 * The start of a many-sessions run (idle.ts, many.ts): the server's memory and descriptors after
 * half a second's quiet, then its sessions made and their screens read, each timed.
 */
export async function createAndRead<C, R>(pid: number, create: () => Promise<C>, read: () => Promise<R>) {
  await Bun.sleep(500);
  const rssBefore = rssBytes(pid);
  const fdsBefore = fdCount(pid);
  const [made, createMs] = await timed(create);
  const [got, readMs] = await timed(read);
  return { rssBefore, fdsBefore, made, createMs, read: got, readMs };
}

/**
 * Writes about `bytes` of varied printable lines (60-79 columns), then a unique last line.
 * `colour`: each word in a 256-colour SGR of its own, reset at the line's end (a coloured `ls` or
 * compiler output), the columns still 60-79.
 */
export function writeTextFile(path: string, bytes: number, sentinel: string, colour = false): number {
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
      let styled = line;
      while (line.length < target) {
        const r = rand();
        let w = r < 0.85 ? words[Math.floor(rand() * words.length)]! : String(Math.floor(rand() * 1e6));
        if (r < 0.1) w = w.toUpperCase();
        w = w.slice(0, target - line.length);
        line += w + " ";
        styled += colour ? `\x1b[38;5;${Math.floor(rand() * 256)}m${w} ` : w + " ";
      }
      chunk += colour ? `${styled.trimEnd()}\x1b[0m\n` : line.slice(0, target).trimEnd() + "\n";
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
