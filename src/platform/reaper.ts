// A container's PID 1 inherits every orphan: a process whose parent died is re-parented to it, and
// when it ends it stays a zombie (holding its pid) until PID 1 waits for it. Bun waits only for
// the children it spawned, so the daemon, run as PID 1, reaps the others itself, as tini does.
// Linux only (containers are): Bun holds a pidfd for each child it waits for, so a zombie child
// without one is an orphan; waitpid comes from libc through bun:ffi.
import { dlopen, FFIType } from "bun:ffi";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { libcCandidates } from "./libc.ts";
import type { Timers } from "./timers.ts";

const WNOHANG = 1;
/** How often the daemon looks for orphans that ended; a zombie costs only its pid meanwhile. */
const SWEEP_MS = 1000;

type Waitpid = (pid: number) => number;

let loaded: Waitpid | string | undefined;

function loadWaitpid(): Waitpid | string {
  loaded ??= bindWaitpid();
  return loaded;
}

function bindWaitpid(): Waitpid | string {
  const errors: string[] = [];
  for (const name of libcCandidates()) {
    try {
      const lib = dlopen(name, { waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 } });
      return (pid) => lib.symbols.waitpid(pid, null, WNOHANG);
    } catch (err) {
      errors.push(`${name}: ${(err as Error).message}`);
    }
  }
  return `no libc to call waitpid from (${errors.join("; ")})`;
}

/** The children Bun waits for itself: those it holds a pidfd for. */
function childrenBunWaitsFor(): Set<number> {
  const out = new Set<number>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== "anon_inode:[pidfd]") continue;
      const pid = /^Pid:\s*(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (pid) out.add(Number(pid[1]));
    } catch {}
  }
  return out;
}

/** This process's zombie children: every thread's children (one file each), then their state. */
function zombieChildren(): number[] {
  const out: number[] = [];
  for (const tid of readdirSync("/proc/self/task")) {
    let children: string;
    try {
      children = readFileSync(`/proc/self/task/${tid}/children`, "utf8");
    } catch {
      continue;
    }
    for (const c of children.split(" ")) {
      const pid = Number(c);
      if (!pid) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (stat[stat.lastIndexOf(")") + 2] === "Z") out.push(pid);
      } catch {}
    }
  }
  return out;
}

/**
 * Reaps, every SWEEP_MS, the zombie children Bun does not wait for, until `timers` (the daemon's)
 * close. A zombie must be seen without a pidfd on two sweeps: a child Bun has just spawned may not
 * have its pidfd yet. Returns why it cannot run here, if it cannot.
 */
export function startOrphanReaper(timers: Timers, onReaped?: (pid: number) => void): string | undefined {
  if (process.platform !== "linux") return "reaping orphans is implemented for Linux only";
  try {
    readdirSync("/proc/self/task");
  } catch {
    return "no /proc to find orphans in";
  }
  const waitpid = loadWaitpid();
  if (typeof waitpid === "string") return waitpid;
  let suspects = new Set<number>();
  const sweep = () => {
    const zombies = zombieChildren();
    if (zombies.length === 0) return void (suspects = new Set());
    const bunWaits = childrenBunWaitsFor();
    const next = new Set<number>();
    for (const pid of zombies) {
      if (bunWaits.has(pid)) continue;
      if (!suspects.has(pid)) next.add(pid);
      else if (waitpid(pid) === pid) onReaped?.(pid);
    }
    suspects = next;
  };
  timers.every(SWEEP_MS, sweep);
}

/** The first and the longest pause between looks for a child that has not ended yet. */
const CHILD_FIRST_LOOK_MS = 10;
const CHILD_LONGEST_PAUSE_MS = 1000;

/**
 * Reaps child `pid`, which nothing else waits for (Bun's wait for it went with the worker thread
 * that spawned it): looks until it has ended, more and more rarely, and stops once it is reaped or
 * is no child of this process (reaped by the orphan reaper). Returns why it cannot, where it cannot.
 */
export function reapChild(pid: number): string | undefined {
  const waitpid = loadWaitpid();
  if (typeof waitpid === "string") return waitpid;
  const look = (pause: number) => {
    if (waitpid(pid) !== 0) return;
    setTimeout(() => look(Math.min(2 * pause, CHILD_LONGEST_PAUSE_MS)), pause).unref();
  };
  look(CHILD_FIRST_LOOK_MS);
}
