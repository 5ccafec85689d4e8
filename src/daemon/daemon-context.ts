// What of the daemon its calls reach: the members method handlers, dispatch, connections and their
// limits use, and no more. Daemon (daemon.ts) implements it; a CallContext carries it. It imports
// no module that makes connections or runs calls, so the daemon core is no import cycle: the
// daemon imports its connections, which import dispatch and the handlers, which import this.
import type { RpcError } from "../protocol/errors.ts";
import type { DialectRegistry } from "../dialects/index.ts";
import type { Rasterizer } from "../render/rasterizer.ts";
import type { Timers } from "../platform/timers.ts";
import type { PtyPool } from "../pty/pty-pool.ts";
import type { SessionStore } from "../session/store.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import type { Peer, PeerOptions, PeerOutlet } from "./peer.ts";
import type { DaemonOptions, SessionSocketOptions } from "./daemon-options.ts";
import type { HandoverHost } from "./handover.ts";
import type { ByteCounters } from "./line-channel.ts";
import type { LineParser } from "./line-parser.ts";
import type { Metrics } from "./metrics.ts";

/** What system.stats reports: the line channels' bytes, and the calls and clients. */
export interface DaemonCounters extends ByteCounters {
  requests: number;
  connections: number;
  commandsRun: number;
}

export interface DaemonContext extends HandoverHost {
  readonly options: DaemonOptions;
  readonly store: SessionStore;
  readonly screens: ScreenPool;
  readonly ptys: PtyPool;
  readonly rasterizer: Rasterizer;
  /** Where long request lines and HTTP bodies are parsed, off the daemon's thread. */
  readonly lineParser: LineParser;
  /** The daemon's timers: work a handler puts off ends with the daemon (system.handover's). */
  readonly timers: Pick<Timers, "flush" | "nextTurn">;
  readonly dialects: DialectRegistry;
  /** Every client served now (connection-limits.ts counts them). */
  readonly connections: Set<Peer>;
  readonly counters: DaemonCounters;
  readonly metrics: Metrics;
  readonly startedAtIso: string;
  /** A handover is being checked or made (system.handover refuses a second one meanwhile). */
  handingOver: boolean;
  /** Set while a handover says its farewell: the answer to every request that comes meanwhile (connection.ts, server/daemon-web-host.ts). */
  farewell: RpcError | null;
  uptimeS(): number;
  /** `dialect`'s state for the session `ref` (made by `init` the first time); SESSION_NOT_FOUND for none. */
  dialectState<T>(ref: string, dialect: string, init: () => T): T;
  /** A client that comes: counted, and told of the sessions that go. */
  addPeer(outlet: PeerOutlet, opts?: PeerOptions): Peer;
  /** The client went away: its long calls stop, its subscriptions end. */
  dropPeer(peer: Peer): void;
  /** Gives a session a socket of its own (session.create's socket). */
  openSessionSocket(sessionId: string, path: string, opts?: SessionSocketOptions): Promise<void>;
  closeSessionSocket(sessionId: string): void;
  /** Stops every session, then the daemon. */
  shutdown(graceMs?: number): Promise<void>;
}
