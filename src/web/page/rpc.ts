// The page's JSON-RPC client: the daemon's protocol over GET /ws, authenticated by the cookie the
// sign-in form set (a browser cannot put a header on a WebSocket). One message each way per call.
// Its calls and events are typed by protocol/'s method table, as client/'s are; the imports are of
// types only, so nothing of the daemon's (valibot's schemas) goes into the page's bundle.
import type { MethodName, ParamsOf, ResultOf } from "../../protocol/methods.ts";
import type { EventMessage } from "../../protocol/schemas.ts";

export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class Rpc {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  onEvent: (e: EventMessage) => void = () => {};
  /** Called once when the socket closes, unless close() closed it. */
  onLost: () => void = () => {};
  private closing = false;

  private constructor(private readonly ws: WebSocket) {
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (msg.method === "event") return this.onEvent(msg.params);
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(new RpcError(msg.error.data?.code ?? "ERROR", msg.error.message));
      else p?.resolve(msg.result);
    };
    ws.onclose = () => {
      for (const p of this.pending.values()) p.reject(new RpcError("CLOSED", "the connection to the daemon closed"));
      this.pending.clear();
      if (!this.closing) this.onLost();
    };
  }

  static open(): Promise<Rpc> {
    const url = new URL("/ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(url, ["termd"]);
    return new Promise((resolve, reject) => {
      ws.onopen = () => resolve(new Rpc(ws));
      ws.onclose = () => reject(new RpcError("CLOSED", "the daemon refused the connection"));
    });
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.reject(new RpcError("CLOSED", "not connected"));
    const id = ++this.nextId;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  close(): void {
    this.closing = true;
    this.ws.close(1000);
  }
}
