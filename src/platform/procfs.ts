// The process table from Linux's /proc: one file read per process, no child processes.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { ProcessSnapshot, ProcessTable } from "./process-table.ts";

/** Fields of /proc/PID/stat after "pid (comm) ": state [0], ppid [1], pgrp [2], session [3], tpgid [5], starttime [19]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Every process's stat fields, with its pid. */
function* everyProcess(): Generator<[number, string[]]> {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const f = statFields(pid);
    if (f) yield [pid, f];
  }
}

export const procfs: ProcessTable = {
  name: "procfs",

  sessionMembers(sid) {
    return this.snapshot().sessionMembers(sid);
  },

  snapshot(): ProcessSnapshot {
    const bySession = new Map<number, number[]>();
    for (const [pid, f] of everyProcess()) {
      if (f[0] === "Z") continue;
      const sid = Number(f[3]);
      const members = bySession.get(sid);
      if (members) members.push(pid);
      else bySession.set(sid, [pid]);
    }
    return {
      sessionMembers: (sid) => [...(bySession.get(sid) ?? [])].sort((a, b) => (a === sid ? -1 : b === sid ? 1 : a - b)),
    };
  },

  foregroundGroup(pid) {
    const tpgid = Number(statFields(pid)?.[5]);
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : null;
  },

  commandLine(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "latin1");
    } catch {
      return null;
    }
  },

  startTime(pid) {
    // Clock ticks since boot.
    return statFields(pid)?.[19] ?? null;
  },

  isZombie(pid) {
    const f = statFields(pid);
    return f ? f[0] === "Z" : null;
  },

  zombieChildren(parent) {
    const out: number[] = [];
    for (const [pid, f] of everyProcess()) if (f[0] === "Z" && Number(f[1]) === parent) out.push(pid);
    return out;
  },

  terminalOf(pid) {
    for (const fd of [0, 1, 2]) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith("/dev/pts/") || target.startsWith("/dev/tty")) return target;
      } catch {}
    }
    return null;
  },

  describeFd(fd) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return null;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (!inode) return { kind: "other", what: target };
    try {
      // "Num RefCount Protocol Flags Type St Inode Path": Unix sockets only, the path last when bound.
      for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f[6] === inode) return { kind: "unix", path: f[7] ?? null };
      }
    } catch {
      return null;
    }
    return { kind: "other", what: "a socket that is not a Unix socket" };
  },

  openFds() {
    try {
      return readdirSync("/proc/self/fd").length;
    } catch {
      return null;
    }
  },
};
