// The process table from ps(1) and lsof(8), for systems without Linux's /proc (macOS). Each
// question runs ps once, synchronously, so it costs a few milliseconds where procfs costs
// microseconds; the questions are asked when signalling or stopping a session, never per byte.
// The keywords used (pid ppid pgid sess tpgid stat tty lstart) are in both procps and BSD ps.
// On Linux `sess` is the session id; on BSD and macOS it identifies the session by another number,
// shared by its members, so a session is matched by the leader's `sess` as well as by its pid.
import type { ProcessSnapshot, ProcessTable } from "./process-table.ts";

interface Row {
  pid: number;
  ppid: number;
  sess: string;
  tpgid: number;
  zombie: boolean;
  tty: string;
}

function ps(args: string[]): string {
  try {
    const r = Bun.spawnSync(["ps", ...args], { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: { ...process.env, LC_ALL: "C" } });
    return r.stdout.toString();
  } catch {
    return "";
  }
}

const FIELDS = ["pid=", "ppid=", "sess=", "tpgid=", "stat=", "tty="].join(",");

function rows(select: string[]): Row[] {
  const out: Row[] = [];
  for (const line of ps([...select, "-o", FIELDS]).split("\n")) {
    const [pid, ppid, sess, tpgid, stat, tty] = line.trim().split(/\s+/);
    if (tty === undefined || !/^\d+$/.test(pid!)) continue;
    out.push({ pid: Number(pid), ppid: Number(ppid), sess: sess!, tpgid: Number(tpgid), zombie: stat!.startsWith("Z"), tty });
  }
  return out;
}

function row(pid: number): Row | null {
  return rows(["-p", String(pid)]).find((r) => r.pid === pid) ?? null;
}

export const psTable: ProcessTable = {
  name: "ps",

  sessionMembers(sid) {
    return this.snapshot().sessionMembers(sid);
  },

  snapshot(): ProcessSnapshot {
    const all = rows(["-A"]);
    const byPid = new Map(all.map((r) => [r.pid, r]));
    return {
      sessionMembers(sid) {
        const leader = byPid.get(sid);
        // A `sess` of 0 is what a system that hides it shows for everyone: it tells nothing.
        const leaderSess = leader && leader.sess !== "0" ? leader.sess : null;
        const members = all
          .filter((r) => !r.zombie && (r.sess === String(sid) || (leaderSess !== null && r.sess === leaderSess)))
          .map((r) => r.pid);
        return members.sort((a, b) => (a === sid ? -1 : b === sid ? 1 : a - b));
      },
    };
  },

  foregroundGroup(pid) {
    const tpgid = row(pid)?.tpgid ?? NaN;
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : null;
  },

  commandLine(pid) {
    const text = ps(["-p", String(pid), "-o", "args="]).trim();
    return text === "" ? null : text;
  },

  startTime(pid) {
    const text = ps(["-p", String(pid), "-o", "lstart="]).trim();
    return text === "" ? null : `lstart ${text}`;
  },

  isZombie(pid) {
    const r = row(pid);
    return r ? r.zombie : null;
  },

  zombieChildren(parent) {
    return rows(["-A"])
      .filter((r) => r.zombie && r.ppid === parent)
      .map((r) => r.pid);
  },

  terminalOf(pid) {
    const tty = row(pid)?.tty;
    // "?" (procps) and "??" (BSD): no controlling terminal.
    if (!tty || tty.startsWith("?") || tty === "-") return null;
    return tty.startsWith("/dev/") ? tty : `/dev/${tty}`;
  },

  describeFd(fd) {
    // lsof's field output: `t` the type (unix, IPv4, REG…), `n` the name ("/path type=STREAM" for a Unix socket).
    const r = Bun.spawnSync(["lsof", "-n", "-P", "-a", "-p", String(process.pid), "-d", String(fd), "-F", "tn"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
    });
    const lines = r.stdout.toString().split("\n");
    const type = lines.find((l) => l.startsWith("t"))?.slice(1);
    if (type === undefined) return null;
    if (type !== "unix") return { kind: "other", what: type };
    const name = lines
      .find((l) => l.startsWith("n"))
      ?.slice(1)
      .replace(/ type=\w+$/, "");
    return { kind: "unix", path: name?.startsWith("/") ? name : null };
  },

  openFds() {
    // lsof lists one `f` line per descriptor in its field output; cwd, txt and mem entries are not descriptors.
    try {
      const r = Bun.spawnSync(["lsof", "-n", "-P", "-p", String(process.pid), "-F", "f"], {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
      });
      if (!r.success) return null;
      return r.stdout
        .toString()
        .split("\n")
        .filter((l) => /^f\d+$/.test(l)).length;
    } catch {
      return null;
    }
  },
};
