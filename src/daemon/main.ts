// Running the daemon as a process: listen, stop cleanly on SIGTERM/SIGINT, never die of a stray
// exception (log it and keep serving), and exit once shut down.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Daemon } from "./daemon.ts";
import type { DaemonOptions } from "./daemon-options.ts";
import { clientLog } from "../session/client-log.ts";
import { takeInheritedSocket } from "./socket-activation.ts";
import { DaemonStartError } from "./socket-path.ts";
import { takeHandover } from "./handover-record.ts";
import { lastLinesWritten } from "./last-lines.ts";

/** Writes the pid file; returns its removal, which leaves a file some later daemon wrote alone. */
function writePidFile(path: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, String(process.pid), { mode: 0o644 });
  return () => {
    try {
      if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
    } catch {}
  };
}

/**
 * A daemon systemd started on its socket waits a while for the lock: a daemon started without it
 * at the same moment (an autostarting CLI) holds it only until it finds the socket answering
 * (systemd's), and then exits; the one with systemd's socket is the one that must serve.
 */
const ACTIVATED_LOCK_WAIT_MS = 5000;

async function start(opts: DaemonOptions): Promise<Daemon> {
  const deadline = performance.now() + ((opts.listenFd ?? null) !== null ? ACTIVATED_LOCK_WAIT_MS : 0);
  for (;;) {
    try {
      return await Daemon.start(opts);
    } catch (err) {
      if (!(err instanceof DaemonStartError && err.busy) || performance.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Something more the daemon is served over (HTTP): started once it listens, stopped when it stops. */
export type Transport = (daemon: Daemon) => { stop(): void };

export async function runDaemon(opts: DaemonOptions, transport?: Transport, onReady?: () => void): Promise<never> {
  // Taken before the daemon copies the environment for its sessions. The next image of a daemon
  // that handed itself over (handover.ts) has its socket and programs from the record.
  const handover = opts.handover ?? takeHandover();
  const listenFd = handover ? (handover.systemd_socket ? handover.listener_fd : null) : (opts.listenFd ?? takeInheritedSocket());
  const daemon = await start({ ...opts, listenFd, handover });
  let served: ReturnType<Transport> | null = null;
  try {
    served = transport?.(daemon) ?? null;
  } catch (err) {
    daemon.close();
    throw err;
  }
  // A client's request is what usually sets these off: rate limited with the lines clients cause.
  process.on("uncaughtException", (err) => clientLog.log("termd: uncaught exception (still serving):", err));
  process.on("unhandledRejection", (err) => clientLog.log("termd: unhandled rejection (still serving):", err));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void daemon.shutdown());
  process.on("SIGHUP", () => {});
  // A container's PID 1 (or a PID namespace's) must reap what gets re-parented to it.
  if (process.pid === 1) {
    // Loaded only here: bun:ffi and its libc binding are memory a daemon that is not PID 1 never needs.
    const cannot = (await import("../platform/reaper.ts")).startOrphanReaper(daemon.timers);
    console.error(cannot ? `termd: PID 1, but orphans are not reaped: ${cannot}` : "termd: PID 1: reaping orphaned processes");
  }
  // Last resort: whatever ends the process, children are not left behind.
  process.on("exit", () => daemon.close());
  // Written once the socket answers, so a script that waits for the file can connect at once.
  if (opts.pidFile) {
    const removePidFile = writePidFile(opts.pidFile);
    process.on("exit", removePidFile);
  }
  const taken = handover
    ? `, taken over from ${handover.from.version} (commit ${handover.from.commit}) with ${handover.programs.length === 1 ? "1 running session" : `${handover.programs.length} running sessions`}`
    : "";
  console.error(
    `termd: daemon ${process.pid} listening on ${opts.socketPath}${listenFd !== null ? ` (systemd's socket, fd ${listenFd})` : ""}${taken}`,
  );
  onReady?.();
  await daemon.stopped.promise;
  // The exit closes the connections with what is still queued for them: the replies they were owed go first.
  await lastLinesWritten(daemon.connections, opts.farewellMs);
  served?.stop();
  process.exit(0);
}
