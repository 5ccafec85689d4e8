// The composition root of a process that hosts a daemon (`termd daemon`, `interminai start
// --no-daemon`): the one place the command line meets the daemon, its dialects and the HTTP
// transport, which reaches the daemon only through the WebHost made here (daemon-web-host.ts). Only a
// process that hosts a daemon loads it; every other command reaches one through client/.
import type { Daemon } from "../daemon/daemon.ts";
import type { DaemonOptions } from "../daemon/daemon-options.ts";
import { inProcessDaemon, type InProcessDaemon } from "../daemon/in-process-daemon.ts";
import { runDaemon as run } from "../daemon/main.ts";
import { DIALECTS } from "../dialects/index.ts";
import type { HttpSettings } from "../web/http-server.ts";

export { DaemonStartError } from "../daemon/socket-path.ts";
export { dryRun as checkHandover } from "../daemon/handover-record.ts";
export type { HttpSettings };
export { parseListen } from "../web/address.ts";

/** What a host chooses; the dialects are every one termd speaks. */
export type HostOptions = Omit<DaemonOptions, "dialects">;

/** Runs the daemon as this process until it is shut down (`termd daemon`), over HTTP too with `http` (--http). */
export async function runDaemon(opts: HostOptions & { http?: HttpSettings }): Promise<number> {
  const { http, ...rest } = opts;
  // The HTTP side (server, page, token) is loaded only by a daemon that serves it: it is a few MB
  // of a daemon's memory that a daemon without --http never uses.
  const web = http ? await loadWeb() : null;
  const transport =
    http && web
      ? (daemon: Daemon) => {
          const { loadToken, serveHttp, webHost } = web;
          const token = loadToken(opts.stateDir);
          // After a handover, a port the system picked (port 0) is the one the last image had.
          const handed = daemon.options.handover?.http_port ?? null;
          const listen = http.listen.port === 0 && handed !== null ? { ...http.listen, port: handed } : http.listen;
          const server = serveHttp(webHost(daemon), { ...http, listen }, token);
          daemon.httpPort = Number(new URL(server.url).port);
          console.error(`termd: http on ${server.url} (token from ${token.source})`);
          return server;
        }
      : undefined;
  return run({ ...rest, dialects: DIALECTS }, transport);
}

async function loadWeb() {
  const [{ loadToken }, { serveHttp }, { webHost }] = await Promise.all([
    import("../protocol/token.ts"),
    import("../web/http-server.ts"),
    import("./daemon-web-host.ts"),
  ]);
  return { loadToken, serveHttp, webHost };
}

/** A daemon inside this process, called directly (interminai's foreground start). */
export function hostInProcess(opts: HostOptions): InProcessDaemon {
  return inProcessDaemon({ ...opts, dialects: DIALECTS });
}
