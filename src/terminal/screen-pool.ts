// The screen workers: a few threads (one per core by default) that hold the headless screens of
// sessions from an earlier daemon (a running session's is its pty worker's: pty/pty-pool.ts), spread
// so each has about as many. A worker that dies is replaced at once; each screen it held is
// reopened on the new one and told so, so its owner can rebuild it from the output. A worker
// starts when the first screen is given to it: a daemon with no such sessions runs none. A
// screen as its owner sees it (RemoteScreen) is the same wherever it lives.
import { availableParallelism } from "node:os";
import type { FromWorker, ScreenPart, SnapshotFormat, ToWorker } from "./screen-messages.ts";
import type { ScreenState } from "./screen.ts";
import type { Size } from "../protocol/schemas.ts";

export interface ScreenOwner {
  /** `fed`: the state after output its worker wrote in itself, not the answer to a message. */
  onState(offset: number, state: ScreenState, fed: boolean): void;
  onReply(data: string): void;
  /** The worker holding this screen died; it is open again, blank, on another. */
  onReopened(): void;
}

interface Slot {
  worker: Worker;
  screens: Set<RemoteScreen>;
  restarts: number;
  startedAt: number;
  /** Pause before the next restart, doubled by every early death. */
  delayMs: number;
  /** False once it died: its screens wait for the replacement, and it is not replaced twice. */
  alive: boolean;
}

export interface WorkerInfo {
  index: number;
  /** Screens it holds, parked ones included. */
  screens: number;
  /** Screens parked: their state kept by their session, their emulator freed until needed. */
  parked: number;
  restarts: number;
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

const channelOf = (worker: Worker): ScreenChannel => ({ send: (m, transfer) => worker.postMessage(m, transfer), token: worker });

let lastScreenId = 0;
/** Screen ids are unique across every thread that holds screens (screen workers and pty workers), so a screen can move between them. */
export const nextScreenId = () => ++lastScreenId;

/** A snapshot asked of a worker that died before answering: ask again once the screen is rebuilt. */
export class ScreenReopened extends Error {
  constructor() {
    super("the screen worker was replaced");
  }
}

/**
 * From source the worker sits beside this file. In the compiled binary (scripts/build.ts gives it
 * as a second entrypoint) modules live under /$bunfs/root/ by their path below src/, and
 * import.meta.url names the binary itself.
 */
const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./terminal/screen-worker.ts", import.meta.url)
  : new URL("./screen-worker.ts", import.meta.url);
export const DEFAULT_PARK_AFTER_MS = 5000;
/** A worker that dies this soon after it started is restarted after a growing pause, not at once. */
const EARLY_DEATH_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;

export class ScreenPool {
  /** null: not started yet. */
  private readonly slots: (Slot | null)[];
  private readonly byId = new Map<number, RemoteScreen>();
  private closed = false;

  /**
   * @param parkAfterMs how long a small screen's program must be quiet before the screen is parked
   *   (session/screen-view.ts); 0: never.
   */
  constructor(
    readonly size = availableParallelism(),
    readonly parkAfterMs = DEFAULT_PARK_AFTER_MS,
  ) {
    this.slots = new Array(Math.max(1, size)).fill(null);
  }

  private startSlot(restarts = 0, delayMs = 0): Slot {
    const slot: Slot = { worker: new Worker(WORKER_URL), screens: new Set(), restarts, startedAt: performance.now(), delayMs, alive: true };
    const worker = slot.worker;
    worker.onmessage = (ev: MessageEvent<FromWorker>) => this.byId.get(ev.data.id)?.receive(ev.data, worker);
    const died = (why: string) => {
      if (this.closed || !slot.alive) return;
      console.error(`termd: a screen worker died (${why}); its ${slot.screens.size} screens are rebuilt`);
      this.replace(slot);
    };
    slot.worker.addEventListener("error", (ev) => died((ev as ErrorEvent).message ?? "error"));
    slot.worker.addEventListener("close", () => died("exited"));
    // Workers never keep the daemon alive on their own: it ends when its own work does.
    slot.worker.unref();
    return slot;
  }

  private replace(dead: Slot, now = false): void {
    const i = this.slots.indexOf(dead);
    if (i < 0 || !dead.alive) return;
    dead.alive = false;
    dead.worker.terminate();
    // A worker that cannot even start (a broken build) must not be restarted in a tight loop.
    const early = performance.now() - dead.startedAt < EARLY_DEATH_MS;
    const delayMs = now || !early ? 0 : Math.min(MAX_RESTART_DELAY_MS, Math.max(100, dead.delayMs * 2));
    const start = () => {
      if (this.closed) return;
      const fresh = this.startSlot(dead.restarts + 1, delayMs);
      this.slots[i] = fresh;
      for (const screen of dead.screens) {
        fresh.screens.add(screen);
        screen.moveTo(channelOf(fresh.worker));
      }
    };
    if (delayMs === 0) start();
    else setTimeout(start, delayMs).unref();
  }

  /** Opens a blank screen on the least busy worker. */
  open(size: Size, scrollback: number, version: string, owner: ScreenOwner): RemoteScreen {
    if (this.closed) throw new Error("the screen workers are shut down");
    const load = (i: number) => this.slots[i]?.screens.size ?? 0;
    let i = 0;
    for (let j = 1; j < this.slots.length; j++) if (load(j) < load(i)) i = j;
    const slot = (this.slots[i] ??= this.startSlot());
    const screen = new RemoteScreen(
      nextScreenId(),
      channelOf(slot.worker),
      { rows: size.rows, cols: size.cols, scrollback, version },
      owner,
      () => {
        this.byId.delete(screen.id);
        for (const s of this.slots) s?.screens.delete(screen);
      },
    );
    slot.screens.add(screen);
    this.byId.set(screen.id, screen);
    return screen;
  }

  info(): WorkerInfo[] {
    return this.slots.map((s, index) => ({
      index,
      screens: s?.screens.size ?? 0,
      parked: s ? [...s.screens].filter((r) => r.parked).length : 0,
      restarts: s?.restarts ?? 0,
    }));
  }

  /** Ends worker `index` as a crash would (its screens are rebuilt on a fresh one); one not started yet has nothing to end. */
  restart(index: number): boolean {
    if (!Number.isInteger(index) || index < 0 || index >= this.slots.length) return false;
    const slot = this.slots[index];
    if (slot) this.replace(slot, true);
    return true;
  }

  close(): void {
    this.closed = true;
    for (const s of this.slots) s?.worker.terminate();
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

  snapshot(format: SnapshotFormat, scrollback: number): Promise<ScreenPart> {
    if (this.disposed) return Promise.reject(new Error("the screen is closed"));
    const req = this.nextReq++;
    const { promise, resolve, reject } = Promise.withResolvers<ScreenPart>();
    this.pending.set(req, { resolve, reject });
    this.send({ t: "snapshot", id: this.id, req, format, scrollback });
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

let shared: ScreenPool | null = null;

/** The process's pool, started on first use (the daemon makes its own, sized by its flags). */
export function screenPool(): ScreenPool {
  return (shared ??= new ScreenPool());
}
