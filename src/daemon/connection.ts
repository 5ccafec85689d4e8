// One client connection: NDJSON framing in, concurrent dispatch, replies and events out through a
// queue that respects socket backpressure. A bad line gets an error reply; an oversized line gets
// one and the connection is closed; nothing here can take down the daemon or another client. A
// client that stops reading holds up its own requests, and the memory they cost stays bounded.
import { RpcError } from "../protocol/errors.ts";
import { LineSplitter, MAX_LINE_BYTES, type Frame } from "../protocol/framing.ts";
import { LINE_OFF_THREAD, parseOffThread, type LineParsed } from "./line-parser.ts";
import type { EventMessage, EventType } from "../protocol/schemas.ts";
import type { Session } from "../session/session.ts";
import type { Daemon } from "./daemon.ts";
import type { CallContext } from "./command.ts";
import { run } from "./dispatch.ts";
import { errorReply, logFault } from "./errors.ts";
import { settledOrNextTurn } from "./pacing.ts";
import { Serialized, type Dialect, type DialectConnection, type NativeCaller } from "../dialects/dialect.ts";
import { Subscription, type AttachOptions, type EventSink } from "./subscription.ts";

/** After its session ended: how long a connection may take to read its last events before it is closed anyway. */
const FINAL_EVENTS_MS = 5000;
/** Queue size past which output events wait for the socket to drain. */
const HIGH_WATER = 4 * 1024 * 1024;
/**
 * Reply bytes a client may leave unread before its next requests wait for it to read: a 100-byte
 * session.output request can cost an 11 MB reply, so without a bound a client that pipelines them
 * and never reads grows the daemon without end.
 */
const MAX_UNREAD = 16 * 1024 * 1024;

type HeldFrame = Exclude<Frame, { tooLong: number }>;

const frameSize = (frame: HeldFrame): number => ("line" in frame ? frame.line.length : "bytes" in frame ? frame.bytes.length : 1);

/** A line parsed here, on the daemon's thread (a short one: big ones go to line-parser.ts). */
function parseFrame(frame: { line: string } | { invalidUtf8: true }): LineParsed {
  if ("invalidUtf8" in frame) return { malformed: "request line is not valid UTF-8" };
  try {
    return { msg: JSON.parse(frame.line) };
  } catch (err) {
    return { malformed: `invalid JSON: ${(err as Error).message}` };
  }
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
  private readonly splitter = new LineSplitter(MAX_LINE_BYTES, LINE_OFF_THREAD);
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

  /** The dialect the first message picked, and this connection's side of it. */
  private dialect: Dialect | null = null;
  private speaker: DialectConnection | null = null;
  /** The session whose end ends this connection, once its last events have gone out. */
  private endAfter: string | null = null;
  /** Waits pending on this connection (session.wait, session.input's wait), bounded in connection-limits.ts. */
  pendingWaits = 0;

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

  /** Its dialect wants output events as plain text (ralph's lines). */
  get plainText(): boolean {
    return this.speaker?.plainText ?? false;
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
      this.heldChars += frameSize(frame);
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
      this.heldChars -= frameSize(frame);
      // A big line is parsed off the thread; the lines after it wait for it, so requests run in order.
      const parsed = "bytes" in frame ? await parseOffThread(frame.bytes) : parseFrame(frame);
      if (this.closed || this.ending) break;
      const done = this.handleParsed(parsed);
      // Only a line with more behind it waits; a lone one goes its way as before.
      if (this.heldAt < this.held.length) await settledOrNextTurn(done);
    }
    if (this.heldAt === this.held.length) {
      this.held = [];
      this.heldAt = 0;
    }
    this.releasing = false;
  }

  private openDialect(dialect: Dialect): DialectConnection {
    this.dialect = dialect;
    return (this.speaker = dialect.open(this.nativeCaller(dialect)));
  }

  /** This connection's dialect, picked by its first message (undefined: a line that was not JSON). */
  private speak(first: unknown): DialectConnection {
    return this.speaker ?? this.openDialect(this.daemon.dialects.pick(first, { perSession: this.impliedSession !== undefined, own: this.socketDialect ?? undefined }));
  }

  /**
   * One request line through `dialect`, its reply returned rather than sent: a connection that
   * lives for one HTTP request (POST /rpc, POST /trl) answers in the response's body.
   */
  answer(line: string, dialect: Dialect): Promise<unknown> {
    const speaker = this.speaker ?? this.openDialect(dialect);
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      return Promise.resolve(speaker.malformed(`invalid JSON: ${(err as Error).message}`));
    }
    return speaker.handle(msg);
  }

  private malformed(message: string): void {
    this.send(this.speak(undefined).malformed(message));
    if (this.dialect?.oneShot) this.end();
  }

  private handleParsed(parsed: LineParsed): Promise<unknown> {
    if ("malformed" in parsed) {
      this.malformed(parsed.malformed);
      return Promise.resolve();
    }
    const { msg } = parsed;
    const speaker = this.speak(msg);
    return speaker
      .handle(msg)
      .catch((err: unknown) => {
        // A dialect answers its own errors; one that threw anyway is a fault, and the client
        // still gets an answer in its dialect's shape rather than none.
        logFault(`the ${this.dialect?.name ?? "native"} dialect`, err);
        return speaker.fault ? speaker.fault(err) : speaker.malformed(`internal error: ${err instanceof Error ? err.message : String(err)}`);
      })
      .then((reply) => {
        if (reply instanceof Serialized) this.sendLine(reply.json);
        else if (reply !== null) this.send(reply);
        if (this.dialect?.oneShot) this.end();
      });
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
    this.speaker?.event(e);
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

  /** How `dialect` reaches the native methods, events and per-session state from this connection. */
  private nativeCaller(dialect: Dialect): NativeCaller {
    const ctx: CallContext = { daemon: this.daemon, conn: this, signal: this.abort.signal };
    return {
      call: (method, params) => run(method, params, ctx) as Promise<never>,
      run: (method, params) => run(method, params, ctx),
      session: this.impliedSession,
      sessionState: (id, init) => this.daemon.dialectState(id, dialect.name, init),
      send: (msg) => this.send(msg),
      end: () => this.end(),
      signal: this.abort.signal,
    };
  }

  /** Writes as much of the queue as the socket takes; the rest waits for drain. */
  flush(): void {
    while (this.queue.length > 0 && !this.closed) {
      const head = this.queue[0]!;
      const n = this.socket.write(head);
      if (n < 0) return this.onClose();
      this.queued -= n;
      this.daemon.counters.bytesOut += n;
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

  /** Sessions this connection is subscribed to, bounded in connection-limits.ts. */
  get subscriptionCount(): number {
    return this.subs.size;
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
    for (const sub of this.subs.values()) sub.dispose();
    this.subs.clear();
    this.daemon.connections.delete(this);
  }
}
