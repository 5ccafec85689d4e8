// The screen workers: a few threads (one per core by default) that hold the headless screens of
// sessions from an earlier daemon (a running session's is its pty worker's: pty/pty-pool.ts), spread
// so each has about as many. A worker that dies is replaced (after a growing pause if it died
// early); each screen it held is reopened on the new one and told so, so its owner can rebuild it
// from the output. A worker starts when the first screen is given to it: a daemon with no such
// sessions runs none. A screen as its owner sees it (remote-screen.ts) is the same wherever it lives.
import { availableParallelism } from "node:os";
import { leastLoaded } from "../platform/least-loaded.ts";
import type { Timers } from "../platform/timers.ts";
import { restartDelay, startWorker } from "../platform/worker-thread.ts";
import type { Size } from "../protocol/schemas.ts";
import { countScreens, HeldScreens, type ScreenSet } from "./held-screens.ts";
import type { RemoteScreen, ScreenChannel, ScreenOwner } from "./remote-screen.ts";
import type { FromWorker } from "./screen-messages.ts";

interface Slot {
  worker: Worker;
  screens: ScreenSet;
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

const channelOf = (worker: Worker): ScreenChannel => ({ send: (m, transfer) => worker.postMessage(m, transfer), token: worker });

export const DEFAULT_PARK_AFTER_MS = 5000;

export class ScreenPool {
  /** null: not started yet. */
  private readonly slots: (Slot | null)[];
  private readonly screens = new HeldScreens();
  private closed = false;

  /**
   * @param timers the daemon's (a replacement's pause is one of them)
   * @param parkAfterMs how long a small screen's program must be quiet before the screen is parked
   *   (session/screen-view.ts); 0: never.
   */
  constructor(
    private readonly timers: Timers,
    readonly size = availableParallelism(),
    readonly parkAfterMs = DEFAULT_PARK_AFTER_MS,
  ) {
    this.slots = new Array(Math.max(1, size)).fill(null);
  }

  private startSlot(restarts = 0, delayMs = 0): Slot {
    const worker: Worker = startWorker<FromWorker>("terminal/screen-worker.ts", {
      message: (m) => this.screens.get(m.id)?.receive(m, worker),
      died: (why) => {
        if (this.closed || !slot.alive) return;
        console.error(`termd: a screen worker died (${why}); its ${slot.screens.size} screens are rebuilt`);
        this.replace(slot);
      },
    });
    const slot: Slot = { worker, screens: new Set(), restarts, startedAt: performance.now(), delayMs, alive: true };
    // Workers never keep the daemon alive on their own: it ends when its own work does.
    worker.unref();
    return slot;
  }

  private replace(dead: Slot, now = false): void {
    const i = this.slots.indexOf(dead);
    if (i < 0 || !dead.alive) return;
    dead.alive = false;
    dead.worker.terminate();
    const delayMs = now ? 0 : restartDelay(dead.startedAt, dead.delayMs);
    const start = () => {
      if (this.closed) return;
      const fresh = this.startSlot(dead.restarts + 1, delayMs);
      this.slots[i] = fresh;
      this.screens.move(dead.screens, fresh.screens, channelOf(fresh.worker));
    };
    if (delayMs === 0) start();
    else this.timers.after(delayMs, start);
  }

  /** Opens a blank screen on the least busy worker. */
  open(size: Size, scrollback: number, version: string, owner: ScreenOwner): RemoteScreen {
    if (this.closed) throw new Error("the screen workers are shut down");
    const slot = leastLoaded(
      this.slots,
      (s) => s.screens.size,
      () => this.startSlot(),
    );
    return this.screens.open(slot.screens, channelOf(slot.worker), { rows: size.rows, cols: size.cols, scrollback, version }, owner);
  }

  info(): WorkerInfo[] {
    return this.slots.map((s, index) => ({ index, ...countScreens(s?.screens), restarts: s?.restarts ?? 0 }));
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
