// A raw JSON-line connection for tests: sends any bytes (garbage included, where the client
// library would refuse), hands back each JSON line the daemon writes, in order. Dialect clients
// speak plain JSON lines, not the client library's JSON-RPC; bad-input tests send what no client would.
import { connect as netConnect, type Socket } from "node:net";
import { LineSplitter } from "../src/protocol/framing.ts";

// Replies of every dialect and every shape (a batch's replies come as an array), wrong ones included: loosely typed on purpose.
export type Msg = any;

export class Lines {
  private readonly splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  private readonly inbox: Msg[] = [];
  private readonly waiters = new Set<() => void>();
  private ended = false;
  /** Bytes received so far, replies and events alike. */
  received = 0;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.closed = promise;
    socket.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      for (const f of this.splitter.push(chunk)) if ("line" in f && f.line.trim() !== "") this.inbox.push(JSON.parse(f.line));
      this.wake();
    });
    // Writes into a connection the daemon closed fail with EPIPE; the close that follows is what counts.
    socket.on("error", () => {});
    socket.on("close", () => {
      this.ended = true;
      this.wake();
      resolve();
    });
  }

  static open(path: string): Promise<Lines> {
    return new Promise((resolve, reject) => {
      const s = netConnect(path);
      s.once("error", reject);
      s.once("connect", () => {
        s.off("error", reject);
        resolve(new Lines(s));
      });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Writes `data` as it is (add the newline yourself for a raw line). */
  write(data: string | Uint8Array): void {
    this.socket.write(data);
  }

  /** One JSON message as a line. */
  send(msg: unknown): void {
    this.write(JSON.stringify(msg) + "\n");
  }

  /** A JSON-RPC request as a line. */
  request(id: number, method: string, params?: unknown): void {
    this.send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) });
  }

  /** The first message `pred` accepts (in arrival order), taken out of the inbox. */
  next(pred: (m: Msg) => boolean = () => true): Promise<Msg> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const i = this.inbox.findIndex(pred);
        if (i >= 0) {
          this.waiters.delete(check);
          resolve(this.inbox.splice(i, 1)[0]);
        } else if (this.ended) {
          this.waiters.delete(check);
          reject(new Error(`connection closed; unclaimed: ${JSON.stringify(this.inbox).slice(0, 500)}`));
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The JSON-RPC reply with this id (not a batch's array, not a notification). */
  reply(id: unknown): Promise<Msg> {
    return this.next((m) => !Array.isArray(m) && m.id === id && m.method === undefined);
  }

  /** Sends one JSON-RPC request and waits for its reply. */
  async call(id: number, method: string, params?: unknown): Promise<Msg> {
    this.request(id, method, params);
    return this.reply(id);
  }

  /**
   * Sends `msg` and resolves with the next message `pred` accepts; by default the reply with the
   * same id when `msg` has one (events in between stay in the inbox), else the next message.
   */
  async ask(msg: unknown, pred?: (m: Msg) => boolean): Promise<Msg> {
    this.send(msg);
    const id = typeof msg === "object" && msg !== null && "id" in msg ? (msg as { id: unknown }).id : undefined;
    return this.next(pred ?? (id !== undefined ? (m) => m.id === id : undefined));
  }

  /** Sends `msg`, then drops the connection as soon as the line is handed to the kernel. */
  sendAndDrop(msg: unknown): Promise<void> {
    return new Promise((resolve) => {
      this.socket.write(JSON.stringify(msg) + "\n", () => {
        this.socket.destroy();
        resolve();
      });
    });
  }

  /** Messages received and not taken yet. */
  get pending(): Msg[] {
    return [...this.inbox];
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.socket.destroy();
    await this.closed;
  }
}
