// The daemon a test process talks to: the one TERMD_SOCKET names, or else a private one on a temp
// socket, started the first time a test needs it and shared by every test of this process (each
// test still gets sessions of its own).
//
// `bun test` runs no `exit` or `beforeExit` handlers, leaves unref'd children running, and kills
// every child of a process whose test timed out ("killed 1 dangling process"). So the private
// daemon runs under a small sh guard that is not our child (its parent sh exits at once), and
// this process holds the write end of a FIFO the guard reads: when this process ends, however it
// ends, the kernel closes that end, the guard's `read` returns, and it stops the daemon (its
// sessions with it) and removes the temp folder. This process makes the FIFO and opens it before
// the guard starts, so a guard never waits to open it for a process that died first. Under
// TERMD_SOCKET the same guard, with no daemon, removes the folder of the files launches need.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Client } from "../client/client.ts";
import { connectWhenUp } from "../client/connect-when-up.ts";
import { termdCommand } from "./termd-command.ts";

const START_TIMEOUT_MS = 15_000;

/** `sh -c GUARD guard DIR [DAEMON-ARGV...]`: removes DIR when the FIFO DIR/alive closes, after stopping the daemon it started, if any. */
const GUARD = `
dir=$1; shift
(
  exec 3<"$dir/alive"
  d=
  if [ $# -gt 0 ]; then "$@" 2>"$dir/daemon.log" 3<&- & d=$!; fi
  stop() { if [ -n "$d" ]; then kill -TERM "$d" 2>/dev/null; wait "$d"; fi; rm -rf "$dir"; exit 0; }
  trap stop INT TERM HUP
  read -r _ <&3 || true
  stop
) </dev/null >/dev/null 2>&1 &
`;

/**
 * Starts the guard of `dir` (a new temp folder) and of the daemon `argv` starts, if given; gives
 * the FIFO's write end, which this process holds for its life, and the sh that starts the guard.
 */
function guard(dir: string, argv: string[] = [], env?: Record<string, string>): { alive: number; starter: ChildProcess } {
  const fd = openAlive(join(dir, "alive"));
  const starter = spawn("/bin/sh", ["-c", GUARD, "termd-testing-guard", dir, ...argv], { stdio: ["ignore", "ignore", "inherit"], env });
  return { alive: fd, starter };
}

export interface DaemonHandle {
  socket: string;
  client: Client;
  /** A private daemon's pid (the guard's child is the daemon); undefined for TERMD_SOCKET's. */
  private: boolean;
  /**
   * Where this process makes the temp files a launch needs (each terminal removes its own when it
   * closes): the private daemon's folder, or for TERMD_SOCKET's a folder made the first time one
   * is needed. A guard removes either when this process ends (bun runs no exit handlers), so a
   * killed test process leaves none, and a process that needs none makes none.
   */
  scratch(): string;
}

let current: Promise<DaemonHandle> | undefined;
/** The FIFO's write end, open for the life of the process: it is what keeps the private daemon running. */
let alive: number | undefined;
/** TERMD_SOCKET's scratch folder, once made (its guard's FIFO is held open, unclosed, for the life of the process). */
let scratchDir: string | undefined;

function guardedScratch(): string {
  if (scratchDir) return scratchDir;
  const dir = mkdtempSync(join(tmpdir(), "termd-testing-"));
  guard(dir);
  scratchDir = dir;
  return dir;
}

/** Makes the FIFO and holds it open; read-write, which on Linux never waits for the other end. */
function openAlive(path: string): number {
  const made = spawnSync("mkfifo", ["-m", "600", path], { stdio: ["ignore", "ignore", "pipe"] });
  if (made.status !== 0) throw new Error(`termd/testing: mkfifo ${path} failed: ${made.error?.message ?? made.stderr.toString().trim()}`);
  return openSync(path, constants.O_RDWR);
}

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
  if (given)
    return {
      socket: given,
      client: await connect(given, { holdOnlyWhileBusy: true }),
      private: false,
      scratch: guardedScratch,
    };
  const dir = mkdtempSync(join(tmpdir(), "termd-testing-"));
  const socket = join(dir, "termd.sock");
  const argv = [...termdCommand(), "daemon", "--socket", socket, "--state-dir", join(dir, "state"), "--stop-grace", "1000"];
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TERMD_SOCKET: socket };
  delete env.TERMD_DEBUG;
  const started = guard(dir, argv, env);
  alive = started.alive;
  const starter = started.starter;
  let starterFailed = false;
  starter.on("exit", (code) => (starterFailed = code !== 0));
  const failed = () => {
    let log = "";
    try {
      log = readFileSync(join(dir, "daemon.log"), "utf8").trim();
    } catch {}
    if (alive !== undefined) closeSync(alive); // the guard stops whatever started
    alive = undefined;
    return new Error(`termd/testing: the private daemon did not start on ${socket}${log ? `: ${log}` : ""}`);
  };
  const client = await connectWhenUp(
    () => connect(socket, { holdOnlyWhileBusy: true }),
    Date.now() + START_TIMEOUT_MS,
    () => {
      if (starterFailed) throw failed();
      return undefined;
    },
  );
  if (!client) throw failed();
  if (process.env.TERMD_DEBUG) console.error(`termd/testing: private daemon on ${socket}`);
  return { socket, client, private: true, scratch: () => dir };
}
