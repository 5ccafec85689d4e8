// The one place where a method call, from any dialect, becomes a handler's run: it validates the
// params against the method's schema, confines a session socket to its session, finds the session
// the handler declares as its target and checks it, runs the handler, and turns what it threw into
// an RpcError (errors.ts), which each dialect puts in its own shape.
import * as v from "valibot";
import { RpcError } from "../protocol/errors.ts";
import { logFault, wireError } from "./errors.ts";
import type { Session } from "../session/session.ts";
import type { CallContext, Command } from "./command.ts";
import { checkTarget } from "./target.ts";
import { refuseFileParams } from "./file-params.ts";

let table: ReadonlyMap<string, Command<any, any>> | null = null;

/**
 * The method table, loaded with the first call. Required, not imported: its handlers bring the
 * session machinery's modules, which a daemon no client has called yet does not need.
 */
function commands(): ReadonlyMap<string, Command<any, any>> {
  table ??= (require("./commands/index.ts") as typeof import("./commands/index.ts")).COMMANDS;
  return table;
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
function issueDetails(
  issues: readonly v.BaseIssue<unknown>[],
): { path: string; expected: string | null; received: string; message: string }[] {
  return issues.slice(0, 10).map((i) => ({
    path: i.path?.map((p) => String(p.key)).join(".") ?? "",
    expected: i.expected,
    received: String(i.received).slice(0, 64),
    message: i.message.slice(0, 200),
  }));
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

/** The session a call acts on, found, with the checks its command declares made (target.ts). */
function findTarget(cmd: Command, params: { session?: string }, ctx: CallContext): Session | undefined {
  if (!cmd.target || params.session === undefined) return undefined;
  const s = ctx.daemon.store.get(params.session);
  checkTarget(typeof cmd.target === "function" ? cmd.target(params) : cmd.target, s, ctx);
  return s;
}

/**
 * Validates and runs one native method; what dialects call too. Throws RpcError (the session
 * layer's domain errors become theirs here) or, for a fault, whatever was thrown.
 */
export async function run(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  const started = performance.now();
  const counted = commands().has(method) ? method : "unknown";
  try {
    const result = await runMethod(method, params, ctx);
    ctx.daemon.metrics.observe(counted, (performance.now() - started) / 1000);
    return result;
  } catch (err) {
    logFault(method.slice(0, 64), err);
    const e = wireError(err);
    ctx.daemon.metrics.observe(counted, (performance.now() - started) / 1000, e instanceof RpcError ? e.name : "INTERNAL_ERROR");
    throw e;
  }
}

async function runMethod(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  const cmd = commands().get(method) as Command | undefined;
  if (!cmd) {
    // On a session socket, in JSON-RPC's own words (ralph's clients read them).
    const message = ctx.peer.impliedSession !== undefined ? `Method not found: ${method}` : `unknown method ${JSON.stringify(method)}`;
    throw new RpcError("METHOD_NOT_FOUND", message, { method });
  }
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw new RpcError("INVALID_PARAMS", `${method}: params must be an object`);
  }
  // On a per-session socket the session is implied (the interminai and ralph model).
  const implied = ctx.peer.impliedSession;
  if (implied !== undefined && (params === undefined || !("session" in (params as object)))) {
    params = { ...(params as object | undefined), session: implied };
  }
  if (ctx.peer.refusesFileParams) refuseFileParams(method, params);
  const parsed = v.safeParse(cmd.params, params);
  if (!parsed.success)
    throw new RpcError("INVALID_PARAMS", `${method}: ${describeIssues(parsed.issues)}`, { issues: issueDetails(parsed.issues) });
  if (implied !== undefined) confine(method, parsed.output, implied, ctx);
  ctx.daemon.counters.requests++;
  const session = findTarget(cmd, parsed.output as { session?: string }, ctx);
  return await cmd.exec(parsed.output, ctx, session);
}
