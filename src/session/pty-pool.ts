// The pty workers (pty-worker.ts): a few threads that run the sessions' programs on PTYs and read
// their output, spread so each has about as many. The daemon's thread talks to them by messages.
import { availableParallelism } from "node:os";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";

export interface PtyHandler {
  message(m: FromPtyWorker): void;
  /** The worker died: the programs it ran lost their terminal. */
  lost(why: string): void;
}

interface Slot {
  worker: Worker;
  handlers: Map<number, PtyHandler>;
}

/** From source the worker sits beside this file; in the compiled binary under /$bunfs/root/ by its path below src/. */
const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./session/pty-worker.ts", import.meta.url)
  : new URL("./pty-worker.ts", import.meta.url);

export class PtyPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size = availableParallelism()) {
    for (let i = 0; i < Math.max(1, size); i++) this.slots.push(this.startSlot());
  }

  private startSlot(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_URL), handlers: new Map() };
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
    slot.worker.addEventListener("close", () => died("exited"));
    slot.worker.unref();
    return slot;
  }

  /** Registers a program on the least busy worker; returns how to send it messages. */
  open(handler: PtyHandler): { id: number; send(m: ToPtyWorker, transfer?: ArrayBuffer[]): void } {
    if (this.closed) throw new Error("the pty workers are shut down");
    const slot = this.slots.reduce((a, b) => (b.handlers.size < a.handlers.size ? b : a));
    const id = this.nextId++;
    slot.handlers.set(id, handler);
    return { id, send: (m, transfer = []) => slot.worker.postMessage(m, transfer) };
  }

  close(): void {
    this.closed = true;
    for (const s of this.slots) s.worker.terminate();
  }
}

let shared: PtyPool | null = null;

/** The process's pool, started on first use. */
export function ptyPool(): PtyPool {
  return (shared ??= new PtyPool());
}
