// A daemon core inside the calling process, with no socket of its own: the caller reaches it
// through `call` (validated like any request) and its sessions through their own sockets. What
// `interminai start --no-daemon` runs; with exitWhenEmpty it stops once its last session is removed.
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
import { Peer, NO_OUTLET } from "./peer.ts";
import { Daemon } from "./daemon.ts";
import type { DaemonOptions } from "./daemon-options.ts";
import { run } from "./dispatch.ts";

export interface InProcessDaemon {
  daemon: Daemon;
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

export function inProcessDaemon(opts: DaemonOptions): InProcessDaemon {
  const daemon = new Daemon(opts);
  // This caller is a client like any other: nothing is implied, and it subscribes to nothing.
  const peer = new Peer(NO_OUTLET);
  const ctx = { daemon, peer, signal: peer.signal };
  return { daemon, call: (method, params) => run(method, params, ctx) as Promise<never> };
}
