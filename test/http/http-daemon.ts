// A private daemon with `--http 127.0.0.1:0` for the HTTP tests: its address read back from the
// line it logs at start, its token from the state dir it generated it in.
import { afterAll, beforeAll } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TestDaemon } from "../harness.ts";

export interface HttpDaemon {
  daemon: TestDaemon;
  url: string;
  token: string;
  /** Authorization header for `token`. */
  auth: Record<string, string>;
  rpc(method: string, params?: unknown): Promise<any>;
  /** POSTs `body` (a string as it is, anything else as JSON) to /rpc with `headers`, by default `auth`. */
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export async function startHttpDaemon(opts: { bin?: string[]; args?: string[] } = {}): Promise<HttpDaemon> {
  const daemon = await TestDaemon.start({ bin: opts.bin, args: ["--http", "127.0.0.1:0", ...(opts.args ?? [])] });
  const url = /termd: http on (http:\/\/\S+)/.exec(daemon.banner)?.[1];
  if (!url) throw new Error(`no http address in the daemon's log: ${daemon.banner}`);
  const token = readFileSync(join(daemon.stateDir, "http-token"), "utf8").trim();
  const auth = { Authorization: `Bearer ${token}` };
  const post = (body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${url}/rpc`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  let id = 0;
  const rpc = async (method: string, params: unknown = {}) => {
    const r = await post({ jsonrpc: "2.0", id: ++id, method, params });
    const body = (await r.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  return { daemon, url, token, auth, rpc, post };
}

/** One HTTP daemon for the whole file: started before its tests, disposed after them; read it inside a test or hook. */
export function sharedHttpDaemon(): HttpDaemon {
  let started: HttpDaemon | undefined;
  beforeAll(async () => {
    started = await startHttpDaemon();
  });
  afterAll(async () => {
    await started?.daemon[Symbol.asyncDispose]();
  });
  const get = (): HttpDaemon => {
    if (!started) throw new Error("sharedHttpDaemon: the daemon starts in beforeAll");
    return started;
  };
  return {
    get daemon() {
      return get().daemon;
    },
    get url() {
      return get().url;
    },
    get token() {
      return get().token;
    },
    get auth() {
      return get().auth;
    },
    rpc: (method, params) => get().rpc(method, params),
    post: (body, headers) => get().post(body, headers),
  };
}

/** A JSON-RPC client over GET /ws, with its events collected. */
export class WsRpc {
  private nextId = 0;
  private readonly pending = new Map<number, PromiseWithResolvers<any>>();
  readonly events: any[] = [];
  private readonly waiters: { pred: (e: any) => boolean; resolve: (e: any) => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (msg.method === "event") {
        this.events.push(msg.params);
        for (const w of [...this.waiters]) if (w.pred(msg.params)) this.waiters.splice(this.waiters.indexOf(w), 1), w.resolve(msg.params);
        return;
      }
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
    };
  }

  static open(url: string, headers: Record<string, string>): Promise<WsRpc> {
    const ws = new WebSocket(url.replace(/^http/, "ws") + "/ws", { headers } as unknown as string[]);
    return new Promise((resolve, reject) => {
      ws.onopen = () => resolve(new WsRpc(ws));
      ws.onerror = () => reject(new Error("the WebSocket did not open"));
    });
  }

  call(method: string, params: unknown = {}): Promise<any> {
    const id = ++this.nextId;
    const p = Promise.withResolvers<any>();
    this.pending.set(id, p);
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return p.promise;
  }

  /** The first event, already received or still to come, that `pred` accepts. */
  event(pred: (e: any) => boolean): Promise<any> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  close(): void {
    this.ws.close();
  }
}
