// Requests that come as one HTTP request each: POST /rpc (one JSON-RPC request or a batch) and
// POST /trl (one TRL request). Each is a client of its own that lives as long as the request, through
// the same dialects and dispatch as the socket's lines, its reply answered in the response's body;
// a subscription made there ends with it, and its events go nowhere.
import { Client } from "../daemon/client.ts";
import { nativeCaller } from "../daemon/connection.ts";
import type { Daemon } from "../daemon/daemon.ts";
import { Serialized, type Dialect } from "../dialects/dialect.ts";
import type { EventMessage } from "../protocol/schemas.ts";

export interface RequestScope {
  daemon: Daemon;
  refusesFileParams: boolean;
  /** Aborted when the HTTP client goes away: a long session.wait stops working for nobody. */
  signal: AbortSignal;
}

/** `body` answered by `dialect` for a client of its own that lives as long as the request. */
async function answer(scope: RequestScope, dialect: Dialect, body: string): Promise<Response> {
  const { daemon } = scope;
  const close = () => {
    client.close();
    daemon.connections.delete(client);
  };
  // The daemon closing, or the HTTP client going away, ends it, and so its long calls (a session.wait).
  const outlet = {
    writable: true,
    get plainText() {
      return speaker.plainText ?? false;
    },
    event: (e: EventMessage) => speaker.event(e),
    end: close,
  };
  const client: Client = new Client(outlet, { refusesFileParams: scope.refusesFileParams });
  const speaker = dialect.open(nativeCaller(daemon, client, dialect, { send: () => {}, end: close }));
  daemon.connections.add(client);
  daemon.counters.connections++;
  scope.signal.addEventListener("abort", close, { once: true });
  try {
    let msg: unknown;
    let reply: unknown;
    try {
      msg = JSON.parse(body);
    } catch (err) {
      reply = speaker.malformed(`invalid JSON: ${(err as Error).message}`);
    }
    if (msg !== undefined) reply = await speaker.handle(msg);
    if (reply === null) return new Response(null, { status: 204 });
    return new Response(reply instanceof Serialized ? reply.json : JSON.stringify(reply), {
      headers: { "content-type": "application/json" },
    });
  } finally {
    scope.signal.removeEventListener("abort", close);
    close();
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
