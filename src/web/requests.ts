// Requests that come as one HTTP request each: POST /rpc (one JSON-RPC request or a batch) and
// POST /trl (one TRL request). Each runs on a connection of its own that lives as long as the
// request, through the same dispatch as the socket's lines; a subscription made there ends with it.
import { Connection, type ByteSink } from "../daemon/connection.ts";
import type { CallContext } from "../daemon/command.ts";
import type { Daemon } from "../daemon/daemon.ts";
import { dispatch, errorReply, refuse, type Reply } from "../daemon/dispatch.ts";
import { dialectNamed } from "../protocol/dialects/index.ts";
import { RpcError } from "../protocol/errors.ts";

/** The most reply text one batch may produce; later requests in it are refused unrun (as on the socket). */
const MAX_BATCH_REPLY = 16 * 1024 * 1024;

/** Events have nowhere to go on a one-request connection. */
export const NOWHERE: ByteSink = { write: (d) => d.length, end: () => {} };

export interface RequestScope {
  daemon: Daemon;
  refusesFileParams: boolean;
  /** Aborted when the HTTP client goes away: a long session.wait stops working for nobody. */
  signal: AbortSignal;
}

async function onConnection<T>(scope: RequestScope, fn: (ctx: CallContext, conn: Connection) => Promise<T>): Promise<T> {
  const conn = new Connection(NOWHERE, scope.daemon, undefined, null, scope.refusesFileParams);
  scope.daemon.connections.add(conn);
  scope.daemon.counters.connections++;
  const abort = new AbortController();
  const stop = () => abort.abort();
  scope.signal.addEventListener("abort", stop, { once: true });
  try {
    return await fn({ daemon: scope.daemon, conn, signal: abort.signal }, conn);
  } finally {
    scope.signal.removeEventListener("abort", stop);
    conn.onClose();
  }
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

/** POST /rpc: the reply (or the batch's replies) as JSON; 204 when everything was a notification. */
export function rpcRequest(body: string, scope: RequestScope): Promise<Response> {
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch (err) {
    return Promise.resolve(json(errorReply(null, new RpcError("PARSE_ERROR", `invalid JSON: ${(err as Error).message}`))));
  }
  return onConnection(scope, async (ctx) => {
    if (!Array.isArray(msg)) {
      const reply = await dispatch(msg, ctx);
      return reply ? json(reply) : new Response(null, { status: 204 });
    }
    if (msg.length === 0) return json(errorReply(null, new RpcError("INVALID_REQUEST", "empty batch")));
    const replies: Reply[] = [];
    let size = 0;
    for (const m of msg) {
      const reply =
        size > MAX_BATCH_REPLY
          ? refuse(m, new RpcError("PAYLOAD_TOO_LARGE", `batch reply over ${MAX_BATCH_REPLY} bytes; send this request again`))
          : await dispatch(m, ctx);
      if (!reply) continue;
      size += JSON.stringify(reply).length;
      replies.push(reply);
    }
    return replies.length > 0 ? json(replies) : new Response(null, { status: 204 });
  });
}

/** POST /trl: TRL's documented HTTP mode, one request in the body, its `{id, ok, …}` reply back. */
export function trlRequest(body: string, scope: RequestScope): Promise<Response> {
  const trl = dialectNamed("trl")!;
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch (err) {
    return Promise.resolve(json(trl.malformed(`invalid JSON: ${(err as Error).message}`)));
  }
  return onConnection(scope, async (ctx, conn) => json(await trl.handle(msg, conn.nativeCaller(ctx))));
}
