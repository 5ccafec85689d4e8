// The composition root of a process that hosts a daemon (`termd daemon`, `interminai start
// --no-daemon`): the one place the command line meets the daemon, its dialects and the HTTP
// transport, which reaches the daemon only through the WebHost made here (web-host.ts). Only a
// process that hosts a daemon loads it; every other command reaches one through client/.
import type { Daemon, DaemonOptions } from "../daemon/daemon.ts";
import { inProcessDaemon, type InProcessDaemon } from "../daemon/host.ts";
import { runDaemon as run } from "../daemon/main.ts";
import { DIALECTS } from "../dialects/index.ts";
import { loadToken } from "../protocol/token.ts";
import { serveHttp, type HttpSettings } from "../web/server.ts";
import { webHost } from "./web-host.ts";

export { DaemonStartError } from "../daemon/socket-path.ts";
export type { HttpSettings } from "../web/server.ts";
export { parseListen } from "../web/address.ts";

/** What a host chooses; the dialects are every one termd speaks. */
export type HostOptions = Omit<DaemonOptions, "dialects">;

/** Runs the daemon as this process until it is shut down (`termd daemon`), over HTTP too with `http` (--http). */
export function runDaemon(opts: HostOptions & { http?: HttpSettings }): Promise<number> {
  const { http, ...rest } = opts;
  const transport = http
    ? (daemon: Daemon) => {
        const token = loadToken(opts.stateDir);
        const server = serveHttp(webHost(daemon), http, token);
        console.error(`termd: http on ${server.url} (token from ${token.source})`);
        return server;
      }
    : undefined;
  return run({ ...rest, dialects: DIALECTS }, transport);
}

/** A daemon inside this process, called directly (interminai's foreground start). */
export function hostInProcess(opts: HostOptions): InProcessDaemon {
  return inProcessDaemon({ ...opts, dialects: DIALECTS });
}
