// The one place where a parsed JSON-RPC message becomes a reply: it checks the envelope,
// validates params against the method's schema, runs the handler, and turns whatever it threw
// into an error object. Nothing thrown here ever reaches the socket layer.
import * as v from "valibot";
import { RpcError, type WireError } from "../protocol/errors.ts";
import { replyError, wireError } from "./errors.ts";
import type { CallContext, Command } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { RALPH_METHODS } from "../protocol/dialects/ralph.ts";
import { refuseFileParams } from "./file-params.ts";

type Id = string | number | null;
export type Reply = { jsonrpc: "2.0"; id: Id; result: unknown } | { jsonrpc: "2.0"; id: Id; error: WireError };

export function errorReply(id: Id, err: unknown): Reply {
  const e = replyError(err);
  if (e.name === "INTERNAL_ERROR") console.error("termd: internal error:", err);
  return { jsonrpc: "2.0", id, error: e.toWire() };
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((i) => {
      const path = i.path?.map((p) => String(p.key)).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}

/** The same, as data a client can put in its own words (the CLI names its flags): at most 10, values cut short. */
function issueDetails(issues: readonly v.BaseIssue<unknown>[]): { path: string; expected: string | null; received: string; message: string }[] {
  return issues.slice(0, 10).map((i) => ({
    path: i.path?.map((p) => String(p.key)).join(".") ?? "",
    expected: i.expected,
    received: String(i.received).slice(0, 64),
    message: i.message.slice(0, 200),
  }));
}

function isId(x: unknown): x is Id {
  return x === null || typeof x === "string" || (typeof x === "number" && Number.isFinite(x));
}

interface Request {
  id: Id;
  notification: boolean;
  method: string;
  params: unknown;
}

/** The request in a parsed message, or the reply refusing it. */
function parseRequest(msg: unknown): Request | Reply {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
    return errorReply(null, new RpcError("INVALID_REQUEST", "a request must be a JSON object"));
  }
  const req = msg as Record<string, unknown>;
  const id: Id = isId(req.id) ? req.id : null;
  if (req.jsonrpc !== "2.0" || typeof req.method !== "string" || ("id" in req && !isId(req.id))) {
    return errorReply(id, new RpcError("INVALID_REQUEST", 'a request needs "jsonrpc":"2.0", a string "method" and an optional id'));
  }
  return { id, notification: !("id" in req), method: req.method, params: req.params };
}

/** Runs one request object; resolves to its reply, or null for a notification. */
export async function dispatch(msg: unknown, ctx: CallContext): Promise<Reply | null> {
  const req = parseRequest(msg);
  if (!("method" in req)) return req;
  const reply = await run(req.method, req.params, ctx).then(
    (result): Reply => ({ jsonrpc: "2.0", id: req.id, result }),
    (err): Reply => errorReply(req.id, err),
  );
  return req.notification ? null : reply;
}

/** The reply to a request answered with `err` without running it; null for a notification. */
export function refuse(msg: unknown, err: RpcError): Reply | null {
  const req = parseRequest(msg);
  if (!("method" in req)) return req;
  return req.notification ? null : errorReply(req.id, err);
}

/**
 * A session's own socket is handed to whoever drives that session (an agent, a ralph loop): it
 * reaches that session and nothing else — no other session, no listing, no create, no shutdown.
 */
function confine(method: string, params: unknown, implied: string, ctx: CallContext): void {
  if (method === "system.ping") return;
  const ref = typeof params === "object" && params !== null ? (params as { session?: unknown }).session : undefined;
  if (typeof ref === "string" && ctx.daemon.store.get(ref).id === implied) return;
  throw new RpcError("UNAUTHORIZED", `${method}: this socket serves only its own session`);
}

/**
 * Validates and runs one native method; what dialects call too. Throws RpcError (the session
 * layer's domain errors become theirs here) or, for a fault, whatever was thrown.
 */
export async function run(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  try {
    return await runMethod(method, params, ctx);
  } catch (err) {
    throw wireError(err);
  }
}

async function runMethod(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  const cmd = COMMANDS.get(method) as Command | undefined;
  if (!cmd) {
    // ralph's methods are native aliases on a per-session socket; they map onto native calls.
    const onSessionSocket = ctx.conn.impliedSession !== undefined;
    const alias = onSessionSocket ? RALPH_METHODS.get(method) : undefined;
    if (alias) return await alias(params, ctx.conn.nativeCaller(ctx));
    const message = onSessionSocket ? `Method not found: ${method}` : `unknown method ${JSON.stringify(method)}`;
    throw new RpcError("METHOD_NOT_FOUND", message, { method });
  }
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw new RpcError("INVALID_PARAMS", `${method}: params must be an object`);
  }
  // On a per-session socket the session is implied (the interminai and ralph model).
  const implied = ctx.conn.impliedSession;
  if (implied !== undefined && (params === undefined || !("session" in (params as object)))) {
    params = { ...(params as object | undefined), session: implied };
  }
  if (ctx.conn.refusesFileParams) refuseFileParams(method, params);
  const parsed = v.safeParse(cmd.params, params);
  if (!parsed.success) throw new RpcError("INVALID_PARAMS", `${method}: ${describeIssues(parsed.issues)}`, { issues: issueDetails(parsed.issues) });
  if (implied !== undefined) confine(method, parsed.output, implied, ctx);
  ctx.daemon.counters.requests++;
  return await cmd.exec(parsed.output, ctx);
}
