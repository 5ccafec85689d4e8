// The pty workers (pty-worker.ts): a few threads that run the sessions' programs on PTYs and read
// their output, spread so each has about as many. The daemon's thread talks to them by messages.
// A worker starts when the first program is given to it: a daemon with no sessions runs none
// (each costs a few megabytes).
import { closeSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import { ptyLibc } from "../platform/pty-libc.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";

export interface PtyHandler {
  message(m: FromPtyWorker): void;
  /** The worker died: the programs it ran lost their terminal. */
  lost(why: string): void;
}

interface Slot {
  worker: Worker;
  handlers: Map<number, PtyHandler>;
  /** The pipe a message is followed by a byte on, to wake the worker's poll; null where Bun.Terminal reads. */
  wake: [number, number] | null;
}

const ONE = new Uint8Array([1]);

/** From source the worker sits beside this file; in the compiled binary under /$bunfs/root/ by its path below src/. */
const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./session/pty-worker.ts", import.meta.url)
  : new URL("./pty-worker.ts", import.meta.url);

export class PtyPool {
  /** null: not started yet. */
  private readonly slots: (Slot | null)[];
  private nextId = 1;
  private closed = false;

  constructor(readonly size = availableParallelism()) {
    this.slots = new Array(Math.max(1, size)).fill(null);
  }

  private startSlot(): Slot {
    const wake = ptyLibc()?.pipe() ?? null;
    const slot: Slot = { worker: new Worker(WORKER_URL), handlers: new Map(), wake };
    if (wake) slot.worker.postMessage({ t: "init", wakeFd: wake[0] } satisfies ToPtyWorker);
    slot.worker.onmessage = (ev: MessageEvent<FromPtyWorker>) => {
      const h = slot.handlers.get(ev.data.id);
      if (ev.data.t === "exit" || ev.data.t === "failed") slot.handlers.delete(ev.data.id);
      h?.message(ev.data);
    };
    const died = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (this.closed || i < 0) return;
      console.error(`termd: a pty worker died (${why}); its ${slot.handlers.size} programs lost their terminal`);
      this.slots[i] = this.startSlot();
      for (const h of slot.handlers.values()) h.lost(why);
      slot.handlers.clear();
    };
    slot.worker.addEventListener("error", (ev) => died((ev as ErrorEvent).message ?? "error"));
    slot.worker.addEventListener("close", () => {
      // Nothing polls the pipe any more.
      this.closeWake(slot);
      died("exited");
    });
    slot.worker.unref();
    return slot;
  }

  /** Registers a program on the least busy worker; returns how to send it messages. */
  open(handler: PtyHandler): { id: number; send(m: ToPtyWorker, transfer?: ArrayBuffer[]): void } {
    if (this.closed) throw new Error("the pty workers are shut down");
    const load = (i: number) => this.slots[i]?.handlers.size ?? 0;
    let i = 0;
    for (let j = 1; j < this.slots.length; j++) if (load(j) < load(i)) i = j;
    const slot = (this.slots[i] ??= this.startSlot());
    const id = this.nextId++;
    slot.handlers.set(id, handler);
    return {
      id,
      send: (m, transfer = []) => {
        slot.worker.postMessage(m, transfer);
        if (slot.wake) {
          try {
            writeSync(slot.wake[1], ONE);
          } catch {} // EAGAIN: the pipe is full of wake-ups already.
        }
      },
    };
  }

  private closeWake(slot: Slot): void {
    if (!slot.wake) return;
    for (const fd of slot.wake) closeSync(fd);
    slot.wake = null;
  }

  close(): void {
    this.closed = true;
    for (const s of this.slots) {
      if (!s) continue;
      s.worker.terminate();
      // A worker waiting in poll(2) ends once that returns: wake it. The pipe stays open: closing
      // it under a poll would not wake it; it is closed once the worker has exited.
      if (s.wake) writeSync(s.wake[1], ONE);
    }
  }
}

let shared: PtyPool | null = null;

/** The process's pool, started on first use. */
export function ptyPool(): PtyPool {
  return (shared ??= new PtyPool());
}
