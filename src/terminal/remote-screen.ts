// One screen in a worker thread as its session sees it on the daemon's thread: a screen worker's
// (screen-pool.ts) for a session from an earlier daemon, a pty worker's (pty/pty-pool.ts) for a
// running one. Writes are fire-and-forget, snapshots asked for; when its thread dies it is
// reopened, blank, on another (moveTo), and its owner rebuilds it.
import type { Size } from "../protocol/schemas.ts";
import type { FromWorker, ScreenPart, SnapshotFormat, ToWorker } from "./screen-messages.ts";
import type { PageAsk } from "./scrollback-page.ts";
import type { ScreenState } from "./screen.ts";

export interface ScreenOwner {
  /** `fed`: the state after output its worker wrote in itself, not the answer to a message. */
  onState(offset: number, state: ScreenState, fed: boolean): void;
  onReply(data: string): void;
  /** The worker holding this screen died; it is open again, blank, on another. */
  onReopened(): void;
}

/** What a screen opens with (screen-messages.ts "open"). */
export interface ScreenOpening {
  rows: number;
  cols: number;
  scrollback: number;
  version: string;
}

/** How a screen's messages reach the thread that holds it; `token` names that thread (a worker), so what a replaced one still says is told apart. */
export interface ScreenChannel {
  send(m: ToWorker, transfer: ArrayBuffer[]): void;
  readonly token: object;
}

let lastScreenId = 0;
/** Screen ids are unique across every thread that holds screens (screen workers and pty workers), so a screen can move between them. */
export const nextScreenId = () => ++lastScreenId;

/** A snapshot asked of a worker that died before answering: ask again once the screen is rebuilt. */
export class ScreenReopened extends Error {
  constructor() {
    super("the screen worker was replaced");
  }
}

/** One screen in a worker, as its session sees it: fire-and-forget writes, snapshots on request. */
export class RemoteScreen {
  private nextReq = 1;
  private readonly pending = new Map<number, { resolve: (p: ScreenPart) => void; reject: (e: Error) => void }>();
  private disposed = false;
  /** Closed in its worker to save memory; `unpark` opens it again, blank. */
  parked = false;

  constructor(
    readonly id: number,
    private channel: ScreenChannel,
    private readonly opening: ScreenOpening,
    private readonly owner: ScreenOwner,
    private readonly release: () => void,
  ) {
    this.send({ t: "open", id, ...opening });
  }

  private send(m: ToWorker, transfer?: ArrayBuffer[]): void {
    if (!this.disposed) this.channel.send(m, transfer ?? []);
  }

  /** Hands `data` over to the worker: its buffer is transferred, so it must be the caller's own copy. */
  write(data: Uint8Array, end: number, answer: boolean, clear = false): void {
    this.send({ t: "write", id: this.id, data, end, answer, ...(clear ? { clear } : {}) }, [data.buffer as ArrayBuffer]);
  }

  resize(size: Size): void {
    this.opening.rows = size.rows;
    this.opening.cols = size.cols;
    this.send({ t: "resize", id: this.id, rows: size.rows, cols: size.cols });
  }

  snapshot(format: SnapshotFormat, scrollback: number, page: PageAsk = {}): Promise<ScreenPart> {
    if (this.disposed) return Promise.reject(new Error("the screen is closed"));
    const req = this.nextReq++;
    const { promise, resolve, reject } = Promise.withResolvers<ScreenPart>();
    this.pending.set(req, { resolve, reject });
    this.send({ t: "snapshot", id: this.id, req, format, scrollback, page });
    return promise;
  }

  receive(m: FromWorker, from: object): void {
    // What a replaced worker still said on its way out is about a screen that no longer exists.
    if (this.disposed || from !== this.channel.token) return;
    if (m.t === "state") this.owner.onState(m.offset, m.state, m.fed === true);
    else if (m.t === "reply") this.owner.onReply(m.data);
    else {
      const p = this.pending.get(m.req);
      this.pending.delete(m.req);
      if (m.snapshot) p?.resolve(m.snapshot);
      else p?.reject(new Error(m.error ?? "snapshot failed"));
    }
  }

  /** Reopens this screen, blank at its current size, on another thread. Snapshots asked of the dead one fail with ScreenReopened. */
  moveTo(channel: ScreenChannel): void {
    this.channel = channel;
    for (const p of this.pending.values()) p.reject(new ScreenReopened());
    this.pending.clear();
    if (this.parked) return;
    this.send({ t: "open", id: this.id, ...this.opening });
    this.owner.onReopened();
  }

  /** Frees the emulator in the worker; only when nothing is asked of it. */
  park(): void {
    if (this.parked || this.pending.size > 0) return;
    this.send({ t: "close", id: this.id });
    this.parked = true;
  }

  /** Opens the screen again, blank at its current size: its owner replays what it showed. */
  unpark(): void {
    if (!this.parked) return;
    this.parked = false;
    this.send({ t: "open", id: this.id, ...this.opening });
  }

  dispose(): void {
    if (this.disposed) return;
    this.send({ t: "close", id: this.id });
    this.disposed = true;
    for (const p of this.pending.values()) p.reject(new Error("the screen is closed"));
    this.pending.clear();
    this.release();
  }
}
