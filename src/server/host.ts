// The composition root of a process that hosts a daemon (`termd daemon`, `interminai start
// --no-daemon`): the one place the command line meets the daemon, its dialects and the HTTP
// transport. Only a process that hosts a daemon loads it; every other command reaches one through
// client/.
import type { DaemonOptions } from "../daemon/daemon.ts";
import { inProcessDaemon, type InProcessDaemon } from "../daemon/host.ts";
import { runDaemon as run } from "../daemon/main.ts";
import { DIALECTS } from "../dialects/index.ts";

export { DaemonStartError } from "../daemon/socket-path.ts";
export type { HttpSettings } from "../web/server.ts";
export { parseListen } from "../web/address.ts";

/** What a host chooses; the dialects are every one termd speaks. */
export type HostOptions = Omit<DaemonOptions, "dialects">;

/** Runs the daemon as this process until it is shut down (`termd daemon`). */
export function runDaemon(opts: HostOptions): Promise<number> {
  return run({ ...opts, dialects: DIALECTS });
}

/** A daemon inside this process, called directly (interminai's foreground start). */
export function hostInProcess(opts: HostOptions): InProcessDaemon {
  return inProcessDaemon({ ...opts, dialects: DIALECTS });
}
