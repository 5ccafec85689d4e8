// A worker thread started at its entry module (worker-url.ts), and the one way its owner learns
// that it died: `died` is called once its thread is gone ("close", which comes after every message
// it posted has been delivered), with the uncaught error that ended it if one did. What a death
// means is the owner's: pty/pty-pool.ts, terminal/screen-pool.ts, render/rasterizer.ts and
// daemon/line-parser.ts each say theirs. A worker its owner ended itself is reported too; the
// owner tells it apart by its own state. The two pools replace a worker that died early after the
// same growing pause (restartDelay).
import { workerUrl } from "./worker-url.ts";

export interface WorkerEvents<M> {
  message(m: M): void;
  died(why: string): void;
}

/** An uncaught error's own line: Bun puts the code around the throw in the message as well. */
function reasonOf(ev: ErrorEvent): string {
  const lines = (ev.message || "error").split("\n");
  return (lines.find((l) => l.startsWith("error:")) ?? lines.find((l) => l.trim() !== "") ?? "error").trim();
}

/** Starts the worker at `entry` (its path below src/, listed in scripts/compile.ts). */
export function startWorker<M>(entry: string, on: WorkerEvents<M>): Worker {
  const worker = new Worker(workerUrl(entry));
  worker.onmessage = (ev: MessageEvent<M>) => on.message(ev.data);
  let why: string | null = null;
  worker.addEventListener("error", (ev) => (why ??= reasonOf(ev as ErrorEvent)));
  worker.addEventListener("close", (ev) => on.died(why ?? `exited with code ${(ev as CloseEvent).code}`));
  return worker;
}

/** A worker that dies this soon after it started is replaced after a pause, not at once. */
export const EARLY_DEATH_MS = 1000;
/** The first pause after an early death; each early death in a row doubles it. */
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * How long to wait before replacing a worker that died, started at `startedAt` (performance.now())
 * after a pause of `lastDelayMs`: none after a life of EARLY_DEATH_MS or more, else a pause that
 * doubles with each early death in a row, up to MAX_RESTART_DELAY_MS. A worker that cannot even
 * start (a broken build) is then not restarted in a tight loop, and one that lived is replaced at once.
 */
export function restartDelay(startedAt: number, lastDelayMs: number, now = performance.now()): number {
  if (now - startedAt >= EARLY_DEATH_MS) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, Math.max(FIRST_RESTART_DELAY_MS, lastDelayMs * 2));
}
