// What the HTTP transport needs from a daemon, and all it may reach of one: web/ imports no daemon
// module. The composition root (server/daemon-web-host.ts) makes one of these from a daemon; a WebSocket
// is then a connection like a socket's, a live cast a subscriber like any other.
import type { ByteSink } from "../protocol/byte-sink.ts";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
import type { OutputFrame, OutputFraming } from "../protocol/output-frame.ts";
import type { EventMessage, EventType, SessionState } from "../protocol/schemas.ts";
import type { AttachedStream } from "../session/stream.ts";

/** A line-protocol connection of the daemon's, over a ByteSink. */
export interface HostConnection {
  onData(bytes: Uint8Array): void;
  /** The sink has room again. */
  flush(): void;
  onClose(): void;
}

/** A subscriber's end: events as a connection gets them. */
export interface EventSink {
  readonly writable: boolean;
  /** Output as frames of this shape, made once for every subscriber in it (the live cast's: the bytes). */
  readonly framing?: OutputFraming | null;
  sendFrame?(frame: OutputFrame): void;
  sendEvent(e: EventMessage): void;
}

export interface HostSubscription {
  /** The sink has room again: what was held back goes on. */
  catchUp(): void;
  dispose(): void;
}

/** What GET /metrics reports. */
export interface MetricsView {
  sessions: { state: SessionState; outputBytes: number }[];
  counters: { bytesIn: number; bytesOut: number; connections: number };
  /** Per method: the upper bounds of its latency buckets are `latencyBucketsS` (the last bucket is above every bound). */
  methods: [string, { requests: number; errors: Map<string, number>; buckets: number[]; sumS: number }][];
  latencyBucketsS: readonly number[];
  uptimeS: number;
}

export interface WebHost {
  /** Shutting down: /healthz says so. */
  readonly stopping: boolean;
  /** Why a new connection is refused now (the daemon's connection limit), or null. */
  connectionRefusal(): { name: string; message: string } | null;
  /** A connection that speaks the socket's protocol (any dialect) over `sink`. */
  connect(sink: ByteSink, refusesFileParams: boolean): HostConnection;
  /**
   * One request's body (in the pieces it was read in) answered by a dialect for a client that
   * lives as long as the request: the reply's JSON, or null when nothing answers (only
   * notifications). `signal` ends its long calls.
   */
  answer(dialect: "native" | "trl", body: Uint8Array[], scope: { refusesFileParams: boolean; signal: AbortSignal }): Promise<string | null>;
  /** A method called for a client of its own, ended by `signal`. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>, signal: AbortSignal): Promise<ResultOf<M>>;
  /** A session by id or name, as attaching to it sees it (stream.ts); SESSION_NOT_FOUND otherwise. */
  session(ref: string): AttachedStream;
  /** `sink` subscribed to `events` of `session`, output from `from` on, as a connection's subscriber. */
  subscribe(
    session: AttachedStream,
    sink: EventSink,
    from: number,
    events: EventType[],
    opts: { stripQueries?: boolean },
  ): HostSubscription;
  metrics(): MetricsView;
  /** An error as the wire names it; a fault (not a client's error) is logged as `where`'s. */
  wireError(where: string, err: unknown): { name: string; message: string };
}
