// A termd daemon as a child process of a script or test, started through the CLI (`termd daemon`)
// on a socket and state dir of its own, with nothing of the user's own termd in its environment.
import type { Subprocess } from "bun";
import { alive } from "../../src/platform/alive.ts";

export { alive };

/** The environment of a daemon that must find nothing of the user's own termd (nor tmux's). */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "TMUX" && !k.startsWith("TERMD_")) env[k] = v;
  return env;
}

/** `termd daemon` on `socket` and `stateDir`, with a short stop grace, then `extra` flags. */
export const daemonArgs = (socket: string, stateDir: string, extra: string[] = []) => [
  "daemon",
  "--socket",
  socket,
  "--state-dir",
  stateDir,
  "--stop-grace",
  "1000",
  ...extra,
];

/**
 * Reads the daemon's stderr until it says "listening on" (its socket accepts connections), and
 * returns what it said up to there with the reader, for the caller to go on draining.
 */
export async function untilListening(proc: Subprocess<"ignore", "ignore" | "pipe", "pipe">) {
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let banner = "";
  while (!banner.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`termd daemon did not start:\n${banner}`);
    banner += dec.decode(value, { stream: true });
  }
  return { banner, reader };
}

/** For the signal path: SIGTERM (the daemon stops its sessions), up to 3 s for it to go, then SIGKILL. */
export function terminateSync(proc: Subprocess): void {
  if (proc.exitCode !== null || proc.signalCode !== null || !alive(proc.pid)) return;
  proc.kill("SIGTERM");
  const deadline = performance.now() + 3000;
  while (alive(proc.pid) && performance.now() < deadline) Bun.sleepSync(20);
  if (alive(proc.pid)) proc.kill("SIGKILL");
}
