// A daemon core inside the calling process, with no socket of its own: the caller reaches it
// through `call` (validated like any request) and its sessions through their own sockets. What
// `interminai start --no-daemon` runs; with exitWhenEmpty it stops once its last session is removed.
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
import type { Connection } from "./connection.ts";
import { Daemon, type DaemonOptions } from "./daemon.ts";
import { run } from "./dispatch.ts";

export interface InProcessDaemon {
  daemon: Daemon;
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

export function inProcessDaemon(opts: DaemonOptions): InProcessDaemon {
  const daemon = new Daemon(opts);
  // This caller has no connection: nothing is implied, and nothing aborts its calls.
  const conn: Pick<Connection, "impliedSession" | "subscription" | "pendingWaits" | "subscriptionCount" | "refusesFileParams"> = {
    impliedSession: undefined,
    subscription: () => undefined,
    pendingWaits: 0,
    subscriptionCount: 0,
    refusesFileParams: false,
  };
  const ctx = { daemon, conn: conn as Connection, signal: new AbortController().signal };
  return { daemon, call: (method, params) => run(method, params, ctx) as Promise<never> };
}
