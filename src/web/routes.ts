// Where each HTTP request goes: the liveness probe first (no token, any Host), then the Host and
// Origin checks, the sign-in, and the routes of a signed-in client (the calls, the WebSockets,
// /metrics, the asciicast download, the attach page's files).
import type { Server } from "bun";
import { MAX_LINE_BYTES } from "../protocol/framing.ts";
import type { AttachedStream } from "../session/stream.ts";
import { type AddressPolicy, hostAllowed, originAllowed } from "./address.ts";
import { pageAssets } from "./assets.ts";
import { readBodyPieces } from "./body.ts";
import { castDownload } from "./cast.ts";
import type { WebHost } from "./web-host.ts";
import { HttpError } from "./http-error.ts";
import { METRICS_CONTENT_TYPE, metricsText } from "./metrics.ts";
import { PAGE_HEADERS } from "./page-headers.ts";
import { segment, urlOf } from "./request-parts.ts";
import type { SignInGate } from "./sign-in-gate.ts";
import { upgrade, type WsData } from "./ws-routes.ts";

export class Routes {
  constructor(
    private readonly host: WebHost,
    private readonly policy: AddressPolicy,
    private readonly gate: SignInGate,
    /** The params that write files on this machine (record, log_path, socket) are refused. */
    private readonly refusesFileParams: boolean,
  ) {}

  async handle(req: Request, server: Server<WsData>): Promise<Response | undefined> {
    const { host, gate } = this;
    const url = urlOf(req);
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) return this.health();
    const isUpgrade = req.headers.get("upgrade")?.toLowerCase() === "websocket";
    this.checkAddress(req, isUpgrade);
    const path = url.pathname;
    if (path === "/login" && req.method === "POST") return gate.login(req, server.requestIP(req)?.address ?? "");
    if (!gate.authenticated(req)) {
      if (path === "/" && req.method === "GET" && !isUpgrade) return gate.page("");
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
        return this.call(req, "native");
      case "/trl":
        only("POST");
        long();
        return this.call(req, "trl");
      case "/ws":
        only("GET");
        return upgrade(req, server, { kind: "rpc" });
      case "/metrics":
        only("GET");
        return new Response(metricsText(host.metrics()), { headers: { "Content-Type": METRICS_CONTENT_TYPE } });
      case "/logout":
        only("POST");
        return gate.logout(req);
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
      return this.castFile(req, s);
    }
    if (req.method === "GET") {
      const asset = (await pageAssets()).get(path);
      if (asset)
        return new Response(asset.body, { headers: { "Content-Type": asset.type, "Cache-Control": asset.cacheControl, ...PAGE_HEADERS } });
    }
    throw new HttpError(404, "NOT_FOUND", `no ${req.method} ${path} here`);
  }

  /**
   * An orchestrator's liveness probe: no token, and any Host (a probe names the pod by address or
   * by a service name the daemon was not told of); it says nothing but whether it serves.
   */
  private health(): Response {
    return this.host.stopping
      ? new Response("stopping\n", { status: 503 })
      : new Response("ok\n", { headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }

  /** Refuses a Host the daemon does not answer to, and an Origin not its own on a WebSocket or a request that changes state. */
  private checkAddress(req: Request, isUpgrade: boolean): void {
    const hostHeader = req.headers.get("host");
    if (!hostAllowed(hostHeader, this.policy)) {
      throw new HttpError(
        403,
        "FORBIDDEN_HOST",
        `Host ${JSON.stringify(hostHeader ?? "")} is not a name this daemon answers to (termd daemon --allow-host adds one)`,
      );
    }
    const changesState = req.method !== "GET" && req.method !== "HEAD";
    if ((isUpgrade || changesState) && !originAllowed(req.headers.get("origin"), hostHeader, this.policy)) {
      throw new HttpError(
        403,
        "FORBIDDEN_ORIGIN",
        `Origin ${JSON.stringify(req.headers.get("origin"))} may not use this daemon (termd daemon --allow-origin adds one)`,
      );
    }
  }

  /** POST /rpc and /trl: the reply (or a batch's replies) as JSON; 204 when everything was a notification. */
  private async call(req: Request, dialect: "native" | "trl"): Promise<Response> {
    const body = await readBodyPieces(req, MAX_LINE_BYTES);
    const json = await this.host.answer(dialect, body, { refusesFileParams: this.refusesFileParams, signal: req.signal });
    return json === null ? new Response(null, { status: 204 }) : new Response(json, { headers: { "content-type": "application/json" } });
  }

  /** GET /sessions/NAME.cast: `s`'s recording as an asciicast file. */
  private castFile(req: Request, s: AttachedStream): Response {
    const body = castDownload(this.host, s.id, req.signal);
    const filename = `${s.name.replace(/[^A-Za-z0-9_.@:+-]/g, "_")}.cast`;
    return new Response(body, {
      headers: { "Content-Type": "application/x-asciicast", "Content-Disposition": `attachment; filename="${filename}"` },
    });
  }
}
