// Small tools of the bench's sections: running programs, /proc readings, test files.
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { childEnv } from "../common/daemon-process.ts";
import { prng } from "../common/measure.ts";

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

/** CPU seconds (user + system, every thread) a process has used. */
export function cpuSeconds(pid: number): number {
  clockTicks ||= Number(run(["getconf", "CLK_TCK"]).stdout.trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // After "pid (comm) ": field 3 (state) onwards; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
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

/** Writes about `bytes` of varied printable lines (60-79 columns), then a unique last line. */
export function writeTextFile(path: string, bytes: number, sentinel: string): number {
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
