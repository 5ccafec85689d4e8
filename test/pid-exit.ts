// Waiting for a process that is not this one's child to end, without polling: Linux's pidfd
// becomes readable when the process terminates (a zombie counts as ended, as alive() has it), so
// a python3 that blocks on it exits then. A process already gone ends the wait at once.
const WAITER = `
import os, select, sys
try:
    fd = os.pidfd_open(int(sys.argv[1]))
except ProcessLookupError:
    sys.exit(0)
sys.exit(0 if select.select([fd], [], [], float(sys.argv[2]))[0] else 1)
`;

/** Resolves once `pid` has ended; rejects if it has not after `timeoutMs`. */
export async function pidExit(pid: number, timeoutMs = 10_000): Promise<void> {
  const waiter = Bun.spawn(["python3", "-c", WAITER, String(pid), String(timeoutMs / 1000)], { stdio: ["ignore", "ignore", "inherit"] });
  if ((await waiter.exited) !== 0) throw new Error(`process ${pid} did not end in ${timeoutMs} ms`);
}
