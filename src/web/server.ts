// termd over HTTP and WebSocket (`termd daemon --http HOST:PORT`): the same protocol as the Unix
// socket behind a bearer token, for remote clients, sandboxes and the attach page. Every request's
// Host must be one the daemon answers to; WebSocket upgrades and state-changing requests must come
// from its own origin (or an allowed one). Everything else goes through the daemon's own
// connections and dispatch, reached through a WebHost (host.ts); errors become one JSON shape
// here: {error: {code, message}}.
import type { Server, ServerWebSocket } from "bun";
import { MAX_LINE_BYTES } from "../protocol/framing.ts";
import type { AttachedStream } from "../session/stream.ts";
import { hostAllowed, originAllowed, type AddressPolicy, type ListenAddress } from "./address.ts";
import { pageAssets } from "./assets.ts";
import { castDownload, LiveCast } from "./cast.ts";
import { formField, readBody, readBodyPieces } from "./body.ts";
import type { HostConnection, WebHost } from "./host.ts";
import { HttpError } from "./http-error.ts";
import { loginPage } from "./login.ts";
import { LoginThrottle } from "./login-throttle.ts";
import { metricsText, METRICS_CONTENT_TYPE } from "./metrics.ts";
import { SIGN_IN_TTL_S, SignIns } from "./sign-ins.ts";
import type { Token } from "../protocol/token.ts";
import { sameSecret } from "./token.ts";
import { messageAsLine, WebSocketSink } from "./ws-sink.ts";

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

/** A WebSocket's own bound on unsent bytes is far above the connection's, which governs. */
const WS_BACKPRESSURE_LIMIT = 64 * 1024 * 1024;
/** A sign-in form's body, at most. */
const MAX_FORM_BYTES = 64 * 1024;
/**
 * Bun's own bound on a body, far above MAX_LINE_BYTES: readBody enforces that one with a JSON
 * error, where Bun's 413 has an empty body.
 */
const BUN_BODY_LIMIT = 1024 * 1024 * 1024;
const SUBPROTOCOL = "termd";
/** Clients that cannot set headers on a WebSocket (Node's, a browser elsewhere) offer the token as a subprotocol. */
const BEARER_SUBPROTOCOL = "termd.bearer.";

const PAGE_HEADERS = {
  // xterm.js writes <style> elements of its own; nothing else is inline, nothing comes from elsewhere.
  "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts.
  "Referrer-Policy": "same-origin",
};

type WsData = { kind: "rpc"; conn?: HostConnection } | { kind: "cast"; session: AttachedStream; cast?: LiveCast };

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

function cookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** A path segment's percent-escapes decoded; a bad one (`%ZZ`) is the client's error. */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "BAD_REQUEST", `bad percent-escape in the path: ${JSON.stringify(raw.slice(0, 64))}`);
  }
}

/** The request's URL: a request without a Host (HTTP/1.0, or an empty one) has none and is refused. */
function urlOf(req: Request): URL {
  const url = req.headers.get("host") ? URL.parse(req.url) : null;
  if (!url) throw new HttpError(400, "BAD_REQUEST", "a request must carry a Host header naming this daemon");
  return url;
}

function subprotocols(req: Request): string[] {
  return (req.headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function serveHttp(host: WebHost, settings: HttpSettings, token: Token): HttpServer {
  const policy: AddressPolicy = { listen: settings.listen, allowHosts: settings.allowHosts, allowOrigins: settings.allowOrigins };
  const signIns = new SignIns();
  const throttle = new LoginThrottle();
  let cookieName = "termd";

  function authenticated(req: Request): boolean {
    // A Bearer header has the final say; any other scheme (a reverse proxy's Basic credentials,
    // passed on) is not ours, and the subprotocol or the cookie may still sign the request in.
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
    if (bearer) return sameSecret(bearer[1]!, token.value);
    const offered = subprotocols(req).find((p) => p.startsWith(BEARER_SUBPROTOCOL));
    if (offered !== undefined) return sameSecret(offered.slice(BEARER_SUBPROTOCOL.length), token.value);
    const cookie = signInOf(req);
    return cookie !== undefined && signIns.valid(cookie);
  }

  const signInOf = (req: Request) => cookies(req.headers.get("cookie")).get(cookieName);

  function setCookie(req: Request, value: string, maxAge: number): string {
    const secure = urlOf(req).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";
    return `${cookieName}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
  }

  async function login(req: Request, server: Server<WsData>): Promise<Response> {
    const address = server.requestIP(req)?.address ?? "";
    const wait = throttle.wait(address);
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      throw new HttpError(429, "TOO_MANY_ATTEMPTS", `too many wrong tokens from ${address}: try again in ${s} s`, {
        "Retry-After": String(s),
      });
    }
    const given = await formField(req, await readBody(req, MAX_FORM_BYTES), "token");
    if (given === null || !sameSecret(given.trim(), token.value)) {
      throttle.failed(address);
      return new Response(loginPage("That is not this daemon's token."), {
        status: 401,
        headers: { "Content-Type": "text/html;charset=utf-8", ...PAGE_HEADERS },
      });
    }
    throttle.succeeded(address);
    return new Response(null, { status: 303, headers: { Location: "/", "Set-Cookie": setCookie(req, signIns.start(), SIGN_IN_TTL_S) } });
  }

  function logout(req: Request): Response {
    const cookie = signInOf(req);
    if (cookie !== undefined) signIns.end(cookie);
    return new Response(null, { status: 303, headers: { Location: "/", "Set-Cookie": setCookie(req, "", 0) } });
  }

  function upgrade(req: Request, server: Server<WsData>, data: WsData): Response | undefined {
    // Bun echoes the first subprotocol offered when none is chosen: for a client that offered only
    // termd.bearer.TOKEN that would send the token back. It must offer `termd` too, which is chosen.
    const offered = subprotocols(req);
    if (offered.length > 0 && !offered.includes(SUBPROTOCOL)) {
      throw new HttpError(
        400,
        "BAD_SUBPROTOCOL",
        `offer the WebSocket subprotocol "${SUBPROTOCOL}" (beside ${BEARER_SUBPROTOCOL}TOKEN, if that is how the token comes): the daemon answers with it and never echoes another`,
      );
    }
    const headers = offered.length > 0 ? { "Sec-WebSocket-Protocol": SUBPROTOCOL } : undefined;
    if (server.upgrade(req, { data, headers })) return undefined;
    throw new HttpError(400, "NOT_A_WEBSOCKET", `${urlOf(req).pathname} takes a WebSocket upgrade`);
  }

  /** POST /rpc and /trl: the reply (or a batch's replies) as JSON; 204 when everything was a notification. */
  async function request(req: Request, dialect: "native" | "trl"): Promise<Response> {
    const body = await readBodyPieces(req, MAX_LINE_BYTES);
    const json = await host.answer(dialect, body, { refusesFileParams: !settings.allowFiles, signal: req.signal });
    return json === null ? new Response(null, { status: 204 }) : new Response(json, { headers: { "content-type": "application/json" } });
  }

  async function handle(req: Request, server: Server<WsData>): Promise<Response | undefined> {
    const url = urlOf(req);
    // An orchestrator's liveness probe: no token, and any Host (a probe names the pod by address
    // or by a service name the daemon was not told of); it says nothing but whether it serves.
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return host.stopping
        ? new Response("stopping\n", { status: 503 })
        : new Response("ok\n", { headers: { "Content-Type": "text/plain; charset=utf-8" } });
    }
    const hostHeader = req.headers.get("host");
    if (!hostAllowed(hostHeader, policy)) {
      throw new HttpError(
        403,
        "FORBIDDEN_HOST",
        `Host ${JSON.stringify(hostHeader ?? "")} is not a name this daemon answers to (termd daemon --allow-host adds one)`,
      );
    }
    const isUpgrade = req.headers.get("upgrade")?.toLowerCase() === "websocket";
    const changesState = req.method !== "GET" && req.method !== "HEAD";
    if ((isUpgrade || changesState) && !originAllowed(req.headers.get("origin"), hostHeader, policy)) {
      throw new HttpError(
        403,
        "FORBIDDEN_ORIGIN",
        `Origin ${JSON.stringify(req.headers.get("origin"))} may not use this daemon (termd daemon --allow-origin adds one)`,
      );
    }
    const path = url.pathname;
    if (path === "/login" && req.method === "POST") return login(req, server);
    if (!authenticated(req)) {
      if (path === "/" && req.method === "GET" && !isUpgrade) {
        return new Response(loginPage(""), { status: 401, headers: { "Content-Type": "text/html;charset=utf-8", ...PAGE_HEADERS } });
      }
      throw new HttpError(401, "UNAUTHORIZED", "a valid token is required: Authorization: Bearer TOKEN (termd token shows it)");
    }
    const only = (method: string) => {
      if (req.method !== method) throw new HttpError(405, "METHOD_NOT_ALLOWED", `${path} takes ${method}`);
      // What follows opens a connection of the daemon's.
      const refused = path === "/rpc" || path === "/trl" || path === "/ws" ? host.connectionRefusal() : null;
      if (refused) throw new HttpError(503, refused.name, refused.message);
    };
    // A request may rightly take long (session.wait, exec.run, a big download): no idle timeout.
    const long = () => server.timeout(req, 0);
    switch (path) {
      case "/rpc":
        only("POST");
        long();
        return request(req, "native");
      case "/trl":
        only("POST");
        long();
        return request(req, "trl");
      case "/ws":
        only("GET");
        return upgrade(req, server, { kind: "rpc" });
      case "/metrics":
        only("GET");
        return new Response(metricsText(host.metrics()), { headers: { "Content-Type": METRICS_CONTENT_TYPE } });
      case "/logout":
        only("POST");
        return logout(req);
    }
    const live = /^\/ws\/cast\/([^/]+)$/.exec(path);
    if (live) {
      only("GET");
      return upgrade(req, server, { kind: "cast", session: host.session(segment(live[1]!)) });
    }
    const cast = /^\/sessions\/([^/]+)\.cast$/.exec(path);
    if (cast) {
      only("GET");
      const s = host.session(segment(cast[1]!));
      long();
      const body = castDownload(host, s.id, req.signal);
      const filename = `${s.name.replace(/[^A-Za-z0-9_.@:+-]/g, "_")}.cast`;
      return new Response(body, {
        headers: { "Content-Type": "application/x-asciicast", "Content-Disposition": `attachment; filename="${filename}"` },
      });
    }
    if (req.method === "GET") {
      const asset = (await pageAssets()).get(path);
      if (asset)
        return new Response(asset.body, { headers: { "Content-Type": asset.type, "Cache-Control": asset.cacheControl, ...PAGE_HEADERS } });
    }
    throw new HttpError(404, "NOT_FOUND", `no ${req.method} ${path} here`);
  }

  const server = Bun.serve<WsData>({
    hostname: settings.listen.hostname,
    port: settings.listen.port,
    maxRequestBodySize: BUN_BODY_LIMIT,
    fetch: (req, server) => handle(req, server).catch((err) => errorResponse(host, err)),
    websocket: {
      backpressureLimit: WS_BACKPRESSURE_LIMIT,
      open(ws) {
        const d = ws.data;
        if (d.kind === "rpc") {
          d.conn = host.connect(new WebSocketSink(ws as ServerWebSocket<unknown>), !settings.allowFiles);
        } else {
          d.cast = new LiveCast(ws as ServerWebSocket<unknown>, host, d.session);
          d.cast.start().catch((err) => ws.close(1011, String((err as Error).message).slice(0, 120)));
        }
      },
      message(ws, message) {
        if (ws.data.kind === "rpc") ws.data.conn?.onData(messageAsLine(message));
      },
      drain(ws) {
        if (ws.data.kind === "rpc") ws.data.conn?.flush();
        else ws.data.cast?.drain();
      },
      close(ws) {
        if (ws.data.kind === "rpc") ws.data.conn?.onClose();
        else ws.data.cast?.close();
      },
    },
  });
  // Several daemons on one host share its cookies (a cookie ignores the port): each names its own.
  cookieName = `termd-${server.port}`;
  const shownHost = settings.listen.hostname.includes(":") ? `[${settings.listen.hostname}]` : settings.listen.hostname;
  return { url: `http://${shownHost}:${server.port}`, stop: () => server.stop(true) };
}
