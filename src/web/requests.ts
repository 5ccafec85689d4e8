// Requests that come as one HTTP request each: POST /rpc (one JSON-RPC request or a batch) and
// POST /trl (one TRL request). Each runs on a connection of its own that lives as long as the
// request, through the same dispatch as the socket's lines; a subscription made there ends with it.
import { Connection, type ByteSink } from "../daemon/connection.ts";
import type { Daemon } from "../daemon/daemon.ts";
import { Serialized, type Dialect } from "../dialects/dialect.ts";

/** Events have nowhere to go on a one-request connection. */
export const NOWHERE: ByteSink = { write: (d) => d.length, end: () => {} };

export interface RequestScope {
  daemon: Daemon;
  refusesFileParams: boolean;
  /** Aborted when the HTTP client goes away: a long session.wait stops working for nobody. */
  signal: AbortSignal;
}

/** `body` answered by `dialect` on a connection of its own that lives as long as the request. */
async function answer(scope: RequestScope, dialect: Dialect, body: string): Promise<Response> {
  const conn = new Connection(NOWHERE, scope.daemon, undefined, null, scope.refusesFileParams);
  scope.daemon.connections.add(conn);
  scope.daemon.counters.connections++;
  // The HTTP client going away ends the connection, and so its long calls (a session.wait).
  const close = () => conn.onClose();
  scope.signal.addEventListener("abort", close, { once: true });
  try {
    const reply = await conn.answer(body, dialect);
    if (reply === null) return new Response(null, { status: 204 });
    return new Response(reply instanceof Serialized ? reply.json : JSON.stringify(reply), { headers: { "content-type": "application/json" } });
  } finally {
    scope.signal.removeEventListener("abort", close);
    conn.onClose();
  }
}

/** POST /rpc: the reply (or the batch's replies) as JSON; 204 when everything was a notification. */
export function rpcRequest(body: string, scope: RequestScope): Promise<Response> {
  return answer(scope, scope.daemon.dialects.native, body);
}

/** POST /trl: TRL's documented HTTP mode, one request in the body, its `{id, ok, …}` reply back. */
export function trlRequest(body: string, scope: RequestScope): Promise<Response> {
  return answer(scope, scope.daemon.dialects.named("trl")!, body);
}
