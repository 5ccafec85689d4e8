// The one place where what the session and terminal layers throw (TermdError, a domain error)
// becomes a wire error (RpcError). dispatch.ts's run() passes every error through here, so native
// replies and the dialects, which call native methods through run(), see only RpcErrors.
import { RpcError, toRpcError, type ErrorName } from "../protocol/errors.ts";
import { errorReply as wireReply, type Id, type Reply } from "../protocol/reply.ts";
import { TermdError, type TermdErrorCode } from "../terminal/errors.ts";
import { clientLog } from "../session/client-log.ts";

/** Each domain code's wire error name (and so its number, protocol/errors.ts's APP_CODES). */
const WIRE_NAME: Record<TermdErrorCode, ErrorName> = {
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  SESSION_NOT_RUNNING: "SESSION_NOT_RUNNING",
  NAME_TAKEN: "NAME_TAKEN",
  SPAWN_FAILED: "SPAWN_FAILED",
  NOT_A_SHELL: "NOT_A_SHELL",
  SESSION_BUSY: "SESSION_BUSY",
  INPUT_NOT_READ: "INPUT_NOT_READ",
  BAD_ARGUMENT: "INVALID_PARAMS",
  LIMIT_REACHED: "LIMIT_REACHED",
  MOUSE_NOT_ENABLED: "MOUSE_NOT_ENABLED",
  SESSION_HELD: "SESSION_HELD",
};

/** A TermdError as its RpcError (same message and details); anything else is returned as it is. */
export function wireError(err: unknown): unknown {
  if (!(err instanceof TermdError)) return err;
  const e = new RpcError(WIRE_NAME[err.code], err.message, err.details);
  e.stack = err.stack;
  return e;
}

/** Whatever was thrown, as the RpcError its reply carries (unknown errors: INTERNAL_ERROR). */
export function replyError(err: unknown): RpcError {
  return toRpcError(wireError(err));
}

export type { Id, Reply } from "../protocol/reply.ts";

/** Faults already logged: one that travels on through a dialect or a reply is not logged twice. */
const logged = new WeakSet<object>();

/**
 * Logs a fault, anything thrown that is no RpcError or TermdError, once, with `where` it happened
 * (the method a request called), in the rate-limited log of what clients caused. Those are a
 * client's errors, answered and not logged.
 */
export function logFault(where: string, err: unknown): void {
  if (err instanceof RpcError || err instanceof TermdError) return;
  // Work dropped because its client went away (CallContext's signal) is no fault either.
  if (err instanceof DOMException && err.name === "AbortError") return;
  if (typeof err === "object" && err !== null) {
    if (logged.has(err)) return;
    logged.add(err);
  }
  clientLog.log(`termd: internal error in ${where}:`, err);
}

/** A JSON-RPC error reply for whatever was thrown; a fault is logged too. */
export function errorReply(id: Id, err: unknown): Reply {
  logFault("a request", err);
  return wireReply(id, replyError(err));
}
