// Request lines from LINE_OFF_THREAD bytes up are put together, decoded and parsed in a worker of
// their own (line-parser-worker.ts), so one client's 10 MiB line does not hold every other
// client's replies: its pieces go there as they arrive, and the parsed message comes back with
// its big strings apart, which crosses threads without a copy. The connection waits for its
// line's parse before it takes its next line: requests still run in the order they came.
import { startWorker } from "../platform/worker-thread.ts";
import type { LongLine, LongLines } from "../protocol/framing.ts";

/** Lines this long or longer are parsed off the daemon's thread (a 256 KiB line parses in ~1 ms). */
export const LINE_OFF_THREAD = 256 * 1024;
/** Strings this long or longer in a big line's message cross back from the worker alone. */
export const BIG_STRING = 16 * 1024;

export type LineParsed = { msg: unknown } | { malformed: string };

type Path = (string | number)[];
/** To the worker: a line's next piece (transferred), its end, or that it is given up. */
export type ToParser = { id: number; piece: Uint8Array } | { id: number; end: true; lenient?: boolean } | { id: number; drop: true };
/** From the worker: a big string of the line's message (in order), then the rest as JSON or, if big, cloned. */
export type FromParser =
  | { id: number; big: string }
  | { id: number; malformed: string }
  | { id: number; json: string }
  | { id: number; tree: { msg: unknown; paths: Path[] } };

/** `node[key] = value` as JSON.parse sets it: a key named `__proto__` is a property like any other. */
export function setOwn(node: object, key: string | number, value: unknown): void {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The big strings back where the worker took them from. */
function putBack(msg: unknown, paths: Path[], big: string[]): unknown {
  paths.forEach((path, i) => {
    if (path.length === 0) {
      msg = big[i];
      return;
    }
    let node = msg as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    setOwn(node, path.at(-1)!, big[i]);
  });
  return msg;
}

/** A long line among a connection's frames: its parse to come, and how long it is. */
export interface OffThreadLine {
  parsed: Promise<LineParsed>;
  bytes: number;
}

/** A line in the worker, as inWorker() gives it: its pieces go there as they come, and `end` asks for its parse. */
interface InWorker {
  piece(bytes: Uint8Array): void;
  end(lenient?: boolean): Promise<LineParsed>;
  drop(): void;
}

/**
 * One daemon's request-line parser: its worker, started by the first long line, and the lines in
 * it. The daemon that made it closes it, so a closed daemon leaves no thread and no line behind
 * (tests run several daemons in one process).
 */
export class LineParser {
  private worker: Worker | null = null;
  private nextId = 1;
  /** Lines in the worker: what each is told when parsed, and the big strings back so far. */
  private readonly pending = new Map<number, { reply: (p: LineParsed) => void; big: string[] }>();
  private closed = false;

  /** A worker is running (started by a long line; ended by close() or its death). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** What a connection's splitter hands its long lines to: each line's pieces go to the worker as they come. */
  readonly offThread: LongLines<OffThreadLine> = {
    from: LINE_OFF_THREAD,
    start: (): LongLine<OffThreadLine> => {
      const line = this.inWorker();
      let bytes = 0;
      return {
        piece: (piece) => {
          bytes += piece.length;
          line.piece(piece);
        },
        end: () => ({ parsed: line.end(), bytes }),
        drop: () => line.drop(),
      };
    },
  };

  /**
   * A request read whole (an HTTP body, in the pieces it came in), parsed here if it is short and
   * in the worker from LINE_OFF_THREAD bytes up. Bytes that are not UTF-8 read as U+FFFD.
   */
  parseBody(pieces: Uint8Array[]): Promise<LineParsed> {
    const size = pieces.reduce((n, p) => n + p.length, 0);
    if (size < LINE_OFF_THREAD) {
      try {
        return Promise.resolve({ msg: JSON.parse(Buffer.concat(pieces).toString("utf8")) });
      } catch (err) {
        return Promise.resolve({ malformed: `invalid JSON: ${(err as Error).message}` });
      }
    }
    const body = this.inWorker();
    // Copies: a piece's buffer may hold more than the piece, or be the reader's.
    for (const p of pieces) body.piece(new Uint8Array(p));
    return body.end(true);
  }

  /** Ends the worker; the lines in it are answered as faults, and so is every line after. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    w?.terminate();
    this.answerAll("the daemon is shutting down");
  }

  private answerAll(why: string): void {
    for (const line of this.pending.values()) line.reply({ malformed: why });
    this.pending.clear();
  }

  private inWorker(): InWorker {
    if (this.closed) {
      const shut = Promise.resolve<LineParsed>({ malformed: "the daemon is shutting down" });
      return { piece: () => {}, end: () => shut, drop: () => {} };
    }
    const w = (this.worker ??= this.start());
    w.ref();
    const id = this.nextId++;
    const { promise, resolve } = Promise.withResolvers<LineParsed>();
    this.pending.set(id, { reply: resolve, big: [] });
    return {
      piece: (piece) => w.postMessage({ id, piece } satisfies ToParser, [piece.buffer as ArrayBuffer]),
      end: (lenient) => {
        w.postMessage({ id, end: true, ...(lenient ? { lenient } : {}) } satisfies ToParser);
        return promise;
      },
      drop: () => {
        w.postMessage({ id, drop: true } satisfies ToParser);
        this.pending.delete(id);
        if (this.pending.size === 0) w.unref();
      },
    };
  }

  private start(): Worker {
    const w: Worker = startWorker<FromParser>("daemon/line-parser-worker.ts", {
      message: (m) => {
        const line = this.pending.get(m.id);
        if (!line) return;
        if ("big" in m) return void line.big.push(m.big);
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        if ("malformed" in m) return line.reply({ malformed: m.malformed });
        const { msg, paths } = "json" in m ? (JSON.parse(m.json) as { msg: unknown; paths: Path[] }) : m.tree;
        line.reply({ msg: putBack(msg, paths, line.big) });
      },
      // A worker that died answers its lines as faults, and the next line starts a new one: a line
      // cannot be parsed again (its pieces went to the worker as they came), and the parser holds
      // nothing else, so there is nothing to move to a replacement started at once. One that
      // close() ended is no longer `worker`, and its lines were answered then.
      died: (why) => {
        if (this.worker !== w) return;
        console.error(`termd: the request-line parser died (${why})`);
        this.worker = null;
        this.answerAll("internal error: the request-line parser died");
      },
    });
    return w;
  }
}
