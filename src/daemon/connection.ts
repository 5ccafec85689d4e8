// One client connection: NDJSON framing in, concurrent dispatch, replies and events out through a
// queue that respects socket backpressure. A bad line gets an error reply; an oversized line gets
// one and the connection is closed; nothing here can take down the daemon or another client. A
// client that stops reading holds up its own requests, and the memory they cost stays bounded.
import { RpcError } from "../protocol/errors.ts";
import { LineSplitter, MAX_LINE_BYTES, type Frame } from "../protocol/framing.ts";
import type { EventMessage, EventType } from "../protocol/schemas.ts";
import type { Session } from "../session/session.ts";
import type { Daemon } from "./daemon.ts";
import type { CallContext } from "./command.ts";
import { dispatch, errorReply, refuse, run } from "./dispatch.ts";
import { pickDialect } from "../protocol/dialects/index.ts";
import type { Dialect, NativeCaller } from "../protocol/dialects/dialect.ts";
import { Subscription, type AttachOptions, type EventSink } from "./subscription.ts";

/** After its session ended: how long a connection may take to read its last events before it is closed anyway. */
const FINAL_EVENTS_MS = 5000;
/** Queue size past which output events wait for the socket to drain. */
const HIGH_WATER = 4 * 1024 * 1024;
/**
 * Reply bytes a client may leave unread before its next requests wait for it to read (and the
 * most one batch may ask for): a 100-byte session.output request can cost an 11 MB reply, so
 * without a bound a client that pipelines them and never reads grows the daemon without end.
 */
const MAX_UNREAD = 16 * 1024 * 1024;

type HeldFrame = Exclude<Frame, { tooLong: number }>;

/** Resolves once `p` settles or after one turn of the event loop, whichever comes first. */
function settledOrNextTurn(p: Promise<unknown>): Promise<unknown> {
  const turn = new Promise<void>((resolve) => setImmediate(resolve));
  return Promise.race([p, turn]).catch((err) => console.error("termd: request failed:", err));
}

export interface ConnData {
  conn?: Connection;
}

/** What a connection writes to: a Unix socket, or an adapter for another transport (src/web). */
export interface ByteSink {
  /** Takes what it can of `data` now and says how much (-1: closed); the rest waits for flush(). */
  write(data: Uint8Array): number;
  end(): void;
}

export class Connection implements EventSink {
  private readonly splitter = new LineSplitter();
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private closed = false;
  /** end() was called: nothing more is read or queued; the close follows the last queued byte. */
  private ending = false;
  private readonly abort = new AbortController();
  private readonly subs = new Map<string, Subscription>();
  private readonly encoder = new TextEncoder();
  /** Lines received and not handled yet: they wait while the client is behind on its replies. */
  private held: HeldFrame[] = [];
  private heldAt = 0;
  private heldChars = 0;
  private releasing = false;

  /** null: native JSON-RPC; otherwise the dialect the first message picked. */
  private dialect: Dialect | null = null;
  private sawFirst = false;
  private readonly eventListeners = new Set<(e: EventMessage) => void>();
  /** The session whose end ends this connection, once its last events have gone out. */
  private endAfter: string | null = null;

  constructor(
    private readonly socket: ByteSink,
    private readonly daemon: Daemon,
    /** The session a per-session socket stands for. */
    readonly impliedSession?: string,
    /** The dialect of a per-session socket, for a first line no dialect claims (or not JSON). */
    private readonly socketDialect: Dialect | null = null,
    /** Params that write files on the daemon's machine are refused (a remote client's connection). */
    readonly refusesFileParams = false,
  ) {}

  get writable(): boolean {
    return !this.closed && this.queued < HIGH_WATER;
  }

  /** Events go to a dialect's listeners (ralph's lines), never the wire: output as plain text. */
  get plainText(): boolean {
    return this.eventListeners.size > 0;
  }

  onData(chunk: Uint8Array): void {
    // socket.end() only half-closes: what the client sent before it saw the close may still
    // arrive, and none of it may run (a request after an oversized line must not take effect).
    if (this.closed || this.ending) return;
    this.daemon.counters.bytesIn += chunk.length;
    for (const frame of this.splitter.push(chunk)) {
      if ("tooLong" in frame) {
        const err = new RpcError("PAYLOAD_TOO_LARGE", `request line over ${this.splitter.maxBytes} bytes; closing`);
        this.send(errorReply(null, err));
        this.end();
        return;
      }
      if ("line" in frame && frame.line.trim() === "") continue;
      this.held.push(frame);
      this.heldChars += "line" in frame ? frame.line.length : 1;
    }
    // Requests waiting for a client that does not read are bounded like one line: past that it is cut off.
    if (this.heldChars > MAX_LINE_BYTES && this.queued >= MAX_UNREAD) {
      const err = new RpcError("PAYLOAD_TOO_LARGE", `over ${MAX_LINE_BYTES} bytes of requests wait for replies to be read; closing`);
      this.send(errorReply(null, err));
      this.end();
      return;
    }
    void this.release();
  }

  /**
   * Handles held lines in order while the client keeps up: with MAX_UNREAD bytes queued, the rest
   * wait until it reads. Each line's reply is queued before the next line runs (a long call such
   * as session.wait gets one turn of the event loop, then goes on alongside the next ones), so the
   * queue is checked against what the requests before actually produced.
   */
  private async release(): Promise<void> {
    if (this.releasing) return;
    this.releasing = true;
    while (this.heldAt < this.held.length && !this.closed && !this.ending && this.queued < MAX_UNREAD) {
      const frame = this.held[this.heldAt++]!;
      this.heldChars -= "line" in frame ? frame.line.length : 1;
      const done = this.handleFrame(frame);
      // Only a line with more behind it waits; a lone one goes its way as before.
      if (this.heldAt < this.held.length) await settledOrNextTurn(done);
    }
    if (this.heldAt === this.held.length) {
      this.held = [];
      this.heldAt = 0;
    }
    this.releasing = false;
  }

  private malformed(message: string): void {
    if (!this.sawFirst && this.socketDialect) {
      this.sawFirst = true;
      this.dialect = this.socketDialect;
    }
    this.send(this.dialect ? this.dialect.malformed(message) : errorReply(null, new RpcError("PARSE_ERROR", message)));
    if (this.dialect?.oneShot) this.end();
  }

  private handleFrame(frame: HeldFrame): Promise<unknown> {
    if ("invalidUtf8" in frame) {
      this.malformed("request line is not valid UTF-8");
      return Promise.resolve();
    }
    let msg: unknown;
    try {
      msg = JSON.parse(frame.line);
    } catch (err) {
      this.malformed(`invalid JSON: ${(err as Error).message}`);
      return Promise.resolve();
    }
    const ctx = { daemon: this.daemon, conn: this, signal: this.abort.signal };
    if (!this.sawFirst) {
      this.sawFirst = true;
      // A per-session socket without a dialect of its own speaks JSON-RPC (native and ralph's
      // methods) only: a line without "jsonrpc" there is an invalid request (-32600), not TRL.
      const jsonRpcOnly = this.impliedSession !== undefined && this.socketDialect === null;
      this.dialect = jsonRpcOnly ? null : pickDialect(msg, this.socketDialect);
    }
    const dialect = this.dialect;
    if (dialect) {
      return dialect.handle(msg, this.nativeCaller(ctx)).then((reply) => {
        if (reply !== null) this.send(reply);
        if (dialect.oneShot) this.end();
      });
    }
    if (Array.isArray(msg)) {
      if (msg.length > 0) return this.handleBatch(msg, ctx);
      this.send(errorReply(null, new RpcError("INVALID_REQUEST", "empty batch")));
      return Promise.resolve();
    }
    return dispatch(msg, ctx).then((reply) => reply && this.send(reply));
  }

  /**
   * A batch's requests run in order, paced like separate lines, and its replies go out together.
   * Once they pass MAX_UNREAD the remaining requests are refused unrun (as geth does), so one
   * line cannot ask for unbounded output.
   */
  private async handleBatch(msgs: unknown[], ctx: CallContext): Promise<void> {
    let size = 0;
    const replies: Promise<string | null>[] = [];
    for (const [i, m] of msgs.entries()) {
      if (size > MAX_UNREAD) {
        const err = new RpcError("PAYLOAD_TOO_LARGE", `batch reply over ${MAX_UNREAD} bytes; send this request again`);
        const reply = refuse(m, err);
        replies.push(Promise.resolve(reply && JSON.stringify(reply)));
        continue;
      }
      const line = dispatch(m, ctx).then((reply) => {
        if (!reply) return null;
        const json = JSON.stringify(reply);
        size += json.length;
        return json;
      });
      replies.push(line);
      if (i < msgs.length - 1) await settledOrNextTurn(line);
    }
    const out = (await Promise.all(replies)).filter((r) => r !== null);
    if (out.length > 0) this.sendLine(`[${out.join(",")}]`);
  }

  send(msg: unknown): void {
    this.sendLine(JSON.stringify(msg));
  }

  private sendLine(json: string): void {
    if (this.closed || this.ending) return;
    this.queue.push(this.encoder.encode(json + "\n"));
    this.queued += this.queue.at(-1)!.length;
    this.flush();
  }

  sendEvent(e: EventMessage): void {
    // A dialect reshapes events; so does ralph's subscribe on a native per-session connection.
    if (this.dialect || this.eventListeners.size > 0) for (const fn of this.eventListeners) fn(e);
    else this.send({ jsonrpc: "2.0", method: "event", params: e });
    if (e.type === "exit") this.checkEndAfter();
  }

  /**
   * The session `id` (a per-session socket's) is over: this connection closes once its
   * subscription has sent the last output and the exit (what a dialect makes of them included),
   * at once without one, and after FINAL_EVENTS_MS whatever is left.
   */
  endWhenDelivered(id: string): void {
    if (this.endAfter !== null) return;
    this.endAfter = id;
    setTimeout(() => this.end(), FINAL_EVENTS_MS).unref?.();
    this.checkEndAfter();
  }

  private checkEndAfter(): void {
    if (this.endAfter === null || this.ending || this.closed) return;
    const sub = this.subs.get(this.endAfter);
    if (!sub || sub.delivered) this.end();
  }

  private caller: NativeCaller | null = null;

  /**
   * How a dialect (or a ralph alias) reaches the native methods and events from this connection:
   * one object per connection, so per-connection dialect state can be keyed by it.
   */
  nativeCaller(ctx: CallContext): NativeCaller {
    return (this.caller ??= {
      call: (method, params) => run(method, params, ctx) as Promise<never>,
      onEvent: (fn) => {
        this.eventListeners.add(fn);
        return () => this.eventListeners.delete(fn);
      },
      session: this.impliedSession,
      send: (msg) => this.send(msg),
      end: () => this.end(),
      signal: ctx.signal,
    });
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
    if (this.ending) {
      if (this.queue.length === 0 && !this.closed) {
        this.socket.end();
        this.onClose();
      }
      return;
    }
    if (this.queued < MAX_UNREAD) void this.release();
    if (this.queued < HIGH_WATER) for (const sub of this.subs.values()) sub.catchUp();
    this.checkEndAfter();
  }

  subscribe(session: Session, events: EventType[], replayFrom: number | null, opts: AttachOptions = {}): Subscription {
    const existing = this.subs.get(session.id);
    if (existing) {
      existing.add(events, opts, replayFrom);
      return existing;
    }
    const sub = new Subscription(session, this, replayFrom);
    this.subs.set(session.id, sub);
    sub.add(events, opts);
    return sub;
  }

  /** Drops this connection's subscription to a session that is gone. */
  forget(session: Session): void {
    this.subs.get(session.id)?.dispose();
    this.subs.delete(session.id);
    this.checkEndAfter();
  }

  /** This connection's subscription to `session`, if it has one (an attached terminal, say). */
  subscription(session: Session): Subscription | undefined {
    return this.subs.get(session.id);
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

  /**
   * Ends the connection after what is queued has been written: a reply larger than the socket
   * takes at once (an interminai screen with its scrollback) goes out whole before the close.
   */
  end(): void {
    if (this.closed) return;
    this.ending = true;
    this.flush(); // closes now if all is written, else on the drain that writes the last byte
  }

  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queued = 0;
    this.held = [];
    this.heldAt = 0;
    this.abort.abort();
    this.eventListeners.clear();
    for (const sub of this.subs.values()) sub.dispose();
    this.subs.clear();
    this.daemon.connections.delete(this);
  }
}
