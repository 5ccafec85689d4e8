// The shape of one method handler: a declarative entry with its params schema and, for a method
// on one session, its target. Handlers return a result or throw (an RpcError, the session layer's
// TermdError, or anything: the dispatcher turns it into a reply).
import type * as v from "valibot";
import type { MethodName, ResultOf } from "../protocol/methods.ts";
import type { Session } from "../session/session.ts";
import type { DaemonContext } from "./daemon-context.ts";
import type { Peer } from "./peer.ts";

export interface CallContext {
  daemon: DaemonContext;
  peer: Peer;
  /** Aborted when the client goes away, so long calls (wait) stop working for nobody. */
  signal: AbortSignal;
}

/**
 * What a method on one session needs of it, as tmux's command table declares a target: dispatch
 * finds the session its params name and makes these checks once, before the handler runs.
 */
export interface Target {
  /** Its program must still run (SESSION_NOT_RUNNING). */
  running?: boolean;
  /** It must not be held by another client (SESSION_HELD); names what a holder's refusal refuses. */
  write?: string;
  /** Typing into it: a client attached read-only may not (UNAUTHORIZED). */
  typing?: boolean;
}

type Result<M extends MethodName> = ResultOf<M> | Promise<ResultOf<M>>;

/** The session a call's params named: always there when `session` is required, else when given. */
export type TargetOf<P> = P extends { session: string } ? Session : Session | undefined;

export interface Command<M extends MethodName = MethodName, S extends v.GenericSchema = v.GenericSchema> {
  name: M;
  params: S;
  /** Set for a method on one session (the params' `session`); see Target. */
  target?: Target | ((params: v.InferOutput<S>) => Target);
  exec(params: v.InferOutput<S>, ctx: CallContext, session: TargetOf<v.InferOutput<S>>): Result<M>;
}

/** A method on the daemon (no session, or every session). */
export function command<M extends MethodName, S extends v.GenericSchema>(c: {
  name: M;
  params: S;
  exec(params: v.InferOutput<S>, ctx: CallContext): Result<M>;
}): Command<M, S> {
  return c;
}

/** A method on the session its params name, handed to `exec` found and checked. */
export function sessionCommand<M extends MethodName, S extends v.GenericSchema>(c: Required<Command<M, S>>): Command<M, S> {
  return c;
}
