// One client of the daemon, whatever carries it (a socket's or a WebSocket's connection, an HTTP
// request, a caller in the same process): its subscriptions, its pending waits, the session a
// per-session socket implies, and whether it may use the params that write files. This is what
// method handlers get; how its replies and events travel is the outlet's business.
import type { OutputFrame, OutputFraming } from "../protocol/output-frame.ts";
import type { RpcError } from "../protocol/errors.ts";
import type { EventMessage, EventType } from "../protocol/schemas.ts";
import type { AttachedStream } from "../session/stream.ts";
import type { AttachOptions, EventSink, Subscription } from "./subscription.ts";

/** After its session ended: how long a client may take to read its last events before it is closed anyway. */
const FINAL_EVENTS_MS = 5000;

/** Where a client's events go, and how it is ended. */
export interface PeerOutlet {
  /** There is room for more events now. */
  readonly writable: boolean;
  /** Its dialect wants output events as plain text (ralph's lines). */
  readonly plainText: boolean;
  /** How its dialect frames output events, when they can be made once for every connection alike. */
  readonly framing?: OutputFraming | null;
  /** An output event its framing made. */
  frame?(frame: OutputFrame): void;
  event(e: EventMessage): void;
  /** Ends the client's connection once what is queued has gone out. */
  end(): void;
  /** Tells the client why its connection is about to close, where its dialect has a way to (the native one's error line); nothing is sent after it. */
  farewell?(reason: RpcError): void;
  /** Resolves once what is queued for the client has been handed to its transport. */
  written?(): Promise<void>;
}

/** A client whose events go nowhere: an HTTP request's, or an in-process caller's. */
export const NO_OUTLET: PeerOutlet = { writable: true, plainText: false, event: () => {}, end: () => {} };

export interface PeerOptions {
  /** The session a per-session socket stands for: requests there need not name it. */
  impliedSession?: string;
  /** Params that write files on the daemon's machine are refused (a remote client's). */
  refusesFileParams?: boolean;
}

export class Peer implements EventSink {
  readonly impliedSession: string | undefined;
  readonly refusesFileParams: boolean;
  /** Waits pending for this client (session.wait, session.input's wait), bounded in connection-limits.ts. */
  pendingWaits = 0;
  private readonly subs = new Map<string, Subscription>();
  private readonly abort = new AbortController();
  /** The session whose end ends this client, once its last events have gone out. */
  private endAfter: string | null = null;

  constructor(
    private readonly outlet: PeerOutlet,
    opts: PeerOptions = {},
  ) {
    this.impliedSession = opts.impliedSession;
    this.refusesFileParams = opts.refusesFileParams ?? false;
  }

  /** Aborted when the client goes away, so long calls (wait) stop working for nobody. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get writable(): boolean {
    return this.outlet.writable;
  }

  get plainText(): boolean {
    return this.outlet.plainText;
  }

  get framing(): OutputFraming | null {
    return this.outlet.framing ?? null;
  }

  sendFrame(frame: OutputFrame): void {
    this.outlet.frame?.(frame);
  }

  sendEvent(e: EventMessage): void {
    this.outlet.event(e);
    if (e.type === "exit") this.checkEndAfter();
  }

  /** The outlet has room again: the subscriptions send what they held back. */
  drained(): void {
    if (this.outlet.writable) for (const sub of this.subs.values()) sub.catchUp();
    this.checkEndAfter();
  }

  /**
   * The session `id` (a per-session socket's) is over: this client is ended once its subscription
   * has sent the last output and the exit (what a dialect makes of them included), at once without
   * one, and after FINAL_EVENTS_MS whatever is left.
   */
  endWhenDelivered(id: string): void {
    if (this.endAfter !== null) return;
    this.endAfter = id;
    setTimeout(() => this.outlet.end(), FINAL_EVENTS_MS).unref?.();
    this.checkEndAfter();
  }

  private checkEndAfter(): void {
    if (this.endAfter === null || this.abort.signal.aborted) return;
    const sub = this.subs.get(this.endAfter);
    if (!sub || sub.delivered) this.outlet.end();
  }

  subscribe(session: AttachedStream, events: EventType[], replayFrom: number | null, opts: AttachOptions = {}): Subscription {
    const existing = this.subs.get(session.id);
    if (existing) {
      existing.add(events, opts, replayFrom);
      return existing;
    }
    // Required on the first subscription, not imported: its output framing and the VT parser it
    // strips output with are memory a daemon no client subscribed to does not need.
    const { Subscription: Made } = require("./subscription.ts") as typeof import("./subscription.ts");
    const sub = new Made(session, this, replayFrom);
    this.subs.set(session.id, sub);
    sub.add(events, opts);
    return sub;
  }

  /** Sessions this client is subscribed to, bounded in connection-limits.ts. */
  get subscriptionCount(): number {
    return this.subs.size;
  }

  /** Drops this client's subscription to a session that is gone. */
  forget(session: AttachedStream): void {
    this.subs.get(session.id)?.dispose();
    this.subs.delete(session.id);
    this.checkEndAfter();
  }

  /** This client's subscription to `session`, if it has one (an attached terminal, say). */
  subscription(session: AttachedStream): Subscription | undefined {
    return this.subs.get(session.id);
  }

  unsubscribe(session: AttachedStream, events: EventType[]): Set<EventType> {
    const sub = this.subs.get(session.id);
    if (!sub) return new Set();
    for (const e of events) sub.events.delete(e);
    if (sub.events.size === 0) {
      sub.dispose();
      this.subs.delete(session.id);
    }
    return sub.events;
  }

  /** The daemon is going in a way that ends this connection: say why first. */
  farewell(reason: RpcError): void {
    this.outlet.farewell?.(reason);
  }

  /** Resolves once what is queued for the client has gone out (lastLinesWritten() waits for it before the daemon's image goes). */
  written(): Promise<void> {
    return this.outlet.written?.() ?? Promise.resolve();
  }

  /** Ends the client's connection once what is queued has gone out (the daemon closes). */
  end(): void {
    this.outlet.end();
  }

  /** The client went away: its long calls stop, its subscriptions end. */
  close(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    for (const sub of this.subs.values()) sub.dispose();
    this.subs.clear();
  }
}
