// What a dialect is: the adapter between one wire protocol and the native methods. Each
// connection speaks one dialect, picked by its first message; the dialect opens a
// DialectConnection for it, which turns every message into a reply and every native event into
// what its client expects. A dialect owns no sessions and no logic beyond the mapping: everything
// it does goes through NativeCaller, so the daemon validates and serves it like any native call.
// What it must remember lives in one of two places: its DialectConnection (gone with the
// connection) or NativeCaller.sessionState (gone with the session).
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
import type { EncodedLine, OutputFraming } from "../protocol/output-frame.ts";
import type { EventMessage } from "../protocol/schemas.ts";

export interface NativeCaller {
  /** Runs a native method (validated as any request is); rejects with RpcError. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** The same for a method named at run time (a JSON-RPC request's): an unknown one is METHOD_NOT_FOUND. */
  run(method: string, params: unknown): Promise<unknown>;
  /** The session a per-session socket stands for; undefined on the daemon's main socket. */
  readonly session: string | undefined;
  /**
   * This dialect's state for session `id`, made by `init` on first use: kept with the session
   * and dropped with it. Throws SESSION_NOT_FOUND for a session that is gone.
   */
  sessionState<T>(id: string, init: () => T): T;
  /** Sends an unsolicited message in the dialect's own shape (e.g. a notification). */
  send(msg: unknown): void;
  /** Closes the connection once what is queued has been written. */
  end(): void;
  /** Aborted when the connection closes: a long mapping (a wait loop) stops working for nobody. */
  readonly signal: AbortSignal;
  /**
   * Resolves in a later turn of the daemon's thread, once the other connections waiting had
   * theirs: a long run of requests (a batch's) takes turns like a connection's lines.
   */
  later(): Promise<void>;
}

/** A reply already turned into its JSON text (a batch's, measured as it was built): sent as it is. */
export class Serialized {
  constructor(readonly json: string) {}
}

/** One connection's side of a dialect. */
export interface DialectConnection {
  /** One message → the reply to send (null: none; Serialized: JSON text). Errors come back in the dialect's own shape. */
  handle(msg: unknown): Promise<unknown>;
  /** The reply to a line that is not JSON or not UTF-8, in the dialect's own shape. */
  malformed(message: string): unknown;
  /** The reply when handle() itself threw (a fault, not a request's error); default: malformed's shape. */
  fault?(err: unknown): unknown;
  /** A native event for this connection (it subscribed): sent on in the dialect's shape, or dropped. */
  event(e: EventMessage): void;
  /**
   * How its output events look as lines, when that is all event() would make of them: each is then
   * made once and the same line sent to every such connection (daemon/output-frames.ts).
   */
  readonly framing?: OutputFraming<EncodedLine> | null;
  /** Its output events should carry the vt tap's plain text instead of bytes (ralph's lines). */
  readonly plainText: boolean;
}

export interface Dialect {
  readonly name: string;
  /** Does a connection whose first message is `msg` speak this dialect? */
  claims(msg: Record<string, unknown>): boolean;
  /** A connection that speaks it. */
  open(native: NativeCaller): DialectConnection;
  /** One request per connection (interminai's model): the connection closes after the first reply. */
  readonly oneShot?: boolean;
  /** As a session socket's own dialect: the socket closes when its session ends (ralph's). */
  readonly endsWithSession?: boolean;
}

/**
 * A dialect whose connections keep nothing of their own and take no events (a request/reply
 * protocol such as the console server's): one function per message.
 */
export function requestReply(d: {
  name: string;
  claims(msg: Record<string, unknown>): boolean;
  handle(msg: unknown, native: NativeCaller): Promise<unknown>;
  malformed(message: string): unknown;
  oneShot?: boolean;
}): Dialect {
  return {
    name: d.name,
    claims: d.claims,
    oneShot: d.oneShot,
    open: (native) => ({ handle: (msg) => d.handle(msg, native), malformed: d.malformed, event: () => {}, plainText: false }),
  };
}
