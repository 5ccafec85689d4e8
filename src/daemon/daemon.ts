// The daemon: owns the session store and the listening socket, tracks connections, and shuts
// everything down in order (sessions first, then the socket, then the process).
import { closeSync, mkdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { UnixSocketListener } from "bun";
import type { SessionStore } from "../session/store.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import type { PtyPool } from "../pty/pty-pool.ts";
import { Timers } from "../platform/timers.ts";
import { Rasterizer } from "../render/rasterizer.ts";
import type { Session } from "../session/session.ts";
import type { RpcError } from "../protocol/errors.ts";
import { SqliteRecords } from "./persistence.ts";
import { Metrics } from "./metrics.ts";
import { LineParser } from "./line-parser.ts";
import { CHECK_EVERY_MS, IdleCollector } from "./idle-collect.ts";
import { Peer, type PeerOptions, type PeerOutlet } from "./peer.ts";
import type { ConnData } from "./connection.ts";
import { listen } from "./listener.ts";
import { type SessionSocketEntry, SessionSockets } from "./session-sockets.ts";
import { checkInheritedSocket } from "./socket-activation.ts";
import { checkSocketDirWritable, clearStaleSocket, DaemonStartError, prepareSocketDir } from "./socket-path.ts";
import { adoptFileLock, type FileLock, LockHeld, takeFileLock } from "./file-lock.ts";
import type { HandoverRecord } from "./handover-record.ts";
import type { DaemonContext, DaemonCounters } from "./daemon-context.ts";
import type { DaemonOptions, SessionSocketOptions } from "./daemon-options.ts";
import { reapChildLater, reapLeftovers, startTime } from "../pty/processes.ts";
import type { DialectRegistry } from "../dialects/index.ts";
import type { SessionLayer, SessionLayerOptions } from "./session-layer.ts";

/** Eviction runs at most this often (and more often for short TTLs). */
const EVICT_EVERY_MS = 60_000;
/** How long past the stop grace a shutdown waits for sessions to report their end. */
const SHUTDOWN_SLACK_MS = 2000;

export class Daemon implements DaemonContext {
  /**
   * Every timer, sweep and batch of this daemon and its parts (platform/timers.ts): eviction, the
   * idle collection, the pools' restart pauses, the line files' batches, the idle files' sweep, the
   * wait answers' turns. Its close ends them all in one call.
   */
  readonly timers = new Timers();
  /** The sessions and their pools (session-layer.ts), made on first use; null until then. */
  private layer: SessionLayer | null = null;
  private readonly layerOptions: SessionLayerOptions;
  /** close() has run. */
  private closed = false;
  /** PNG screenshots, drawn off the event loop. */
  readonly rasterizer = new Rasterizer();
  /** Long request lines and HTTP bodies, parsed in a worker of its own. */
  readonly lineParser = new LineParser();
  readonly connections = new Set<Peer>();
  /** What each dialect remembers about a session (ralph's mode), by session id and dialect: it goes with the session. */
  private readonly dialectStates = new Map<string, Map<string, unknown>>();
  readonly dialects: DialectRegistry;
  readonly counters: DaemonCounters = { bytesIn: 0, bytesOut: 0, requests: 0, connections: 0, commandsRun: 0 };
  /** Requests, errors and latency by method (GET /metrics). */
  readonly metrics = new Metrics();
  private readonly startedAt = performance.now();
  /** When this daemon (this image of the process: a handover starts a new one) started, as system.ping says it. */
  readonly startedAtIso = new Date().toISOString();
  private listener: UnixSocketListener<ConnData> | null = null;
  /** The socket's and the state dir's locks, in that order, held while it runs (Daemon.start). */
  private locks: FileLock[] = [];
  private shuttingDown: Promise<void> | null = null;
  /** A handover (handover.ts) is being checked or made: a second one is refused meanwhile. */
  handingOver = false;
  /** Set while a handover says its farewell (handover.ts): told to a client that comes (a new connection in answer to its first line), and the answer to every request that comes meanwhile. */
  farewell: RpcError | null = null;
  /** The port HTTP is served on (`--http`), once it is: a handover's next image takes the same. */
  httpPort: number | null = null;
  /** Shutting down: GET /healthz says so. */
  get stopping(): boolean {
    return this.shuttingDown !== null;
  }
  private readonly records: SqliteRecords;
  /** Gives back what a burst of requests left behind once the clients go quiet (idle-collect.ts). */
  private readonly idleCollector = new IdleCollector({
    activity: () => this.counters.bytesIn + this.counters.bytesOut + this.counters.requests,
    heap: () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    },
    collect: () => Bun.gc(true),
    now: () => performance.now(),
  });
  private readonly sessionSockets = new SessionSockets(this);
  readonly stopped = Promise.withResolvers<void>();

  constructor(readonly options: DaemonOptions) {
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    this.dialects = options.dialects;
    const baseEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TERMD_")) baseEnv[k] = v;
    // Like $TMUX: a termd command run inside a session talks to the daemon that owns it.
    baseEnv.TERMD_SOCKET = options.socketPath;
    this.records = new SqliteRecords(options.stateDir);
    this.layerOptions = {
      timers: this.timers,
      stateDir: options.stateDir,
      baseEnv,
      records: this.records,
      debugBuffer: options.debugBuffer,
      screenWorkers: options.screenWorkers,
      screenParkMs: options.screenParkMs,
      ptyWorkers: options.ptyWorkers,
      maxSessions: options.maxSessions,
      onRemove: (s) => this.forget(s),
    };
  }

  /**
   * The session layer, loaded and made the first time something asks for it. Required, not
   * imported: its modules stay out of the memory of a daemon no client has asked for a session.
   */
  private sessions(): SessionLayer {
    if (!this.layer) {
      this.layer = (require("./session-layer.ts") as typeof import("./session-layer.ts")).makeSessionLayer(this.layerOptions);
      // Made after close() by a request still under way: its pools start no thread, as closed ones would not.
      if (this.closed) this.closePools();
    }
    return this.layer;
  }

  private closePools(): void {
    this.layer?.screens.close();
    this.layer?.ptys.close();
  }

  get store(): SessionStore {
    return this.sessions().store;
  }

  get screens(): ScreenPool {
    return this.sessions().screens;
  }

  get ptys(): PtyPool {
    return this.sessions().ptys;
  }

  uptimeS(): number {
    return Math.round((performance.now() - this.startedAt) / 1000);
  }

  /**
   * A daemon serving on its socket. Its locks come first: the loser of a start race then exits
   * having started no thread and opened no database (two first starts opening it at once got
   * "database is locked").
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const path = options.socketPath;
    const handover = options.handover ?? null;
    // The next image of a daemon that handed itself over (handover.ts) holds the locks and the
    // listening socket already (they crossed the exec open), and its programs run on.
    if (handover) return Daemon.startHolding(options, (held) => held.push(...handover.locks.map((l) => adoptFileLock(l.path, l.fd))));
    prepareSocketDir(path);
    checkSocketDirWritable(path);
    return Daemon.startHolding(options, (held) => {
      held.push(lock(`${path}.lock`, "socket", (pid) => `a termd daemon (pid ${pid}) already runs on ${path}`));
      mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
      // One daemon per state dir: two sharing the records would each call the other's live
      // sessions lost.
      held.push(
        lock(
          join(options.stateDir, "daemon.lock"),
          "state dir",
          (pid) =>
            `another termd daemon (pid ${pid}) uses the state dir ${options.stateDir}; give this one its own (--state-dir or TERMD_STATE_DIR)`,
        ),
      );
    });
  }

  /** A daemon holding the locks `take` puts in `held` (released again, newest first, if it cannot start), listening. */
  private static async startHolding(options: DaemonOptions, take: (held: FileLock[]) => void): Promise<Daemon> {
    const locks: FileLock[] = [];
    let daemon: Daemon;
    try {
      take(locks);
      daemon = new Daemon(options);
    } catch (err) {
      for (const release of locks.reverse()) release();
      throw err;
    }
    daemon.locks = locks;
    await daemon.listen();
    return daemon;
  }

  /** The sessions' own sockets, for the handover record. */
  sessionSocketList(): SessionSocketEntry[] {
    return this.sessionSockets.list();
  }

  /** The locks this daemon holds and the descriptors they are on, for the handover record. */
  lockFiles(): { path: string; fd: number }[] {
    const paths = [`${this.options.socketPath}.lock`, join(this.options.stateDir, "daemon.lock")];
    return this.locks.map((l, i) => ({ path: paths[i]!, fd: l.fd }));
  }

  /**
   * Takes over the programs the handover passed; one it cannot is ended (its master closed, its
   * processes killed and reaped) and its session then restored as lost.
   */
  private async adoptPrograms(handover: HandoverRecord): Promise<void> {
    const programs = new Map(
      handover.programs.map((p) => [
        p.session,
        { pid: p.pid, fd: p.fd, exit: p.exit, input: p.input === null ? null : Buffer.from(p.input, "base64") },
      ]),
    );
    for (const id of await this.store.adopt(programs)) {
      const p = programs.get(id)!;
      try {
        closeSync(p.fd);
      } catch {}
      reapLeftovers(p.pid, startTime(p.pid));
      reapChildLater(p.pid);
    }
  }

  private async listen(): Promise<void> {
    const path = this.options.socketPath;
    // Whatever fails, nothing started here (the pools' threads) may keep the process up.
    try {
      const activated = this.options.listenFd ?? null;
      const handover = this.options.handover ?? null;
      if (activated !== null) checkInheritedSocket(activated, path);
      else if (!handover) await clearStaleSocket(path);
      if (handover) await this.adoptPrograms(handover);
      // With no records (no database) there is nothing to restore, and nothing to load for it.
      if (handover || this.records.exists) this.store.restore();
      // The sessions' own sockets crossed the exec listening: served again.
      for (const s of handover?.session_sockets ?? []) {
        try {
          await this.sessionSockets.open(s.session, s.path, { dialect: s.dialect ?? undefined, cleanup: s.cleanup ?? undefined }, s.fd);
          this.store.get(s.session).socket = s.path;
        } catch (err) {
          console.error(`termd: session ${s.session}'s socket ${s.path} is not served again: ${(err as Error).message}`);
        }
      }
      this.evict();
      this.timers.every(Math.max(10, Math.min(this.options.ttlMs, EVICT_EVERY_MS)), () => this.evict());
      this.timers.every(CHECK_EVERY_MS, () => this.idleCollector.check());
      const inherited = activated ?? handover?.listener_fd ?? null;
      this.listener = listen(this, inherited !== null ? { fd: inherited } : { unix: path });
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Forgets sessions ended longer than the TTL ago. */
  private evict(): void {
    this.layer?.store.evict(this.options.ttlMs);
  }

  /** `dialect`'s state for the session `ref` (made by `init` the first time); SESSION_NOT_FOUND for none. */
  dialectState<T>(ref: string, dialect: string, init: () => T): T {
    const id = this.store.get(ref).id;
    let states = this.dialectStates.get(id);
    if (!states) this.dialectStates.set(id, (states = new Map()));
    if (!states.has(dialect)) states.set(dialect, init());
    return states.get(dialect) as T;
  }

  /** A client that comes (a connection's, an HTTP request's): counted, and told of the sessions that go. */
  addPeer(outlet: PeerOutlet, opts: PeerOptions = {}): Peer {
    const peer = new Peer(outlet, opts);
    this.connections.add(peer);
    this.counters.connections++;
    if (this.farewell) peer.farewell(this.farewell);
    return peer;
  }

  /** The client went away: its long calls stop, its subscriptions end. */
  dropPeer(peer: Peer): void {
    peer.close();
    this.connections.delete(peer);
  }

  /** A session is gone: its own socket closes and no connection keeps its subscription. */
  private forget(s: Session): void {
    this.dialectStates.delete(s.id);
    this.closeSessionSocket(s.id);
    for (const c of this.connections) c.forget(s);
  }

  /**
   * Gives a session a socket of its own (session-sockets.ts): requests there need not name the
   * session. A stale socket file at `path` is replaced; a live one is refused.
   */
  openSessionSocket(sessionId: string, path: string, opts?: SessionSocketOptions): Promise<void> {
    return this.sessionSockets.open(sessionId, path, opts);
  }

  closeSessionSocket(sessionId: string): void {
    this.sessionSockets.close(sessionId);
  }

  /** Stops every session (SIGTERM, then SIGKILL after the grace), closes the socket, resolves `stopped`. */
  shutdown(graceMs = this.options.stopGraceMs): Promise<void> {
    this.shuttingDown ??= (async () => {
      // Bounded: a session that somehow never reports its end must not keep the daemon up.
      let timer: Timer | undefined;
      const deadline = new Promise<void>((r) => (timer = setTimeout(r, graceMs + SHUTDOWN_SLACK_MS)));
      await Promise.race([this.layer?.store.stopAll(graceMs), deadline]);
      clearTimeout(timer);
      this.close();
    })();
    return this.shuttingDown;
  }

  /** Immediate teardown: children killed, socket removed. Safe to call more than once. */
  close(): void {
    // First: the journals' last lines are written (sessions killed now get no exit), the wait
    // answers still owed given while their connections are open, and every timer stopped.
    this.closed = true;
    this.timers.close();
    this.layer?.store.killAll();
    this.closePools();
    this.rasterizer.close();
    this.lineParser.close();
    this.sessionSockets.closeAll();
    if (this.listener) {
      // Its connections are not cut: each ends once what is queued for it is written (below).
      this.listener.stop();
      this.listener = null;
      // systemd's socket stays: it is systemd's, and holds the next connections for the next daemon.
      if ((this.options.listenFd ?? null) === null) {
        try {
          unlinkSync(this.options.socketPath);
        } catch {}
      }
    }
    for (const c of this.connections) c.end();
    // The database before the locks: the next daemon opens it as soon as it has them.
    this.records.close();
    for (const release of this.locks.splice(0).reverse()) release();
    this.stopped.resolve();
  }
}

/** Takes a lock, or says who holds it (a DaemonStartError naming what is held: the autostart waits for a held socket's daemon, not for a held state dir's). */
function lock(path: string, what: "socket" | "state dir", inUse: (holder: string) => string): FileLock {
  try {
    return takeFileLock(path);
  } catch (err) {
    if (err instanceof LockHeld) throw new DaemonStartError(inUse(err.holder === null ? "unknown" : String(err.holder)), what);
    throw new DaemonStartError(`cannot create the lock ${path}: ${(err as Error).message}`);
  }
}
