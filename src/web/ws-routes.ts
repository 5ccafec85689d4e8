// The WebSocket routes: the upgrade (/ws, a connection in the native dialect; /ws/cast/NAME, a
// session's live asciicast) and the events of the socket it makes.
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { AttachedStream } from "../session/stream.ts";
import { LiveCast } from "./cast.ts";
import type { HostConnection, WebHost } from "./web-host.ts";
import { HttpError } from "./http-error.ts";
import { subprotocols, urlOf } from "./request-parts.ts";
import { BEARER_SUBPROTOCOL } from "./sign-in-gate.ts";
import { messageAsLine, WebSocketSink } from "./ws-sink.ts";

/** A WebSocket's own bound on unsent bytes is far above the connection's, which governs. */
const WS_BACKPRESSURE_LIMIT = 64 * 1024 * 1024;
const SUBPROTOCOL = "termd";

export type WsData = { kind: "rpc"; conn?: HostConnection } | { kind: "cast"; session: AttachedStream; cast?: LiveCast };

/** Upgrades `req` to a WebSocket carrying `data`; undefined once Bun has answered it. */
export function upgrade(req: Request, server: Server<WsData>, data: WsData): Response | undefined {
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

/** The events of an upgraded socket: a connection of the daemon's (`refusesFileParams` its policy), or a live cast. */
export function webSocketEvents(host: WebHost, refusesFileParams: boolean): WebSocketHandler<WsData> {
  return {
    backpressureLimit: WS_BACKPRESSURE_LIMIT,
    open(ws) {
      const d = ws.data;
      if (d.kind === "rpc") {
        d.conn = host.connect(new WebSocketSink(ws as ServerWebSocket<unknown>), refusesFileParams);
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
  };
}
