// Requests that come as one HTTP request each: POST /rpc (one JSON-RPC request or a batch) and
// POST /trl (one TRL request). Each runs on a connection of its own that lives as long as the
// request and speaks that endpoint's dialect, exactly as a socket connection does; a subscription
// made there ends with it.
import { Connection, type ByteSink } from "../daemon/connection.ts";
import type { Daemon } from "../daemon/daemon.ts";
import { Serialized, type Dialect } from "../dialects/dialect.ts";
import { jsonRpc } from "../dialects/json-rpc.ts";

/** Events have nowhere to go on a one-request connection. */
export const NOWHERE: ByteSink = { write: (d) => d.length, end: () => {} };

export interface RequestScope {
  daemon: Daemon;
  refusesFileParams: boolean;
  /** Aborted when the HTTP client goes away: a long session.wait stops working for nobody. */
  signal: AbortSignal;
}

/** `body` handled by `dialect` on a connection of its own: the reply as JSON, 204 when there is none. */
async function oneRequest(dialect: Dialect, body: string, scope: RequestScope): Promise<Response> {
  const conn = new Connection(NOWHERE, scope.daemon, undefined, null, scope.refusesFileParams);
  scope.daemon.connections.add(conn);
  scope.daemon.counters.connections++;
  const close = () => conn.onClose();
  scope.signal.addEventListener("abort", close, { once: true });
  try {
    const speaker = conn.speakAs(dialect);
    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch (err) {
      return Response.json(speaker.malformed(`invalid JSON: ${(err as Error).message}`));
    }
    const reply = await speaker.handle(msg);
    if (reply === null) return new Response(null, { status: 204 });
    if (reply instanceof Serialized) return new Response(reply.json, { headers: { "Content-Type": "application/json;charset=utf-8" } });
    return Response.json(reply);
  } finally {
    scope.signal.removeEventListener("abort", close);
    conn.onClose();
  }
}

/** POST /rpc: native JSON-RPC, one request or a batch. */
export function rpcRequest(body: string, scope: RequestScope): Promise<Response> {
  return oneRequest(jsonRpc, body, scope);
}

/** POST /trl: TRL's documented HTTP mode, one `{id, method, params}` request, its `{id, ok, …}` reply. */
export function trlRequest(body: string, scope: RequestScope): Promise<Response> {
  return oneRequest(scope.daemon.dialects.named("trl")!, body, scope);
}
