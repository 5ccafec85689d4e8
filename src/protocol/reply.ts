// JSON-RPC 2.0 replies as they go on the wire: what the daemon's connections, the native dialect
// and the HTTP transport all answer with.
import { toRpcError, type WireError } from "./errors.ts";

export type Id = string | number | null;
export type Reply = { jsonrpc: "2.0"; id: Id; result: unknown } | { jsonrpc: "2.0"; id: Id; error: WireError };

/** An id a request may carry: a string, a finite number or null. */
export function isId(x: unknown): x is Id {
  return x === null || typeof x === "string" || (typeof x === "number" && Number.isFinite(x));
}

/** The error reply for `err`: an RpcError as it is, anything else as INTERNAL_ERROR. */
export function errorReply(id: Id, err: unknown): Reply {
  return { jsonrpc: "2.0", id, error: toRpcError(err).toWire() };
}
