// What a compatibility dialect is: a thin adapter that maps a foreign wire protocol's messages
// onto the native methods. It owns no sessions and no logic beyond the mapping; everything it
// does goes through NativeCaller, so the daemon validates and serves it like any native call.
import type { MethodName, ParamsOf, ResultOf } from "../methods.ts";
import type { EventMessage } from "../schemas.ts";

export interface NativeCaller {
  /** Runs a native method (validated as any request is); rejects with RpcError. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Native events this connection receives after a session.subscribe call. */
  onEvent(fn: (e: EventMessage) => void): () => void;
  /** The session a per-session socket stands for; undefined on the daemon's main socket. */
  readonly session: string | undefined;
  /** Sends an unsolicited message in the dialect's own shape (e.g. a notification). */
  send(msg: unknown): void;
  /** Closes the connection once what is queued has been written. */
  end(): void;
  /** Aborted when the connection closes: a long mapping (a wait loop) stops working for nobody. */
  readonly signal: AbortSignal;
}

export interface Dialect {
  readonly name: string;
  /** Does a connection whose first message is `msg` speak this dialect? */
  claims(msg: Record<string, unknown>): boolean;
  /** One message → the reply to send (null: none). Errors come back in the dialect's own shape. */
  handle(msg: unknown, native: NativeCaller): Promise<unknown>;
  /** The reply to a line that is not JSON or not UTF-8, in the dialect's own shape. */
  malformed(message: string): unknown;
  /** One request per connection (interminai's model): the connection closes after the first reply. */
  readonly oneShot?: boolean;
}
