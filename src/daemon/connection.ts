// One client connection: NDJSON framing in, concurrent dispatch, replies and events out through a
// queue that respects socket backpressure. A bad line gets an error reply; an oversized line gets
// one and the connection is closed; nothing here can take down the daemon or another client.
import type { Socket } from "bun";
import { RpcError } from "../protocol/errors.ts";
import { LineSplitter } from "../protocol/framing.ts";
import type { EventMessage, EventType } from "../protocol/schemas.ts";
import type { Session } from "../session/session.ts";
import type { Daemon } from "./daemon.ts";
import { dispatch, errorReply } from "./dispatch.ts";
import { Subscription, type EventSink } from "./subscription.ts";

/** Queue size past which output events wait for the socket to drain. */
const HIGH_WATER = 4 * 1024 * 1024;

export interface ConnData {
  conn?: Connection;
}

export class Connection implements EventSink {
  private readonly splitter = new LineSplitter();
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly subs = new Map<string, Subscription>();
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly socket: Socket<ConnData>,
    private readonly daemon: Daemon,
  ) {}

  get writable(): boolean {
    return !this.closed && this.queued < HIGH_WATER;
  }

  onData(chunk: Uint8Array): void {
    this.daemon.counters.bytesIn += chunk.length;
    for (const frame of this.splitter.push(chunk)) {
      if ("tooLong" in frame) {
        const err = new RpcError("PAYLOAD_TOO_LARGE", `request line over ${this.splitter.maxBytes} bytes; closing`);
        this.send(errorReply(null, err));
        this.end();
        return;
      }
      if ("invalidUtf8" in frame) {
        this.send(errorReply(null, new RpcError("PARSE_ERROR", "request line is not valid UTF-8")));
        continue;
      }
      if (frame.line.trim() === "") continue;
      this.handleLine(frame.line);
    }
  }

  private handleLine(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      this.send(errorReply(null, new RpcError("PARSE_ERROR", `invalid JSON: ${(err as Error).message}`)));
      return;
    }
    const ctx = { daemon: this.daemon, conn: this, signal: this.abort.signal };
    if (Array.isArray(msg)) {
      if (msg.length === 0) return this.send(errorReply(null, new RpcError("INVALID_REQUEST", "empty batch")));
      void Promise.all(msg.map((m) => dispatch(m, ctx))).then((replies) => {
        const out = replies.filter((r) => r !== null);
        if (out.length > 0) this.send(out);
      });
      return;
    }
    void dispatch(msg, ctx).then((reply) => reply && this.send(reply));
  }

  send(msg: unknown): void {
    if (this.closed) return;
    this.queue.push(this.encoder.encode(JSON.stringify(msg) + "\n"));
    this.queued += this.queue.at(-1)!.length;
    this.flush();
  }

  sendEvent(e: EventMessage): void {
    this.send({ jsonrpc: "2.0", method: "event", params: e });
  }

  /** Writes as much of the queue as the socket takes; the rest waits for drain. */
  flush(): void {
    while (this.queue.length > 0 && !this.closed) {
      const head = this.queue[0]!;
      const n = this.socket.write(head);
      if (n < 0) return this.onClose();
      this.queued -= n;
      if (n < head.length) {
        this.queue[0] = head.subarray(n);
        return;
      }
      this.queue.shift();
    }
    if (this.queued < HIGH_WATER) for (const sub of this.subs.values()) sub.catchUp();
  }

  subscribe(session: Session, events: EventType[], replayFrom: number | null): Subscription {
    let sub = this.subs.get(session.id);
    if (!sub) {
      sub = new Subscription(session, this, replayFrom);
      this.subs.set(session.id, sub);
    }
    for (const e of events) sub.events.add(e);
    sub.catchUp();
    return sub;
  }

  unsubscribe(session: Session, events: EventType[]): Set<EventType> {
    const sub = this.subs.get(session.id);
    if (!sub) return new Set();
    for (const e of events) sub.events.delete(e);
    if (sub.events.size === 0) {
      sub.dispose();
      this.subs.delete(session.id);
    }
    return sub.events;
  }

  /** Ends the connection after what is queued has been written. */
  end(): void {
    this.flush();
    this.socket.end();
    this.onClose();
  }

  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queued = 0;
    this.abort.abort();
    for (const sub of this.subs.values()) sub.dispose();
    this.subs.clear();
    this.daemon.connections.delete(this);
  }
}
