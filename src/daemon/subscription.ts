// One client's interest in one session's events. Output is delivered in order with no gaps: while
// the connection's send queue is over its limit, output events are held back as an offset, and
// once it drains the subscriber is caught up from the ring (or the log) instead of being dropped.
import type { EventMessage, EventType } from "../protocol/schemas.ts";
import type { Session, SessionEvent } from "../session/session.ts";

const CATCH_UP_CHUNK = 256 * 1024;

export interface EventSink {
  /** True while the sink can take more without growing its queue past its limit. */
  readonly writable: boolean;
  sendEvent(e: EventMessage): void;
}

export class Subscription {
  readonly events = new Set<EventType>();
  /** Offset up to which output has been handed to the sink. */
  private sent: number;
  /** The exit event waits until every output byte before it has been sent. */
  private exitPending: { exit_code: number | null; signal: string | null } | null = null;
  private readonly off: () => void;

  constructor(
    readonly session: Session,
    private readonly sink: EventSink,
    replayFrom: number | null,
  ) {
    this.sent = replayFrom ?? session.ring.end;
    this.from = this.sent;
    this.off = session.on((e) => this.onEvent(e));
    // Subscribing to a session that already ended still tells the subscriber how it ended.
    if (!session.running) this.exitPending = { exit_code: session.exitCode, signal: session.signal };
  }

  /**
   * Where output delivery starts for the latest subscribe call: the client can tell what came
   * before from session.output. Kept apart from `sent`, which the catch-up on subscribing moves on
   * at once (a replay from 0 used to report the end of the catch-up instead of 0).
   */
  from: number;

  private emit(type: EventType, data: Record<string, unknown>): void {
    this.sink.sendEvent({ type, session: this.session.name, timestamp: new Date().toISOString(), data });
  }

  private onEvent(e: SessionEvent): void {
    switch (e.type) {
      case "output":
        if (this.events.has("output")) this.catchUp();
        break;
      case "title":
        if (this.events.has("title")) this.emit("title", { title: e.title });
        break;
      case "state":
        if (this.events.has("state")) this.emit("state", { state: e.state });
        break;
      case "exit":
        this.exitPending = { exit_code: e.exit_code, signal: e.signal };
        this.catchUp();
        break;
    }
  }

  /** Adds event types, then sends what is due from `from` on. */
  add(events: EventType[]): void {
    for (const e of events) this.events.add(e);
    this.from = this.sent;
    this.catchUp();
  }

  /** Sends every output byte not yet sent, as far as the sink has room; then a pending exit. */
  catchUp(): void {
    const wantOutput = this.events.has("output");
    while (wantOutput && this.sent < this.session.ring.end && this.sink.writable) {
      const bytes = this.session.readOutput(this.sent, CATCH_UP_CHUNK);
      if (bytes.length === 0) break;
      const from = this.sent;
      this.sent += bytes.length;
      this.emit("output", { from, to: this.sent, base64: Buffer.from(bytes).toString("base64") });
    }
    if (this.exitPending && (!wantOutput || this.sent >= this.session.ring.end)) {
      const exit = this.exitPending;
      this.exitPending = null;
      if (this.events.has("exit")) this.emit("exit", exit);
    }
  }

  dispose(): void {
    this.off();
  }
}
