// The daemon's way to PNG: one worker thread (png-worker.ts), started on the first screenshot and
// ended after IDLE_MS without one, since resvg and the fonts hold about 30 MB. Pictures wait here
// and go to the worker one at a time, so one whose client went away meanwhile is never drawn. A
// worker that drew a large picture is ended as soon as it has nothing more to draw: WebAssembly
// memory never shrinks, so it would otherwise keep the picture's size (up to 128 MB,
// MAX_PNG_PIXELS) until then. A worker that dies fails the picture it was drawing, and the next
// picture starts a new worker: unlike the pools' workers it holds nothing to move to a
// replacement, and starting one it may not need would cost the memory the idle end saves.
import { startWorker } from "../platform/worker-thread.ts";
import type { FromPngWorker, ToPngWorker } from "./png-messages.ts";

/** How long an unused worker is kept. */
const IDLE_MS = 30_000;
/** A picture this large (16 MiB of pixels: a 200×60 screen at scale 2) ends its worker once it is idle. */
export const LARGE_PNG_PIXELS = 4 * 1024 * 1024;

interface Job {
  id: number;
  svg: string;
  scale: number;
  pixels: number;
  signal?: AbortSignal;
  resolve: (png: Uint8Array) => void;
  reject: (e: unknown) => void;
}

export class Rasterizer {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  /** The picture the worker is drawing. */
  private drawing: Job | null = null;
  private nextId = 1;
  private idle: ReturnType<typeof setTimeout> | null = null;
  /** The current worker drew a LARGE_PNG_PIXELS picture: it ends once nothing more is asked. */
  private grown = false;

  /** A worker is running (one that drew a large picture is gone once idle). */
  get running(): boolean {
    return this.worker !== null;
  }

  /**
   * `svg` as a PNG at `scale`; `pixels` is how many the picture has (its width × height). Once
   * `signal` is aborted (its client is gone), a picture not yet drawn rejects with its reason.
   */
  png(svg: string, scale: number, pixels: number, signal?: AbortSignal): Promise<Uint8Array> {
    const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
    this.queue.push({ id: this.nextId++, svg, scale, pixels, signal, resolve, reject });
    this.next();
    return promise;
  }

  /** Hands the worker the next picture whose client still waits; when there is none, the worker idles or, grown, ends. */
  private next(): void {
    if (this.drawing) return;
    let job: Job | undefined;
    while ((job = this.queue.shift()) && job.signal?.aborted) job.reject(job.signal.reason);
    if (!job) {
      if (this.grown) this.stopWorker();
      else this.touch();
      return;
    }
    if (this.idle) clearTimeout(this.idle);
    const w = this.start();
    this.drawing = job;
    if (job.pixels >= LARGE_PNG_PIXELS) this.grown = true;
    w.postMessage({ id: job.id, svg: job.svg, scale: job.scale } satisfies ToPngWorker);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w: Worker = startWorker<FromPngWorker>("render/png-worker.ts", {
      message: (m) => {
        const job = this.drawing;
        if (!job || job.id !== m.id) return;
        this.drawing = null;
        if ("png" in m) job.resolve(m.png);
        else job.reject(new Error(`PNG rendering failed: ${m.error}`));
        this.next();
      },
      died: (why) => {
        // One this ended itself (idle, grown, closed) is no longer `worker`.
        if (this.worker !== w) return;
        this.worker = null;
        this.drawing?.reject(new Error(`the PNG worker ended: ${why}`));
        this.drawing = null;
        this.next();
      },
    });
    this.worker = w;
    this.grown = false;
    return w;
  }

  /** Ends an unused worker after IDLE_MS. */
  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    if (!this.worker) return;
    this.idle = setTimeout(() => this.stopWorker(), IDLE_MS);
    this.idle.unref?.();
  }

  private stopWorker(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    w?.terminate();
  }

  /** Ends the worker; pictures not yet drawn fail (the daemon is shutting down). */
  close(): void {
    for (const job of [...(this.drawing ? [this.drawing] : []), ...this.queue.splice(0)])
      job.reject(new Error("the daemon is shutting down"));
    this.drawing = null;
    this.stopWorker();
  }
}
