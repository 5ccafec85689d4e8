// The daemon: owns the session store and the listening socket, tracks connections, and shuts
// everything down in order (sessions first, then the socket, then the process).
import { chmodSync, closeSync, mkdirSync, renameSync, rmdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { RpcError } from "../protocol/errors.ts";
import type { UnixSocketListener } from "bun";
import { SessionStore } from "../session/store.ts";
import { ScreenPool } from "../terminal/screen-pool.ts";
import { flushLineFiles } from "../session/line-file.ts";
import { PtyPool } from "../session/pty-pool.ts";
import { Rasterizer } from "../render/rasterizer.ts";
import type { Session } from "../session/session.ts";
import { SqliteRecords } from "./persistence.ts";
import { Metrics } from "./metrics.ts";
import { Client, type ClientOptions, type ClientOutlet } from "./client.ts";
import { Connection, type ConnData } from "./connection.ts";
import { connectionRefusal } from "./connection-limits.ts";
import { errorReply } from "./errors.ts";
import { checkInheritedSocket } from "./socket-activation.ts";
import { checkSocketDirWritable, checkSocketPathLength, clearStaleSocket, DaemonStartError, prepareSocketDir } from "./socket-path.ts";
import { adoptFileLock, type FileLock, LockHeld, takeFileLock } from "./file-lock.ts";
import type { HandoverRecord } from "./handover-record.ts";
import { reapChildLater, reapLeftovers, startTime } from "../session/processes.ts";
import type { Dialect } from "../dialects/dialect.ts";
import type { DialectRegistry } from "../dialects/index.ts";

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

/** Eviction runs at most this often (and more often for short TTLs). */
const EVICT_EVERY_MS = 60_000;
/** How long a connection refused past --max-connections is kept half-open for its client to read why. */
const REFUSED_LINGER_MS = 1000;
/** How long past the stop grace a shutdown waits for sessions to report their end. */
const SHUTDOWN_SLACK_MS = 2000;

export class Daemon {
  readonly store: SessionStore;
  readonly screens: ScreenPool;
  readonly ptys: PtyPool;
  /** PNG screenshots, drawn off the event loop. */
  readonly rasterizer = new Rasterizer();
  readonly connections = new Set<Client>();
  /** What each dialect remembers about a session (ralph's mode), by session id and dialect: it goes with the session. */
  private readonly dialectStates = new Map<string, Map<string, unknown>>();
  readonly dialects: DialectRegistry;
  readonly counters = { bytesIn: 0, bytesOut: 0, requests: 0, connections: 0, commandsRun: 0 };
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
  /** The port HTTP is served on (`--http`), once it is: a handover's next image takes the same. */
  httpPort: number | null = null;
  /** Shutting down: GET /healthz says so. */
  get stopping(): boolean {
    return this.shuttingDown !== null;
  }
  private readonly records: SqliteRecords;
  private evictTimer: Timer | null = null;
  private readonly sessionSockets = new Map<
    string,
    { path: string; listener: UnixSocketListener<ConnData>; cleanup: SessionSocketOptions["cleanup"]; dialect?: string }
  >();
  readonly stopped = Promise.withResolvers<void>();

  constructor(readonly options: DaemonOptions) {
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    this.dialects = options.dialects;
    const baseEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TERMD_")) baseEnv[k] = v;
    // Like $TMUX: a termd command run inside a session talks to the daemon that owns it.
    baseEnv.TERMD_SOCKET = options.socketPath;
    this.records = new SqliteRecords(options.stateDir);
    this.screens = new ScreenPool(options.screenWorkers, options.screenParkMs);
    this.ptys = new PtyPool(options.ptyWorkers);
    this.store = new SessionStore({
      stateDir: options.stateDir,
      baseEnv,
      records: this.records,
      debugBuffer: options.debugBuffer,
      pool: this.screens,
      ptys: this.ptys,
      maxSessions: options.maxSessions,
      onRemove: (s) => this.forget(s),
    });
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
    if (handover) return Daemon.takeOver(options, handover);
    prepareSocketDir(path);
    checkSocketDirWritable(path);
    const locks = [lock(`${path}.lock`, (pid) => `a termd daemon (pid ${pid}) already runs on ${path}`)];
    let daemon: Daemon;
    try {
      mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
      // One daemon per state dir: two sharing the records would each call the other's live
      // sessions lost.
      locks.push(
        lock(
          join(options.stateDir, "daemon.lock"),
          (pid) =>
            `another termd daemon (pid ${pid}) uses the state dir ${options.stateDir}; give this one its own (--state-dir or TERMD_STATE_DIR)`,
        ),
      );
      daemon = new Daemon(options);
    } catch (err) {
      for (const release of locks.reverse()) release();
      throw err;
    }
    daemon.locks = locks;
    await daemon.listen();
    return daemon;
  }

  /**
   * The next image of a daemon that handed itself over (handover.ts): it holds the locks and the
   * listening socket already (they crossed the exec open), and its programs run on.
   */
  private static async takeOver(options: DaemonOptions, handover: HandoverRecord): Promise<Daemon> {
    const locks = handover.locks.map((l) => adoptFileLock(l.path, l.fd));
    let daemon: Daemon;
    try {
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
  sessionSocketList(): { session: string; path: string; dialect?: string; cleanup?: SessionSocketOptions["cleanup"] }[] {
    return [...this.sessionSockets].map(([session, s]) => ({ session, path: s.path, dialect: s.dialect, cleanup: s.cleanup }));
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
      this.store.restore();
      // The sessions' own sockets crossed the exec listening: served again.
      for (const s of handover?.session_sockets ?? []) {
        try {
          await this.openSessionSocket(s.session, s.path, { dialect: s.dialect ?? undefined, cleanup: s.cleanup ?? undefined }, s.fd);
          this.store.get(s.session).socket = s.path;
        } catch (err) {
          console.error(`termd: session ${s.session}'s socket ${s.path} is not served again: ${(err as Error).message}`);
        }
      }
      this.evict();
      this.evictTimer = setInterval(() => this.evict(), Math.max(10, Math.min(this.options.ttlMs, EVICT_EVERY_MS)));
      const inherited = activated ?? handover?.listener_fd ?? null;
      this.listener = this.openSocket(inherited !== null ? { fd: inherited } : { unix: path });
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Forgets sessions ended longer than the TTL ago. */
  private evict(): void {
    this.store.evict(this.options.ttlMs);
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
  addClient(outlet: ClientOutlet, opts: ClientOptions = {}): Client {
    const client = new Client(outlet, opts);
    this.connections.add(client);
    this.counters.connections++;
    return client;
  }

  /** The client went away: its long calls stop, its subscriptions end. */
  dropClient(client: Client): void {
    client.close();
    this.connections.delete(client);
  }

  /** A session is gone: its own socket closes and no connection keeps its subscription. */
  private forget(s: Session): void {
    this.dialectStates.delete(s.id);
    this.closeSessionSocket(s.id);
    for (const c of this.connections) c.forget(s);
  }

  /** Listens on `path` (created 0600), or on an inherited listening `fd`; connections there imply `session` when it is given. */
  private openSocket(where: { unix: string } | { fd: number }, session?: string, dialect?: Dialect): UnixSocketListener<ConnData> {
    const old = process.umask(0o177);
    try {
      // Bun.listen takes `fd` (a socket already listening) though its types name only unix and TCP.
      const listener = Bun.listen<ConnData>({
        ...(where as { unix: string }),
        // A client that shuts down its sending side still reads: it gets every reply, then the close.
        allowHalfOpen: true,
        socket: {
          open: (socket) => {
            const refused = connectionRefusal(this);
            if (refused) {
              // Said in JSON-RPC's words whatever the client speaks: it has sent nothing yet. Only
              // the sending side is closed at once: a client whose connect is still being reported
              // when the whole socket goes sees a reset instead of the reason. The rest goes when
              // the client closes, or after REFUSED_LINGER_MS.
              socket.data = {};
              socket.write(JSON.stringify(errorReply(null, refused)) + "\n");
              socket.shutdown();
              setTimeout(() => socket.end(), REFUSED_LINGER_MS).unref();
              return;
            }
            socket.data = { conn: new Connection(socket, this, session, dialect) };
          },
          data: (socket, chunk) => socket.data.conn?.onData(chunk),
          end: (socket) => {
            if (socket.data.conn) socket.data.conn.onEnd();
            else socket.end(); // a refused connection: its client read why
          },
          drain: (socket) => socket.data.conn?.flush(),
          close: (socket) => socket.data.conn?.onClose(),
          error: (socket) => socket.data.conn?.onClose(),
        },
      });
      if ("unix" in where) chmodSync(where.unix, 0o600);
      return listener;
    } finally {
      process.umask(old);
    }
  }

  /**
   * Gives a session a socket of its own (interminai's and ralph's model): requests there need
   * not name the session. A stale socket file at `path` is replaced; a live one is refused.
   */
  async openSessionSocket(
    sessionId: string,
    path: string,
    opts: SessionSocketOptions = {},
    /** The socket listening on `path` already, from the image this daemon took over from (handover.ts). */
    fd?: number,
  ): Promise<void> {
    if (this.sessionSockets.has(sessionId)) throw new RpcError("INVALID_PARAMS", `session ${sessionId} has a socket already`);
    const dialect = opts.dialect === undefined ? undefined : this.dialects.named(opts.dialect);
    if (opts.dialect !== undefined && !dialect)
      throw new RpcError("INVALID_PARAMS", `unknown socket_dialect ${JSON.stringify(opts.dialect)}`);
    let listener: UnixSocketListener<ConnData>;
    try {
      checkSocketPathLength(path, "name a shorter socket");
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (fd === undefined) await clearStaleSocket(path);
      listener = this.openSocket(fd === undefined ? { unix: path } : { fd }, sessionId, dialect);
    } catch (err) {
      throw new RpcError("INVALID_PARAMS", `cannot listen on ${path}: ${(err as Error).message}`);
    }
    this.sessionSockets.set(sessionId, { path, listener, cleanup: opts.cleanup, dialect: opts.dialect });
    // A socket whose dialect says so (ralph's) goes when its session ends: its clients get the
    // last events and are closed, and a re-attach finds no socket instead of a session that will
    // never answer. (interminai's socket stays until `stop`: its status and wait report the exit.)
    if ((dialect ?? this.dialects.sessionDefault).endsWithSession) {
      void this.store
        .get(sessionId)
        .ended.then(() => this.closeSessionSocket(sessionId))
        .catch(() => {});
    }
  }

  closeSessionSocket(sessionId: string): void {
    const s = this.sessionSockets.get(sessionId);
    if (!s) return;
    this.sessionSockets.delete(sessionId);
    if (s.cleanup === "keep") {
      // Bun unlinks a unix socket when its listener stops; moved aside, the file survives, dead.
      const aside = `${s.path}.closing-${process.pid}`;
      try {
        renameSync(s.path, aside);
      } catch {}
      s.listener.stop(false);
      try {
        renameSync(aside, s.path);
      } catch {}
    } else {
      s.listener.stop(false);
      try {
        unlinkSync(s.path);
      } catch {}
      if (s.cleanup === "rmdir") {
        try {
          rmdirSync(dirname(s.path)); // only an empty folder: nothing but the socket was in it
        } catch {}
      }
    }
    // Its clients go last: one that sees its connection close must find the file settled. Each
    // gets what is left of its events first.
    for (const c of this.connections) if (c.impliedSession === sessionId) c.endWhenDelivered(sessionId);
  }

  /** Stops every session (SIGTERM, then SIGKILL after the grace), closes the socket, resolves `stopped`. */
  shutdown(graceMs = this.options.stopGraceMs): Promise<void> {
    this.shuttingDown ??= (async () => {
      // Bounded: a session that somehow never reports its end must not keep the daemon up.
      let timer: Timer | undefined;
      const deadline = new Promise<void>((r) => (timer = setTimeout(r, graceMs + SHUTDOWN_SLACK_MS)));
      await Promise.race([this.store.stopAll(graceMs), deadline]);
      clearTimeout(timer);
      this.close();
    })();
    return this.shuttingDown;
  }

  /** Immediate teardown: children killed, socket removed. Safe to call more than once. */
  close(): void {
    // The journals' last lines (line-file.ts puts them off): sessions killed now get no exit.
    flushLineFiles();
    this.store.killAll();
    this.screens.close();
    this.ptys.close();
    this.rasterizer.close();
    for (const id of [...this.sessionSockets.keys()]) this.closeSessionSocket(id);
    if (this.evictTimer) clearInterval(this.evictTimer);
    this.evictTimer = null;
    if (this.listener) {
      this.listener.stop(true);
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

/** Takes a lock, or says who holds it (a DaemonStartError the autostart knows as a lost race). */
function lock(path: string, inUse: (holder: string) => string): FileLock {
  try {
    return takeFileLock(path);
  } catch (err) {
    if (err instanceof LockHeld) throw new DaemonStartError(inUse(err.holder === null ? "unknown" : String(err.holder)), true);
    throw new DaemonStartError(`cannot create the lock ${path}: ${(err as Error).message}`);
  }
}
