// Whether a process is still there. A zombie counts as gone: a killed process may linger unreaped
// where nothing reaps orphans (or while its parent's event loop is blocked).
import { processes } from "./index.ts";

/** Alive and not a zombie; a process we may not signal (EPERM) is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return processes.isZombie(pid) !== true;
}
