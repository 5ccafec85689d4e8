// The daemon a test process talks to: the one TERMD_SOCKET names, or else a private one on a temp
// socket, started the first time a test needs it and shared by every test of this process (each
// test still gets sessions of its own).
//
// `bun test` runs no `exit` or `beforeExit` handlers and leaves unref'd children running, so the
// private daemon cannot be stopped from here at exit. It runs under a small sh guard instead,
// whose stdin is a pipe from this process: when this process ends, however it ends, the pipe
// closes, the guard's `read` returns and it stops the daemon (its sessions with it) and removes
// the temp folder.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Client } from "../client/client.ts";

const START_TIMEOUT_MS = 15_000;
const MAIN = join(import.meta.dir, "..", "cli", "main.ts");

const GUARD = `
"$@" 2>"$TERMD_TESTING_DIR/daemon.log" </dev/null &
d=$!
stop() { kill -TERM "$d" 2>/dev/null; wait "$d"; rm -rf "$TERMD_TESTING_DIR"; exit 0; }
trap stop INT TERM HUP
read -r _ || true
stop
`;

export interface DaemonHandle {
  socket: string;
  client: Client;
  /** A private daemon's pid (the guard's child is the daemon); undefined for TERMD_SOCKET's. */
  private: boolean;
}

let current: Promise<DaemonHandle> | undefined;
/** Held for the life of the process: its stdin pipe is what keeps the private daemon running. */
let guardProcess: unknown;

/** The daemon for this process: TERMD_SOCKET's, else a private one (started once). */
export function daemon(): Promise<DaemonHandle> {
  current ??= open().catch((err) => {
    current = undefined;
    throw err;
  });
  return current;
}

async function open(): Promise<DaemonHandle> {
  const given = process.env.TERMD_SOCKET;
  if (given) return { socket: given, client: await connect(given), private: false };
  const dir = mkdtempSync(join(tmpdir(), "termd-testing-"));
  const socket = join(dir, "termd.sock");
  const argv = [process.execPath, MAIN, "daemon", "--socket", socket, "--state-dir", join(dir, "state"), "--stop-grace", "1000"];
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TERMD_TESTING_DIR: dir, TERMD_SOCKET: socket };
  delete env.TERMD_DEBUG;
  const guard = Bun.spawn(["/bin/sh", "-c", GUARD, "termd-testing-guard", ...argv], {
    stdin: "pipe",
    stdout: "ignore",
    stderr: "inherit",
    env,
  });
  guard.unref();
  guardProcess = guard;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      const client = await connect(socket);
      if (process.env.TERMD_DEBUG) console.error(`termd/testing: private daemon on ${socket}`);
      return { socket, client, private: true };
    } catch {}
    if (guard.exitCode !== null || Date.now() > deadline) {
      let log = "";
      try {
        log = readFileSync(join(dir, "daemon.log"), "utf8").trim();
      } catch {}
      guard.kill();
      guardProcess = undefined;
      throw new Error(`termd/testing: the private daemon did not start on ${socket}${log ? `: ${log}` : ""}`);
    }
    await Bun.sleep(delay);
  }
}
