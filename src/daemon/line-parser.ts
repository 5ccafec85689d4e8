// Request lines from LINE_OFF_THREAD bytes up are decoded and parsed in a worker of their own
// (line-parser-worker.ts), so one client's 10 MiB line does not hold every other client's replies.
// The connection waits for its line's parse before it takes its next line: requests still run in
// the order they came.

/** Lines this long or longer are parsed off the daemon's thread (a 256 KiB line parses in ~1 ms). */
export const LINE_OFF_THREAD = 256 * 1024;

export type LineParsed = { msg: unknown } | { malformed: string };

const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./daemon/line-parser-worker.ts", import.meta.url)
  : new URL("./line-parser-worker.ts", import.meta.url);

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, (p: LineParsed) => void>();

function start(): Worker {
  const w = new Worker(WORKER_URL);
  w.onmessage = (ev: MessageEvent<{ id: number; out: LineParsed }>) => {
    pending.get(ev.data.id)?.(ev.data.out);
    pending.delete(ev.data.id);
    if (pending.size === 0) w.unref();
  };
  w.onerror = (ev) => {
    // A worker that died answers its lines as faults; the next line starts a new one.
    console.error("termd: the request-line parser died:", ev.message);
    worker = null;
    for (const reply of pending.values()) reply({ malformed: "internal error: the request-line parser died" });
    pending.clear();
  };
  return w;
}

/** Decodes and parses one request line off the thread. */
export function parseOffThread(bytes: Uint8Array): Promise<LineParsed> {
  worker ??= start();
  worker.ref();
  const id = nextId++;
  const { promise, resolve } = Promise.withResolvers<LineParsed>();
  pending.set(id, resolve);
  // The line's bytes are the splitter's own copy: handed over, not copied again.
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  worker.postMessage({ id, bytes: owned }, [owned.buffer as ArrayBuffer]);
  return promise;
}
