// The processes of a session's terminal, read from Linux's /proc: every process whose session id
// is the program's pid (Bun.spawn with a terminal makes the program a session leader), so
// background jobs, `nohup`ed children and processes that changed their group are all found, and
// the terminal's foreground process group (what Ctrl-C reaches). Elsewhere only the program itself.
import { readdirSync, readFileSync } from "node:fs";

/** Fields of /proc/PID/stat after "pid (comm) ": state is [0], pgrp [2], session [3], tpgid [5]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Live (not zombie) processes of the terminal session `sid`, the leader first if it is alive. */
export function sessionMembers(sid: number): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [sid];
  }
  const out: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const f = statFields(pid);
    if (f && Number(f[3]) === sid && f[0] !== "Z") out.push(pid);
  }
  return out.sort((a, b) => (a === sid ? -1 : b === sid ? 1 : a - b));
}

/** Sends `signal` to every live process of session `sid`; returns how many it reached. */
export function signalSession(sid: number, signal: string): number {
  let n = 0;
  for (const pid of sessionMembers(sid)) {
    try {
      process.kill(pid, signal as NodeJS.Signals);
      n++;
    } catch {}
  }
  return n;
}

/** Process `pid`'s arguments as /proc has them (NUL after each); null when unknown. */
export function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return null;
  }
}

/** The terminal's foreground process group, as the session leader `pid` sees it; null when unknown. */
export function foregroundGroup(pid: number | null): number | null {
  if (pid === null) return null;
  const f = statFields(pid);
  const tpgid = f ? Number(f[5]) : NaN;
  return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : null;
}

/** When process `pid` started (clock ticks since boot, /proc's field 22): with the pid, who it is. */
export function startTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/**
 * SIGKILL to what a session an earlier daemon ran left behind: the processes of terminal session
 * `sid`. When a process `sid` exists it must be that session's leader, by its start time, or the
 * pid was reused and nothing is touched; when none does, a process in session `sid` can only be
 * a leftover of it (a new session of that number would have its leader alive). Returns how many.
 */
export function reapLeftovers(sid: number, leaderStart: string | null): number {
  const leader = startTime(sid);
  if (leader !== null && leader !== leaderStart) return 0;
  return signalSession(sid, "SIGKILL");
}
