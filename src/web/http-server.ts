// termd over HTTP and WebSocket (`termd daemon --http HOST:PORT`): the same protocol as the Unix
// socket behind a bearer token, for remote clients, sandboxes and the attach page. Every request's
// Host must be one the daemon answers to; WebSocket upgrades and state-changing requests must come
// from its own origin (or an allowed one). Everything else goes through the daemon's own
// connections and dispatch, reached through a WebHost (web-host.ts); errors become one JSON shape
// here: {error: {code, message}}.
//
// The pieces: routes.ts (where a request goes), sign-in-gate.ts (the token, the cookie and the
// sign-in page), ws-routes.ts (the WebSocket upgrades and their sockets).
import type { Token } from "../protocol/token.ts";
import type { AddressPolicy, ListenAddress } from "./address.ts";
import type { WebHost } from "./web-host.ts";
import { HttpError } from "./http-error.ts";
import { Routes } from "./routes.ts";
import { SignInGate } from "./sign-in-gate.ts";
import { webSocketEvents, type WsData } from "./ws-routes.ts";

export interface HttpSettings {
  listen: ListenAddress;
  allowHosts: string[];
  allowOrigins: string[];
  /** Let remote clients use the params that write files on this machine (record, log_path, socket). */
  allowFiles: boolean;
}

export interface HttpServer {
  readonly url: string;
  stop(): void;
}

/**
 * Bun's own bound on a body, far above MAX_LINE_BYTES: readBody enforces that one with a JSON
 * error, where Bun's 413 has an empty body.
 */
const BUN_BODY_LIMIT = 1024 * 1024 * 1024;

const STATUS_OF: Record<string, number> = { SESSION_NOT_FOUND: 404, INVALID_PARAMS: 400, UNAUTHORIZED: 403, PAYLOAD_TOO_LARGE: 413 };

/** The one place an HTTP request's failure becomes a response. */
function errorResponse(host: WebHost, err: unknown): Response {
  if (err instanceof HttpError) {
    const headers: Record<string, string> =
      err.status === 401 ? { "WWW-Authenticate": 'Bearer realm="termd"', ...err.headers } : err.headers;
    return Response.json({ error: { code: err.code, message: err.message } }, { status: err.status, headers });
  }
  const e = host.wireError("an HTTP request", err);
  return Response.json({ error: { code: e.name, message: e.message } }, { status: STATUS_OF[e.name] ?? 500 });
}

export function serveHttp(host: WebHost, settings: HttpSettings, token: Token): HttpServer {
  const policy: AddressPolicy = { listen: settings.listen, allowHosts: settings.allowHosts, allowOrigins: settings.allowOrigins };
  const gate = new SignInGate(token);
  const routes = new Routes(host, policy, gate, !settings.allowFiles);
  const server = Bun.serve<WsData>({
    hostname: settings.listen.hostname,
    port: settings.listen.port,
    maxRequestBodySize: BUN_BODY_LIMIT,
    fetch: (req, server) => routes.handle(req, server).catch((err) => errorResponse(host, err)),
    websocket: webSocketEvents(host, !settings.allowFiles),
  });
  gate.cookieName = `termd-${server.port}`;
  const shownHost = settings.listen.hostname.includes(":") ? `[${settings.listen.hostname}]` : settings.listen.hostname;
  return { url: `http://${shownHost}:${server.port}`, stop: () => server.stop(true) };
}
