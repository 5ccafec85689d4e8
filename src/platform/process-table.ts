// What termd needs to know about processes beyond what Bun tells it: the members of a terminal
// session, the terminal's foreground group, when a process started (so a reused pid is never
// taken for the one that had it), zombies, a process's terminal, the daemon's open fds.
// Everything platform-specific sits behind this one interface; procfs.ts reads Linux's /proc,
// ps.ts asks ps(1) and lsof(8), as on macOS. index.ts picks one.

/** The table read once: questions about many sessions answered from one scan. */
export interface ProcessSnapshot {
  /** Live (not zombie) processes of the terminal session `sid`, the leader first if it is alive. */
  sessionMembers(sid: number): number[];
}

export interface ProcessTable {
  /** Which implementation this is (TERMD_PROCESSES picks one by this name). */
  readonly name: "procfs" | "ps";
  /** Live (not zombie) processes of the terminal session `sid`, the leader first if it is alive. */
  sessionMembers(sid: number): number[];
  /** One scan of every process, for asking about many sessions at once (stopping them all). */
  snapshot(): ProcessSnapshot;
  /** The foreground process group of the terminal `pid` controls; null when unknown. */
  foregroundGroup(pid: number): number | null;
  /** `pid`'s command line, in a form only compared for equality (a fork shows its parent's until it execs); null when unknown. */
  commandLine(pid: number): string | null;
  /** When `pid` started, in a form only compared for equality; null when there is no such process. */
  startTime(pid: number): string | null;
  /** Is `pid` a zombie (ended, not yet reaped)? null when unknown or gone. */
  isZombie(pid: number): boolean | null;
  /** Zombies whose parent is `parent`: what a PID 1 must reap. */
  zombieChildren(parent: number): number[];
  /** The terminal device (`/dev/…`) `pid` has as its controlling terminal; null when none. */
  terminalOf(pid: number): string | null;
  /** How many file descriptors this process has open; null when that cannot be read. */
  openFds(): number | null;
  /** What this process's `fd` is: a Unix socket bound to a path ("unix", path), another socket, or something else; null when unknown. */
  describeFd(fd: number): { kind: "unix"; path: string | null } | { kind: "other"; what: string } | null;
}
