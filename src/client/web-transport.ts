// A remote daemon's protocol over its WebSocket (GET /ws of `termd daemon --http`): one JSON-RPC
// message per WebSocket message, handed to the Client as the newline-ended lines a socket would
// carry. The token goes in the Authorization header where the runtime lets a WebSocket set headers
// (Bun), else as the `termd.bearer.TOKEN` subprotocol (Node 22's WebSocket). A WebSocket cannot
// stop reading, so pause() and resume() do nothing here: the daemon still bounds what it queues.
import type { Transport, TransportEvents } from "./transport-interface.ts";

type WebSocketCtor = new (url: string, opts?: string[] | { headers?: Record<string, string>; protocols?: string[] }) => WebSocket;

function webSocketUrl(url: string): string {
  const u = new URL(url);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  u.pathname = u.pathname.replace(/\/+$/, "") + "/ws";
  return u.toString();
}

function connectError(message: string, code: string): Error {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = code;
  return err;
}

/**
 * Why a WebSocket did not open, in the daemon's words: the browser-shaped WebSocket API hides the
 * HTTP status, so one plain request asks again.
 */
async function whyRefused(url: string, token: string | undefined): Promise<Error> {
  const rpc = new URL(url);
  rpc.pathname = rpc.pathname.replace(/\/+$/, "") + "/rpc";
  try {
    const r = await fetch(rpc, {
      method: "POST",
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "system.ping" }),
    });
    const body = (await r.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    if (r.status === 401)
      return connectError(
        token
          ? `the daemon at ${url} refused the token (TERMD_TOKEN)`
          : `the daemon at ${url} needs a token: set TERMD_TOKEN (termd token on its machine shows it)`,
        "EACCES",
      );
    return connectError(`the daemon at ${url} refused the WebSocket: ${body?.error?.message ?? `HTTP ${r.status}`}`, "EACCES");
  } catch (err) {
    return connectError(`${url}: ${(err as Error).message}`, "ECONNREFUSED");
  }
}

export function openWebSocketTransport(url: string, token: string | undefined, on: TransportEvents): Promise<Transport> {
  const Ctor = (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
  if (!Ctor) return Promise.reject(new Error("reaching a daemon by URL needs a WebSocket: run under Bun or Node 22 or later"));
  const underBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
  const ws = underBun
    ? new Ctor(webSocketUrl(url), { headers: token ? { Authorization: `Bearer ${token}` } : {}, protocols: ["termd"] })
    : new Ctor(webSocketUrl(url), ["termd", ...(token ? [`termd.bearer.${token}`] : [])]);
  const encoder = new TextEncoder();
  return new Promise((resolve, reject) => {
    let open = false;
    let refused = false;
    const refuse = () => {
      if (open || refused) return;
      refused = true;
      void whyRefused(url, token).then(reject);
    };
    ws.onopen = () => {
      open = true;
      resolve({
        write: (text) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(text.endsWith("\n") ? text.slice(0, -1) : text);
        },
        pause: () => {},
        resume: () => {},
        close: () => ws.close(1000),
        hold: () => {},
      });
    };
    ws.onmessage = (m) => on.data(encoder.encode(String(m.data) + "\n"));
    ws.onerror = refuse;
    ws.onclose = () => (open ? on.close() : refuse());
  });
}
