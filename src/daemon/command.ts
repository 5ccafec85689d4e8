// The shape of one method handler: a declarative entry with its params schema. Handlers return a
// result or throw (an RpcError, the session layer's TermdError, or anything: the dispatcher turns
// it into a reply).
import type * as v from "valibot";
import type { MethodName, ResultOf } from "../protocol/methods.ts";
import type { Daemon } from "./daemon.ts";
import type { Connection } from "./connection.ts";

export interface CallContext {
  daemon: Daemon;
  conn: Connection;
  /** Aborted when the connection closes, so long calls (wait) stop working for nobody. */
  signal: AbortSignal;
}

export interface Command<M extends MethodName = MethodName, S extends v.GenericSchema = v.GenericSchema> {
  name: M;
  params: S;
  exec(params: v.InferOutput<S>, ctx: CallContext): ResultOf<M> | Promise<ResultOf<M>>;
}

export function command<M extends MethodName, S extends v.GenericSchema>(c: Command<M, S>): Command<M, S> {
  return c;
}
