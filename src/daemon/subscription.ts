// One client's interest in one session's events. Output is delivered in order with no gaps: while
// the connection's send queue is over its limit, output events are held back as an offset, and
// once it drains the subscriber is caught up from the ring (or the log) instead of being dropped.
// An attached terminal's stream has the daemon's own queries taken out (stripQueries), so the
// terminal does not answer what the daemon already did; from/to still count the session's bytes.
// A sink that takes output as plain text (a dialect's listener: ralph's lines) gets the text the
// vt tap makes instead of bytes. Both take their meaning from the tap's one parse of the stream.
// A sink with a framing (a native connection, the live cast) gets its output as frames made once
// for every subscriber of the session in that shape (output-frames.ts); no byte is read, copied
// or encoded for it alone unless its bytes are its own.
import type { OutputFrame, OutputFraming } from "../protocol/output-frame.ts";
import type { EventMessage, EventType, Size } from "../protocol/schemas.ts";
import type { AttachedStream, OutputStream, SessionEvent } from "../session/stream.ts";
import { OutputFrames, type PieceSource } from "./output-frames.ts";
import { StrippedOutput } from "./stripped-output.ts";
import { TextOutput } from "./text-output.ts";

const CATCH_UP_CHUNK = 256 * 1024;

export interface EventSink {
  /** True while the sink can take more without growing its queue past its limit. */
  readonly writable: boolean;
  /** Output goes to an in-process listener that wants plain text (`data.text`), not base64 bytes. */
  readonly plainText?: boolean;
  /** Output events in this shape, shared with the session's other subscribers in it; null: each made by sendEvent's caller. */
  readonly framing?: OutputFraming | null;
  /** An output event its framing made (the same object other subscribers at that offset get). */
  sendFrame?(frame: OutputFrame): void;
  sendEvent(e: EventMessage): void;
}

/** The output event at hand: its bytes are framed as they came, without a read of the ring. */
type Live = Extract<SessionEvent, { type: "output" }>;

/** What makes a subscriber an attached terminal rather than a watcher. */
export interface AttachOptions {
  /** Output without the queries the daemon answers itself. */
  stripQueries?: boolean;
  /** This connection may not type into the session. */
  readOnly?: boolean;
  /** The terminal's size: the session follows the smallest attached one (the holder's while held). */
  size?: Size;
  /** true: this subscriber takes the session over; false: gives it back. */
  takeOver?: boolean;
  /** Who takes it over, for session.info's held_by. */
  holder?: string;
}

export class Subscription {
  readonly events = new Set<EventType>();
  readOnly = false;
  /** Set once this subscriber is an attached terminal with a size. */
  private attachedSize: Size | null = null;
  /** Offset up to which output has been handed to the sink. */
  private sent: number;
  /** The exit event waits until every output byte before it has been sent. */
  private exitPending: { exit_code: number | null; signal: string | null; restarting?: boolean } | null = null;
  /**
   * The current run's exit is this subscriber's already (sent, or pending): the session ends (its
   * state) before it tells its exit (once its screen is saved), so one that subscribed between the
   * two has it from subscribing and must not get it again. A restart's next run ends anew.
   */
  private exitKnown = false;
  private readonly off: () => void;
  /** Set while this subscriber's output goes without the queries the daemon answers. */
  private stripped: StrippedOutput | null = null;
  /** Set while this subscriber's output goes as plain text. */
  private text: TextOutput | null = null;
  private readonly frames: OutputFrames;
  /** The session's output, which this sends. */
  private readonly stream: OutputStream;
  /** The shape its output frames take (output-frames.ts), once it took any. */
  private frameKey: string | null = null;
  private disposed = false;

  constructor(
    readonly session: AttachedStream,
    private readonly sink: EventSink,
    replayFrom: number | null,
  ) {
    this.stream = session.stream;
    this.sent = replayFrom ?? session.stream.output.end;
    this.from = this.sent;
    this.frames = OutputFrames.of(session);
    this.off = session.stream.on((e) => this.onEvent(e));
    // Subscribing to a session that already ended still tells the subscriber how it ended.
    if (!session.running) {
      this.exitPending = { exit_code: session.exitCode, signal: session.signal };
      this.exitKnown = true;
    }
  }

  /**
   * Where output delivery starts for the latest subscribe call: the client can tell what came
   * before from session.output. Kept apart from `sent`, which the catch-up on subscribing moves on
   * at once (a replay from 0 used to report the end of the catch-up instead of 0).
   */
  from: number;

  private emit(type: EventType, data: Record<string, unknown>): void {
    this.sink.sendEvent({ type, session: this.session.name, session_id: this.session.id, timestamp: new Date().toISOString(), data });
  }

  /**
   * Title, bell, mode and state events while the sink is full: only the latest of each is kept
   * (each carries the whole current value), so a program cycling titles cannot grow the queue of
   * a client that does not read. They go out once it drains.
   */
  private readonly held = new Map<string, { type: EventType; data: Record<string, unknown> }>();

  private emitLatest(key: string, type: EventType, data: Record<string, unknown>): void {
    if (!this.events.has(type)) return;
    if (this.sink.writable && this.held.size === 0) return this.emit(type, data);
    this.held.delete(key);
    this.held.set(key, { type, data });
  }

  private onEvent(e: SessionEvent): void {
    switch (e.type) {
      case "output":
        if (this.events.has("output")) this.catchUp(e);
        break;
      case "text":
        this.text?.take(e, this.sent);
        break;
      case "title":
        this.emitLatest("title", "title", { title: e.title });
        break;
      case "bell":
        this.emitLatest("bell", "bell", { count: e.count });
        break;
      case "mode":
        this.emitLatest(`mode:${e.mode}`, "mode", { mode: e.mode, value: e.value });
        break;
      case "state":
        if (e.state === "running") this.exitKnown = false;
        this.emitLatest("state", "state", { state: e.state });
        break;
      case "hold":
        this.emitLatest("hold", "hold", { held_by: e.hold?.held_by ?? null, held_since: e.hold?.held_since ?? null });
        break;
      case "exit":
        if (this.exitKnown) break;
        // A restart's exit is not its run's last word: a restart that cannot start the program
        // again sends a second exit, without the flag.
        this.exitKnown = !e.restarting;
        this.exitPending = { exit_code: e.exit_code, signal: e.signal, ...(e.restarting ? { restarting: true } : {}) };
        this.catchUp();
        break;
    }
  }

  /**
   * Adds event types (and attach options), then sends what is due from `from` on. A replay
   * offset given while output is not subscribed yet moves the start there (attach subscribes
   * first, then paints the screen, then asks for output from the offset that screen reflects).
   */
  add(events: EventType[], opts: AttachOptions = {}, replayFrom: number | null = null): void {
    if (replayFrom !== null && !this.events.has("output")) this.sent = replayFrom;
    for (const e of events) this.events.add(e);
    if (opts.stripQueries !== undefined) this.stripped = opts.stripQueries ? (this.stripped ?? new StrippedOutput(this.stream)) : null;
    if (this.sink.plainText && this.events.has("output")) this.text ??= new TextOutput(this.stream);
    if (opts.readOnly !== undefined) this.readOnly = opts.readOnly;
    // A holder that turns read-only has stopped typing: it holds the session for nobody.
    if (opts.takeOver === false || this.readOnly) this.session.hold.give(this);
    else if (opts.takeOver) this.session.hold.take(this, opts.holder);
    if (opts.size) this.setSize(opts.size);
    this.from = this.sent;
    this.catchUp();
  }

  /** Everything asked for has gone to the sink: held events, every output byte, the exit once it came. */
  get delivered(): boolean {
    return (
      this.held.size === 0 &&
      (!this.events.has("output") || this.sent >= this.stream.output.end) &&
      (!this.events.has("exit") || this.exitPending === null)
    );
  }

  /** Sends every output byte not yet sent, as far as the sink has room; then a pending exit. */
  catchUp(live: Live | null = null): void {
    for (const [key, e] of this.held) {
      if (!this.sink.writable) break;
      this.held.delete(key);
      this.emit(e.type, e.data);
    }
    const wantOutput = this.events.has("output");
    if (!wantOutput && this.text) {
      // Unsubscribed from output: the tap need not make text for it any more.
      this.text.dispose();
      this.text = null;
    }
    // Counted among its shape's subscribers before it sends, and while it waits: the frames made
    // meanwhile are kept for it.
    this.useShape(wantOutput && !this.text ? this.sink.framing : null);
    while (wantOutput && this.sent < this.stream.output.end && this.sink.writable) {
      if (!this.sendOutput(this.stream.output.end, live)) break;
    }
    if (this.exitPending && (!wantOutput || this.sent >= this.stream.output.end)) {
      // The stream ended inside a sequence: what the filter held back is still output.
      const held = this.stripped?.flush();
      if (held?.length && wantOutput) {
        this.emitBytes(this.sent, this.sent, held);
      }
      // Kept until someone asks for it: attach subscribes to exit only after painting.
      if (this.events.has("exit")) {
        const exit = this.exitPending;
        this.exitPending = null;
        this.emit("exit", exit);
      }
    }
  }

  /** Sends the next piece of output from `sent` up to `end`; false when none can go yet. */
  private sendOutput(end: number, live: Live | null): boolean {
    const from = this.sent;
    if (this.text) {
      const t = this.text.next(from, end, CATCH_UP_CHUNK);
      if (!t) return false;
      this.sent = t.to;
      this.emit("output", { from, to: t.to, text: t.text });
      return true;
    }
    // catchUp counted it in its shape just now: frameKey is that shape's.
    const framing = this.sink.framing;
    const key = this.frameKey;
    if (framing && key !== null && this.sink.sendFrame) {
      const stripped = this.stripped;
      const piece = stripped
        ? this.frames.piece(key, framing, from, (at, max) => stripped.next(at, end, max, !this.session.running), stripped.byTap(from, end))
        : this.frames.piece(key, framing, from, this.bytesFrom(live), true);
      if (!piece) return false;
      this.sent = piece.to;
      this.sink.sendFrame(piece.frame);
      return true;
    }
    if (this.stripped) {
      const o = this.stripped.next(from, end, CATCH_UP_CHUNK, !this.session.running);
      if (!o) return false;
      this.sent = o.to;
      this.emitBytes(from, o.to, o.bytes);
      return true;
    }
    const bytes = this.stream.readOutput(from, CATCH_UP_CHUNK);
    if (bytes.length === 0) return false;
    this.sent += bytes.length;
    this.emitBytes(from, this.sent, bytes);
    return true;
  }

  /** The shape of this subscriber's output frames now (null: none), as its session's frames count it. */
  private useShape(framing: OutputFraming | null | undefined): string | null {
    const key = framing && this.sink.sendFrame ? (this.stripped ? `${framing.key}+stripped` : framing.key) : null;
    this.frames.use(key, this.frameKey);
    this.frameKey = key;
    return key;
  }

  /** The output from an offset: the live event's own bytes where it holds them, else the ring's (or the log's). */
  private bytesFrom(live: Live | null): PieceSource {
    return (from, max) => {
      if (live && from >= live.from && from < live.to) {
        const to = Math.min(live.to, from + max);
        return { to, bytes: live.data.subarray(from - live.from, to - live.from) };
      }
      const bytes = this.stream.readOutput(from, max);
      return bytes.length > 0 ? { to: from + bytes.length, bytes } : null;
    };
  }

  /** An output event of bytes this subscriber alone has (the end of its stripped stream): framed for it, or base64. */
  private emitBytes(from: number, to: number, bytes: Uint8Array): void {
    const framing = this.sink.framing;
    if (framing && this.sink.sendFrame) this.sink.sendFrame(this.frames.frame(framing, from, to, bytes));
    else this.emit("output", { from, to, base64: Buffer.from(bytes).toString("base64") });
  }

  /** Records this attached terminal's size; the session resizes to the smallest one. */
  setSize(size: Size): void {
    this.attachedSize = size;
    this.session.setClientSize(this, size);
  }

  get attached(): boolean {
    return this.attachedSize !== null;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.off();
    this.frames.use(null, this.frameKey);
    this.text?.dispose();
    this.session.setClientSize(this, null);
    // Detached or gone: a hold ends with its holder.
    this.session.hold.give(this);
  }
}
