// The daemon: owns the session store and the listening socket, tracks connections, and shuts
// everything down in order (sessions first, then the socket, then the process).
import { chmodSync, mkdirSync, unlinkSync } from "node:fs";
import type { TCPSocketListener, UnixSocketListener } from "bun";
import { SessionStore } from "../session/store.ts";
import { SqliteRecords } from "./persistence.ts";
import { Connection, type ConnData } from "./connection.ts";
import { clearStaleSocket, prepareSocketDir, takeLock } from "./socket-path.ts";

export interface DaemonOptions {
  socketPath: string;
  stateDir: string;
  /** Grace between SIGTERM and SIGKILL for session.stop and shutdown. */
  stopGraceMs: number;
  /** How long an ended session is kept before it is forgotten. */
  ttlMs: number;
}

/** Eviction runs at most this often (and more often for short TTLs). */
const EVICT_EVERY_MS = 60_000;

export class Daemon {
  readonly store: SessionStore;
  readonly connections = new Set<Connection>();
  readonly counters = { bytesIn: 0, requests: 0, connections: 0 };
  private readonly startedAt = performance.now();
  private listener: UnixSocketListener<ConnData> | TCPSocketListener<ConnData> | null = null;
  private releaseLock: (() => void) | null = null;
  private shuttingDown: Promise<void> | null = null;
  private readonly records: SqliteRecords;
  private evictTimer: Timer | null = null;
  readonly stopped = Promise.withResolvers<void>();

  constructor(readonly options: DaemonOptions) {
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    const baseEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TERMD_")) baseEnv[k] = v;
    // Like $TMUX: a termd command run inside a session talks to the daemon that owns it.
    baseEnv.TERMD_SOCKET = options.socketPath;
    this.records = new SqliteRecords(options.stateDir);
    this.store = new SessionStore({ stateDir: options.stateDir, baseEnv, records: this.records });
  }

  uptimeS(): number {
    return Math.round((performance.now() - this.startedAt) / 1000);
  }

  async listen(): Promise<void> {
    const path = this.options.socketPath;
    prepareSocketDir(path);
    this.releaseLock = takeLock(path);
    try {
      await clearStaleSocket(path);
      this.store.restore();
      this.store.evict(this.options.ttlMs);
      this.evictTimer = setInterval(() => this.store.evict(this.options.ttlMs), Math.max(10, Math.min(this.options.ttlMs, EVICT_EVERY_MS)));
      const old = process.umask(0o177);
      try {
        this.listener = Bun.listen<ConnData>({
          unix: path,
          socket: {
            open: (socket) => {
              const conn = new Connection(socket, this);
              socket.data = { conn };
              this.connections.add(conn);
              this.counters.connections++;
            },
            data: (socket, chunk) => socket.data.conn?.onData(chunk),
            drain: (socket) => socket.data.conn?.flush(),
            close: (socket) => socket.data.conn?.onClose(),
            error: (socket) => socket.data.conn?.onClose(),
          },
        });
      } finally {
        process.umask(old);
      }
      chmodSync(path, 0o600);
    } catch (err) {
      this.releaseLock();
      throw err;
    }
  }

  /** Stops every session (SIGTERM, then SIGKILL after the grace), closes the socket, resolves `stopped`. */
  shutdown(graceMs = this.options.stopGraceMs): Promise<void> {
    this.shuttingDown ??= (async () => {
      await this.store.stopAll(graceMs);
      this.close();
    })();
    return this.shuttingDown;
  }

  /** Immediate teardown: children killed, socket removed. Safe to call more than once. */
  close(): void {
    this.store.killAll();
    if (this.evictTimer) clearInterval(this.evictTimer);
    this.evictTimer = null;
    if (this.listener) {
      this.listener.stop(true);
      this.listener = null;
      try {
        unlinkSync(this.options.socketPath);
      } catch {}
    }
    for (const c of this.connections) c.end();
    this.releaseLock?.();
    this.releaseLock = null;
    this.stopped.resolve();
  }
}
