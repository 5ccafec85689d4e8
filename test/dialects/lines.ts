// A raw line connection for dialect tests: sends any text, hands back each JSON line the daemon
// writes, in order. Dialect clients speak plain JSON lines, not the client library's JSON-RPC.
import { connect as netConnect, type Socket } from "node:net";

// Replies of every dialect, wrong ones included: loosely typed on purpose.
export type Msg = any;

export class Lines {
  private buf = "";
  private readonly inbox: Msg[] = [];
  private readonly waiters = new Set<() => void>();
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.closed = promise;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buf += chunk;
      let nl: number;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (line.trim() !== "") this.inbox.push(JSON.parse(line));
      }
      this.wake();
    });
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

  /** Writes `text` as it is (add the newline yourself for a raw line). */
  write(text: string): void {
    this.socket.write(text);
  }

  /** One JSON message as a line. */
  send(msg: unknown): void {
    this.write(JSON.stringify(msg) + "\n");
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
}
