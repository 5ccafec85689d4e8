// The daemon's way to PNG: one worker thread (png-worker.ts), started on the first screenshot and
// ended after IDLE_MS without one, since resvg and the fonts hold about 30 MB. A worker that dies
// fails the screenshots it had; the next one starts a new worker.
import type { FromPngWorker, ToPngWorker } from "./png-messages.ts";

/** How long an unused worker is kept. */
const IDLE_MS = 30_000;

/** From source the worker sits beside this file; in the compiled binary under /$bunfs/root/ by its path below src/. */
const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./render/png-worker.ts", import.meta.url)
  : new URL("./png-worker.ts", import.meta.url);

type Pending = { resolve: (png: Uint8Array) => void; reject: (e: Error) => void };

export class Rasterizer {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idle: ReturnType<typeof setTimeout> | null = null;

  png(svg: string, scale = 1): Promise<Uint8Array> {
    const w = this.start();
    const id = this.nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
    this.pending.set(id, { resolve, reject });
    this.touch();
    w.postMessage({ id, svg, scale } satisfies ToPngWorker);
    return promise;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_URL);
    w.onmessage = (ev: MessageEvent<FromPngWorker>) => {
      const p = this.pending.get(ev.data.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      this.touch();
      if ("png" in ev.data) p.resolve(ev.data.png);
      else p.reject(new Error(`PNG rendering failed: ${ev.data.error}`));
    };
    const died = (why: string) => {
      if (this.worker !== w) return;
      this.worker = null;
      for (const p of this.pending.values()) p.reject(new Error(`the PNG worker ended: ${why}`));
      this.pending.clear();
    };
    w.addEventListener("error", (e) => died((e as ErrorEvent).message ?? "error"));
    w.addEventListener("close", () => died("closed"));
    this.worker = w;
    return w;
  }

  /** Restarts the idle clock; a worker with screenshots in flight is never idle. */
  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.pending.size === 0) this.close();
    }, IDLE_MS);
    this.idle.unref?.();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error("the daemon is shutting down"));
    this.pending.clear();
    w?.terminate();
  }
}
