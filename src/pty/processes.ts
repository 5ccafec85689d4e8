// The processes of a session's terminal: every process whose session id is the program's pid
// (Bun.spawn with a terminal makes the program a session leader), so background jobs, `nohup`ed
// children and processes that changed their group are all found, and the terminal's foreground
// process group (what Ctrl-C reaches). The platform's process table (src/platform) answers.
import { processes, type ProcessSnapshot } from "../platform/index.ts";

/** How often the stops under way look for what their programs left behind. */
const LEFTOVER_POLL_MS = 20;

let shared: ProcessSnapshot | null = null;

/**
 * One scan of the process table, shared by every question asked in the same turn of the event
 * loop. Stopping N sessions at once then scans once, not N times: a scan reads every process, so
 * one per session made a shutdown grow with the square of the sessions.
 */
function snapshot(): ProcessSnapshot {
  if (!shared) {
    shared = processes.snapshot();
    setImmediate(() => (shared = null));
  }
  return shared;
}

/** Live (not zombie) processes of the terminal session `sid`, the leader first if it is alive. */
export function sessionMembers(sid: number): number[] {
  return snapshot().sessionMembers(sid);
}

interface Leftovers {
  sid: number;
  /** When whatever is left gets SIGKILL (performance.now()). */
  killAt: number;
  /** When to stop looking, whatever is left. */
  giveUpAt: number;
  done: () => void;
}

const watched = new Set<Leftovers>();
// biome-ignore lint/correctness/noUnusedVariables: read by the `??=` that arms it at most once
let sweepTimer: Timer | null = null;

/** One scan for every stop under way: each is done once its session is empty, or at its giveUpAt. */
function sweep(): void {
  const now = performance.now();
  const table = snapshot();
  for (const w of watched) {
    const left = table.sessionMembers(w.sid);
    if (left.length === 0 || now >= w.giveUpAt) {
      watched.delete(w);
      w.done();
    } else if (now >= w.killAt) {
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  }
  sweepTimer = watched.size > 0 ? setTimeout(sweep, LEFTOVER_POLL_MS) : null;
}

/**
 * Resolves once no process of terminal session `sid` is left: what is left at `killAt` gets
 * SIGKILL, and at `giveUpAt` it resolves whatever is left. Every stop under way shares one scan.
 */
export function sessionEmptied(sid: number, killAt: number, giveUpAt: number): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  watched.add({ sid, killAt, giveUpAt, done: resolve });
  // The first look comes a moment later, so programs that end together are looked at together.
  sweepTimer ??= setTimeout(sweep, 1);
  return promise;
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

/** Process `pid`'s command line, in a form only compared for equality; null when unknown. */
export function commandLine(pid: number): string | null {
  return processes.commandLine(pid);
}

/** The terminal's foreground process group, as the session leader `pid` sees it; null when unknown. */
export function foregroundGroup(pid: number | null): number | null {
  return pid === null ? null : processes.foregroundGroup(pid);
}

/** When process `pid` started: with the pid, who it is. */
export function startTime(pid: number): string | null {
  return processes.startTime(pid);
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

/**
 * Reaps child `pid` once it ends, when nothing else will (its pty worker died with Bun's wait for
 * it). The libc binding it needs is loaded only then.
 */
export function reapChildLater(pid: number): void {
  import("../platform/reaper.ts")
    .then(({ reapChild }) => reapChild(pid))
    .catch((err: Error) => err.message)
    .then((cannot) => cannot && console.error(`termd: process ${pid} will stay a zombie: ${cannot}`));
}
