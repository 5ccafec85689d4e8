// What a daemon is started with (Daemon.start, inProcessDaemon): its paths, the dialects it
// serves, its limits, and what a handover or systemd passed it.
import type { DialectRegistry } from "../dialects/index.ts";
import type { HandoverRecord } from "./handover-record.ts";

/** How a session's own socket behaves (session.create's socket_dialect and socket_cleanup). */
export interface SessionSocketOptions {
  /** Spoken when a connection's first line picks no dialect. */
  dialect?: string;
  /** On close: unlink the file (default), keep it (refusing connections), or unlink it and its folder. */
  cleanup?: "unlink" | "keep" | "rmdir";
}

export interface DaemonOptions {
  socketPath: string;
  /** The wire protocols its connections may speak (src/dialects): given, so the core names none. */
  dialects: DialectRegistry;
  stateDir: string;
  /** Grace between SIGTERM and SIGKILL for session.stop and shutdown. */
  stopGraceMs: number;
  /** How long a stop or a handover waits for the clients to read what is queued for them (default FAREWELL_MS, last-lines.ts). */
  farewellMs?: number;
  /** How long an ended session is kept before it is forgotten. */
  ttlMs: number;
  /** Size of each session's unhandled-sequence log (default 10). */
  debugBuffer?: number;
  /** Shut down once session.remove leaves no session (a daemon hosting one, `interminai start --no-daemon`). */
  exitWhenEmpty?: boolean;
  /** A file holding the daemon's pid while it runs (the console server's server.pid). */
  pidFile?: string;
  /** The `termd daemon` flags it was started with, the state dir aside: reported (system.stats) for `termd daemon restart`. */
  flags?: string[];
  /** Threads that parse the sessions' screens (default: one per core). */
  screenWorkers?: number;
  /** Quiet time after which a small session's screen is parked (default 5000; 0: never). */
  screenParkMs?: number;
  /** Threads that run the sessions' programs and read their output (default: one per core). */
  ptyWorkers?: number;
  /** Sessions held at most, ended ones included (default DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** Pending session.wait calls per connection (default MAX_WAITS_PER_CONNECTION). */
  maxWaits?: number;
  /** Sessions one connection may be subscribed to (default MAX_SUBSCRIPTIONS_PER_CONNECTION). */
  maxSubscriptions?: number;
  /** Connections served at once, over every socket and HTTP (default MAX_CONNECTIONS). */
  maxConnections?: number;
  /** A listening socket bound to socketPath that systemd passed (socket activation): served instead of binding one. */
  listenFd?: number | null;
  /** This process is the next image of a daemon that handed itself over (handover.ts): its socket, locks and programs. */
  handover?: HandoverRecord | null;
}
