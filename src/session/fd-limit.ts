// What a daemon out of file descriptors or PTYs answers: which limit was hit, how high it is, and what to
// raise, instead of "Failed to duplicate PTY file descriptor" or a bare EMFILE.
import { readFileSync } from "node:fs";
import { TermdError } from "../terminal/errors.ts";

/** The process's own limit (RLIMIT_NOFILE, `ulimit -n`). Bun.Terminal says the middle one when it cannot dup. */
const PROCESS_LIMIT = /EMFILE|too many open files|failed to duplicate pty file descriptor/i;
/** The whole system's (fs.file-max). */
const SYSTEM_LIMIT = /ENFILE|file table overflow/i;
/** The kernel's count of PTYs (kernel.pty.max, 4096 by default): opening /dev/ptmx past it is ENOSPC. */
const PTY_LIMIT = /ENOSPC[\s\S]*\/dev\/ptmx/;

/** "soft (hard hard)" from /proc/self/limits; null where there is none. */
function openFileLimit(): string | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const [soft, hard] = line?.slice("Max open files".length).trim().split(/\s+/) ?? [];
    return soft && hard ? `${soft} (hard limit ${hard})` : null;
  } catch {
    return null;
  }
}

function readFirstLine(path: string): string | null {
  try {
    return readFileSync(path, "utf8").split("\n")[0]!.trim() || null;
  } catch {
    return null;
  }
}

/** Read at start-up too: with every descriptor in use, /proc/self/limits cannot be opened. */
const limitAtStart = openFileLimit();

/** LIMIT_REACHED naming the limit, when `err` is a lack of file descriptors; null when it is something else. */
export function descriptorsUsedUp(err: unknown, sessions: number): TermdError | null {
  const message = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? ""} ${err.message}` : String(err);
  if (PTY_LIMIT.test(message)) {
    const max = readFirstLine("/proc/sys/kernel/pty/max");
    return new TermdError(
      "LIMIT_REACHED",
      `the system's PTYs are used up (kernel.pty.max${max ? ` = ${max}` : ""}, shared by every program on the machine, or the max= of this /dev/pts mount) with this daemon at ${sessions} sessions: raise it with sysctl kernel.pty.max=N, or remove sessions`,
      { limit: "kernel.pty.max", sessions },
    );
  }
  if (SYSTEM_LIMIT.test(message)) {
    return new TermdError(
      "LIMIT_REACHED",
      `the system's open-file table is full (fs.file-max; raise it with sysctl fs.file-max=N) with this daemon at ${sessions} sessions`,
      { limit: "fs.file-max" },
    );
  }
  if (!PROCESS_LIMIT.test(message)) return null;
  const limit = openFileLimit() ?? limitAtStart;
  return new TermdError(
    "LIMIT_REACHED",
    `the daemon's open-file limit (RLIMIT_NOFILE, ulimit -n${limit ? `: ${limit}` : ""}) is used up at ${sessions} sessions: ` +
      "start the daemon with a higher one (ulimit -n N first; LimitNOFILE=N under systemd; docker run --ulimit nofile=N), or remove sessions",
    { limit: "RLIMIT_NOFILE", sessions },
  );
}
