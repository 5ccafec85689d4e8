// The processes of a session's terminal: every process whose session id is the program's pid
// (Bun.spawn with a terminal makes the program a session leader), so background jobs, `nohup`ed
// children and processes that changed their group are all found, and the terminal's foreground
// process group (what Ctrl-C reaches). The platform's process table (src/platform) answers.
import { processes, type ProcessSnapshot } from "../platform/index.ts";

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

/** The next question scans the table again: for a last look that must not miss a process made earlier in this turn. */
export function rescan(): void {
  shared = null;
}

/** Live (not zombie) processes of the terminal session `sid`, the leader first if it is alive. */
export function sessionMembers(sid: number): number[] {
  return snapshot().sessionMembers(sid);
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
