// The client library: one persistent connection, typed calls with concurrent replies matched by
// id, and event subscriptions. Runs under Node as well as Bun (transport.ts); depends on
// src/protocol only.
import type { WireError } from "../protocol/errors.ts";
import { LineSplitter } from "../protocol/framing.ts";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
import { defaultSocketPath } from "../protocol/paths.ts";
import type { EventMessage, SubscribeInput } from "../protocol/schemas.ts";
import { connectWhenUp } from "./connect-when-up.ts";
import { deferred } from "./deferred.ts";
import { wholeScreen } from "./screen-pages.ts";
import { isReplaced, RETRIES, RETRY_WITHIN_MS, sendsAgain, within, wireError } from "./replaced-retry.ts";
import { openTransport, type TransportOptions } from "./transport.ts";
import type { Transport } from "./transport-interface.ts";

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

type Listener = (e: EventMessage) => void;

type DaemonStart = { pid: number; started_at?: string };

/** A session.subscribe call made on this connection, and the id of the session it named (which a rename leaves alone). */
type Tracked = { params: SubscribeInput; id?: string };

export class ConnectionClosedError extends Error {}
/** A call made on a connection that was already closed: it was never sent, so it may be sent again. */
export class NotSentError extends ConnectionClosedError {}

export class Client {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<Listener>();
  /** Told once the subscriptions were made again on a daemon that replaced the one they were made to. */
  private readonly resumeListeners = new Set<() => void>();
  private splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  /**
   * Why the connection closed: an error, or how to make one once something asks. A command-line
   * call closes with nothing waiting, and a process's first Error subclass costs it 0.4 ms.
   */
  private closedWhy: Error | (() => Error) | null = null;
  readonly closed: Promise<void>;
  private readonly markClosed: () => void;
  private socket!: Transport;
  private holdOnlyWhileBusy = false;
  private opts: TransportOptions = {};
  /** Closed by this side: no resuming. */
  private closing = false;
  /**
   * This connection's session.subscribe calls, and the daemon they were made to (its pid and
   * start): resumed on a new connection when the daemon is replaced in place (same pid, a new
   * start: `termd daemon restart`), from the last output offset seen, so nothing is lost or doubled.
   */
  private readonly subscribed: Tracked[] = [];
  private daemonStart: DaemonStart | null = null;
  /** The end of the last output event seen, by session name and id. */
  private readonly outputTo = new Map<string, number>();
  /** Resolves when this connection closes. */
  private gone: Promise<void> = Promise.resolve();
  /** The new connection under way after a replacement (reopen), shared by all that wait for it. */
  private reopened: Promise<DaemonStart | null> | null = null;
  /** A reopen is under way: a connection of its own that closes is its to deal with. */
  private reopening = false;
  /** Calls refused by a daemon being replaced that wait to be sent to the next (`retrying`). */
  private waitingCalls = 0;

  private constructor(readonly socketPath: string) {
    const { promise, resolve } = deferred<void>();
    this.closed = promise;
    this.markClosed = resolve;
  }

  /** Connects to the daemon at `socketPath`, or at an http(s):// URL (`termd daemon --http`). */
  static async open(socketPath: string, opts: TransportOptions = {}): Promise<Client> {
    const c = new Client(socketPath);
    c.opts = opts;
    c.socket = await c.openSocket();
    return c;
  }

  private async openSocket(): Promise<Transport> {
    const { promise: gone, resolve: markGone } = deferred<void>();
    const socket = await openTransport(
      this.socketPath,
      {
        data: (chunk) => {
          for (const f of this.splitter.push(chunk)) if ("line" in f) this.onLine(f.line);
        },
        close: () => {
          this.fail(() => new ConnectionClosedError(`connection to ${this.socketPath} closed`));
          markGone();
          if (this.reopening) return;
          if (this.closing || this.subscribed.length === 0) return this.markClosed();
          void this.resumeReplaced().then((resumed) => resumed || this.markClosed());
        },
        error: (err) => this.fail(err),
      },
      this.opts,
    );
    this.gone = gone;
    this.holdOnlyWhileBusy = this.opts.holdOnlyWhileBusy === true;
    if (this.holdOnlyWhileBusy) socket.hold(false);
    return socket;
  }

  /**
   * After the connection closed under subscriptions: connects again and, if the same daemon
   * process answers as a new start (it was replaced in place), subscribes again as before, output
   * from where it stopped. False when it was not (stopped, killed, another daemon): closed for good.
   */
  private async resumeReplaced(): Promise<boolean> {
    const before = this.daemonStart;
    if (!before) return false;
    // Told it is being replaced, it waits for the next image (a URL's port is closed a moment);
    // closed otherwise (its farewell lost to a close, say), it tries once: a stopped daemon is not waited for.
    const ping = await this.reopenShared(isReplaced(this.closedError()) ? Date.now() + RETRY_WITHIN_MS : Date.now());
    if (!ping) return false;
    try {
      if (ping.started_at === before.started_at || ping.started_at === undefined) throw new Error("not replaced");
      this.daemonStart = ping;
      const calls = this.subscribed.splice(0);
      for (const { params, id } of calls) {
        // By its id where known: the session may have been renamed since.
        const again = id !== undefined ? { ...params, session: id } : params;
        const to = again.session !== undefined ? this.outputTo.get(again.session) : undefined;
        const wantsOutput = (params.events ?? ["*"]).some((e) => e === "output" || e === "*");
        await this.send("session.subscribe", wantsOutput && to !== undefined ? { ...again, replay: to } : again);
      }
      for (const l of this.resumeListeners) {
        // A listener's throw is its own: the subscriptions are made already, the other listeners are
        // still told, and the connection stays (the client reports errors only as a call's rejection,
        // and no call is this listener's).
        try {
          l();
        } catch {}
      }
      return true;
    } catch {
      this.closing = true;
      this.socket.close();
      return false;
    }
  }

  /**
   * After the daemon closed the connection for its replacement: connects again (the listening
   * socket is never unbound, so a connection waits in its queue for the next image) and pings.
   * The ping's answer once a daemon gives it that is not saying its farewell, and is the same
   * process as before where that is known; else, by `deadline`, null, and the client is closed.
   */
  private reopenShared(deadline: number): Promise<DaemonStart | null> {
    this.reopened ??= this.reopen(deadline).then((ping) => {
      this.reopened = null;
      if (ping) return ping;
      this.closing = true;
      this.socket.close();
      this.markClosed();
      return null;
    });
    return this.reopened;
  }

  private async reopen(deadline: number): Promise<DaemonStart | null> {
    const before = this.daemonStart;
    this.reopening = true;
    try {
      do {
        // What the old connection left of a line is not the start of the new one's.
        this.splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
        const socket = await connectWhenUp(() => this.openSocket(), deadline);
        if (!socket) return null;
        this.socket = socket;
        this.closedWhy = null;
        const gone = this.gone;
        try {
          const ping = await this.send("system.ping");
          return before === null || ping.pid === before.pid ? ping : null;
        } catch (err) {
          // Came while the old image still says its farewell (it closes this connection too), or
          // as it went: a ping is sent again as freely as a call it refused.
          if (!(isReplaced(err) || err instanceof ConnectionClosedError) || !(await within(gone, deadline))) return null;
        }
      } while (Date.now() < deadline);
      return null;
    } finally {
      this.reopening = false;
    }
  }

  /** Once the daemon that replaces the one whose connection `gone` tells of answers on a new connection: true; false if none did by `deadline`. */
  private async daemonBack(gone: Promise<void>, deadline: number): Promise<boolean> {
    // The old image closes the connection at its exec (or at once, should it serve on).
    if (!(await within(gone, deadline)) || this.closing) return false;
    // Another call, or the subscriptions' resume, connected again already.
    if (!this.reopened && this.gone !== gone && this.closedWhy === null) return true;
    return (await this.reopenShared(deadline)) !== null;
  }

  private closedError(): Error | null {
    if (typeof this.closedWhy === "function") this.closedWhy = this.closedWhy();
    return this.closedWhy;
  }

  private fail(why: Error | (() => Error)): void {
    this.closedWhy ??= why;
    if (this.pending.size === 0) return;
    const err = this.closedError()!;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** With holdOnlyWhileBusy: hold the process while a call waits, let it go when none does. */
  private busy(): void {
    if (this.holdOnlyWhileBusy) this.socket.hold(this.pending.size > 0);
  }

  private onLine(line: string): void {
    let msg: { id?: number | null; result?: unknown; error?: WireError; method?: string; params?: EventMessage };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.method === "event" && msg.params) {
      const e = msg.params;
      if (e.type === "output" && typeof e.data.to === "number") {
        this.outputTo.set(e.session, e.data.to);
        if (e.session_id !== undefined) this.outputTo.set(e.session_id, e.data.to);
      }
      for (const l of this.listeners) l(e);
      return;
    }
    // An error for no request is about the connection (the daemon refused it, or is closing it):
    // every call on it fails with that reason rather than a bare "closed". A DAEMON_REPLACED so
    // may cut calls under way: they are not sent again.
    if (msg.id === null && msg.error) return this.fail(wireError(msg.error, false));
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p) return;
    this.pending.delete(msg.id!);
    this.busy();
    const err = msg.error && wireError(msg.error, true);
    // A request refused because the daemon is being replaced: the daemon runs nothing more on
    // this connection (it was made during the farewell), so the calls behind it did not run either.
    if (err && isReplaced(err)) this.fail(err);
    if (err) p.reject(err);
    else p.resolve(msg.result);
  }

  /**
   * Calls a native method; rejects with RpcError (error.name is the code name) on an error reply.
   * A call the daemon refused unrun because it is being replaced (DAEMON_REPLACED) is sent again
   * once the next daemon answers (replaced-retry.ts); one cut under way is not: it may have run.
   */
  call<M extends MethodName>(method: M, params?: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.attempt(method, params, Date.now() + RETRY_WITHIN_MS, RETRIES);
  }

  private attempt<M extends MethodName>(method: M, params: ParamsOf<M> | undefined, deadline: number, left: number): Promise<ResultOf<M>> {
    const gone = this.gone;
    return this.send(method, params).catch(async (err: unknown) => {
      const notSent = err instanceof NotSentError;
      if (left === 0 || this.closing || !sendsAgain(notSent ? err.cause : err, notSent)) throw err;
      this.waitingCalls++;
      try {
        if (!(await this.daemonBack(gone, deadline))) throw err;
      } finally {
        this.waitingCalls--;
      }
      return this.attempt(method, params, deadline, left - 1);
    });
  }

  /** Calls `method` once, on this connection. */
  private send<M extends MethodName>(method: M, params?: ParamsOf<M>): Promise<ResultOf<M>> {
    const closed = this.closedError();
    if (closed) return Promise.reject(new NotSentError(closed.message, { cause: closed }));
    const id = this.nextId++;
    const { promise, resolve, reject } = deferred<unknown>();
    this.pending.set(id, { resolve, reject });
    if (this.pending.size === 1) this.busy();
    this.socket.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: params ?? {} }) + "\n");
    if (method === "session.subscribe") void this.track(params as SubscribeInput, promise).catch(() => {});
    else if (method === "session.unsubscribe") this.untrack(params as { session?: string });
    else if (method === "session.resize") void this.resized(params as ParamsOf<"session.resize">, promise).catch(() => {});
    return promise as Promise<ResultOf<M>>;
  }

  /** How many calls, refused by a daemon being replaced, wait for the next to be sent again. */
  get retrying(): number {
    return this.waitingCalls;
  }

  /** session.screenshot, decoded: the PNG file's bytes, or the SVG document. */
  async screenshot(session: string, opts: { format: "png"; scale?: number }): Promise<Uint8Array>;
  async screenshot(session: string, opts?: { format?: "svg" }): Promise<string>;
  async screenshot(session: string, opts: { format?: "svg" | "png"; scale?: number } = {}): Promise<string | Uint8Array> {
    const r = await this.call("session.screenshot", { session, format: opts.format ?? "svg", scale: opts.scale });
    return r.format === "png" ? new Uint8Array(Buffer.from(r.base64!, "base64")) : r.svg!;
  }

  /**
   * session.screen with all the `scrollback` it asks for: a reply holds the newest lines that fit
   * its bound, so the older ones are read in pages and put back in order (screen-pages.ts).
   */
  screen(params: ParamsOf<"session.screen">): Promise<ResultOf<"session.screen">> {
    return wholeScreen((p) => this.call("session.screen", p), params);
  }

  /** Every event notification this connection receives. Returns the way to stop listening. */
  onEvent(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Remembers a subscription made on this connection (and the daemon it was made to), to be made
   * again should the daemon be replaced in place (resumeReplaced).
   */
  private async track(params: SubscribeInput, call: Promise<unknown>): Promise<void> {
    await call;
    // The same call twice is made once again.
    const same = JSON.stringify(params);
    let tracked = this.subscribed.find((s) => JSON.stringify(s.params) === same);
    // Tracked at once (a resume's listeners resize right after it), its id known a reply later.
    if (!tracked) this.subscribed.push((tracked = { params }));
    if (params.session !== undefined) tracked.id ??= await this.idOf(params.session);
    if (this.daemonStart === null) {
      const { pid, started_at } = await this.send("system.ping");
      this.daemonStart = { pid, started_at };
    }
  }

  /**
   * A resize on this connection: an attached terminal's new size (the daemon takes it as such),
   * which its subscription is made again with, not the size it attached with.
   */
  private async resized(p: ParamsOf<"session.resize">, call: Promise<unknown>): Promise<void> {
    await call;
    if (!this.subscribed.some((s) => s.params.size)) return;
    // The session by its id: the resize may name it otherwise than the subscribe did (by name, by id, renamed since).
    const id = (await this.idOf(p.session)) ?? p.session;
    for (const s of this.subscribed)
      if (s.params.size && (s.id ?? s.params.session) === id) s.params = { ...s.params, size: { rows: p.rows, cols: p.cols } };
  }

  /** The id of the session `session` names: known when a tracked subscription has it, else the daemon's (undefined when it has no such session). */
  private async idOf(session: string): Promise<string | undefined> {
    if (this.subscribed.some((s) => s.id === session)) return session;
    try {
      return (await this.send("session.info", { session })).id;
    } catch {
      return undefined;
    }
  }

  /** Calls `fn` each time the subscriptions were made again on the daemon that replaced this one's in place (`termd daemon restart`). Returns the way to stop. */
  onResume(fn: () => void): () => void {
    this.resumeListeners.add(fn);
    return () => this.resumeListeners.delete(fn);
  }

  /** An unsubscribe: the session's subscriptions are not made again on a resume. */
  private untrack(params: { session?: string }): void {
    for (let i = this.subscribed.length - 1; i >= 0; i--) {
      const s = this.subscribed[i]!;
      if (s.params.session === params.session || (s.id !== undefined && s.id === params.session)) this.subscribed.splice(i, 1);
    }
  }

  /** Subscribes and listens in one step; events arriving after the reply reach `fn`. */
  async subscribe(params: SubscribeInput, fn: Listener): Promise<{ from?: number; unsubscribe: () => Promise<void> }> {
    // Events name their session (and carry its id, which a rename leaves alone); `fn` gets only
    // this one's, though the connection may carry more.
    const info = params.session !== undefined ? await this.call("session.info", { session: params.session }) : undefined;
    const off = this.onEvent((e) =>
      info === undefined || (e.session_id !== undefined ? e.session_id === info.id : e.session === info.name) ? fn(e) : undefined,
    );
    try {
      const r = await this.call("session.subscribe", params);
      return {
        from: r.from,
        unsubscribe: async () => {
          off();
          if (!this.closedWhy) await this.call("session.unsubscribe", { session: params.session, events: params.events });
        },
      };
    } catch (err) {
      off();
      throw err;
    }
  }

  /** Stops reading from the daemon (it holds output back meanwhile, losing nothing). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.closing = true;
    this.socket.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * Connects to the daemon at `target`: a socket path, or a remote daemon's http(s):// URL with
 * `opts.token` (default $TERMD_TOKEN). Default: $TERMD_URL, else $TERMD_SOCKET or the per-user socket.
 */
export function connect(target: string = defaultTarget(), opts: TransportOptions = {}): Promise<Client> {
  return Client.open(target, opts);
}

/** Where a client goes when told nothing: $TERMD_URL, else the local socket. */
export function defaultTarget(env: NodeJS.ProcessEnv = process.env): string {
  return env.TERMD_URL || defaultSocketPath(env);
}
