// The thread big request lines are put together, decoded and parsed in (line-parser.ts): a 10 MiB
// line took the daemon's thread 0.3–0.9 s, and every other client waited meanwhile. The line's
// pieces come here as they arrive, so the daemon's thread never joins them either, and the parsed
// message goes back in a shape the daemon's thread takes in without a copy (see handBack). Its
// long string literals are taken out of its bytes before it is parsed (big-literals.ts):
// JSON.parse builds a long string with escapes in about three times its size.
import { takeBigLiterals, type Taken } from "./big-literals.ts";
import { BIG_STRING, setOwn, type FromParser, type ToParser } from "./line-parser.ts";

declare const self: Worker;

const decoder = new TextDecoder("utf-8", { fatal: true });
/** An HTTP body's: bytes that are not UTF-8 read as U+FFFD, as they always were there. */
const lenientDecoder = new TextDecoder("utf-8");
/** Each line's pieces so far, by its id. */
const lines = new Map<number, Uint8Array[]>();

const send = (m: FromParser) => self.postMessage(m);

/**
 * This thread's garbage (each line's bytes joined, its text, its parse) is collected here, by a
 * full collection that also gives the pages back: once the heap grew by COLLECT_GROWTH since the
 * last one, and COLLECT_AFTER_MS after the last line. This thread allocates nothing between
 * lines, so JSC's own collections stop with them, and its garbage waited for Bun's idle
 * collection, 10 s after the heap stopped growing: 2 s after 25 s of hostile lines it still held
 * 56 MB of heap and 24 MB of strings. The heap is what counts, not the line's length: a 5.7 MB
 * line nested 1,000,000 deep parses into 30 MB of objects. A collection takes this thread ~5–10 ms,
 * and nothing of the daemon's.
 */
const COLLECT_GROWTH = 32 * 1024 * 1024;
const COLLECT_AFTER_MS = 1000;
let collectTimer: Timer | undefined;

/** What a collection could free: the heap, and the strings and buffers its objects hold. */
function heapSize(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

let floor = heapSize();

function collect(): void {
  clearTimeout(collectTimer);
  Bun.gc(true);
  floor = heapSize();
}

/** A line was parsed: collect now if the heap grew enough, or once no more lines come. */
function parsed(): void {
  clearTimeout(collectTimer);
  if (heapSize() - floor >= COLLECT_GROWTH) collect();
  else collectTimer = setTimeout(collect, COLLECT_AFTER_MS);
}

self.onmessage = (ev: MessageEvent<ToParser>) => {
  const m = ev.data;
  if ("piece" in m) {
    let pieces = lines.get(m.id);
    if (!pieces) lines.set(m.id, (pieces = []));
    pieces.push(m.piece);
  } else if ("drop" in m) lines.delete(m.id);
  else {
    const pieces = lines.get(m.id) ?? [];
    lines.delete(m.id);
    parse(m.id, pieces, m.lenient === true);
    parsed();
  }
};

function parse(id: number, pieces: Uint8Array[], lenient: boolean): void {
  let taken: Taken;
  const bytes = join(pieces);
  try {
    taken = takeBigLiterals(bytes, BIG_STRING, lenient ? lenientDecoder : decoder);
  } catch {
    return send({ id, malformed: "request line is not valid UTF-8" });
  } finally {
    // Let go of the line's bytes now, not at the next collection: while the message is parsed
    // and handed back, a 10 MiB line would otherwise hold its pieces and their join besides.
    for (const p of new Set([...pieces, bytes])) (p.buffer as ArrayBuffer).transfer(0);
  }
  let msg: unknown;
  try {
    msg = JSON.parse(taken.rest.endsWith("\r") ? taken.rest.slice(0, -1) : taken.rest);
  } catch (err) {
    return send({ id, malformed: `invalid JSON: ${(err as Error).message}` });
  }
  handBack(id, msg, taken.strings);
}

function join(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Bun hands a string, or an object of strings and numbers, to another thread without copying it;
 * anything deeper is serialized here and rebuilt there, byte by byte, on the daemon's thread. So
 * each string of BIG_STRING characters or more goes back alone, and the message without them (a
 * small skeleton, with where each goes) as JSON text. A message big without big strings (a
 * million small values) goes back cloned: rebuilding it costs the daemon's thread what it costs.
 */
function handBack(id: number, msg: unknown, taken: Map<string, string>): void {
  /** The big string `v` is or stands for (a literal takeBigLiterals took out), if it is one. */
  const big = (v: unknown): string | undefined =>
    typeof v !== "string" ? undefined : (taken.get(v) ?? (v.length >= BIG_STRING ? v : undefined));
  const whole = big(msg);
  if (whole !== undefined) {
    send({ id, big: whole });
    return send({ id, json: JSON.stringify({ msg: null, paths: [[]] }) });
  }
  const paths: Key[][] = [];
  // Depth first without recursion, each node knowing its parent: a line may nest as deep as it is
  // long, and a path is spelled out only for a big string.
  const stack: Visit[] = [];
  if (typeof msg === "object" && msg !== null) stack.push({ node: msg as Node, key: null, parent: null });
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node } = visit;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const v = node[key];
      const string = big(v);
      if (string !== undefined) {
        send({ id, big: string });
        paths.push(pathOf({ node, key, parent: visit }));
        setOwn(node, key, null);
      } else if (typeof v === "object" && v !== null) stack.push({ node: v as Node, key, parent: visit });
    }
  }
  try {
    const json = JSON.stringify({ msg, paths });
    if (json.length < BIG_STRING) send({ id, json });
    else send({ id, tree: { msg, paths } });
  } catch (err) {
    // Nested deeper than the engine's stack (the daemon's thread could not take it either).
    send({ id, malformed: `request nested too deeply: ${(err as Error).message}` });
  }
}

type Key = string | number;
type Node = Record<Key, unknown>;
/** A node reached in the walk, as its parent's `key`. */
interface Visit {
  node: Node;
  key: Key | null;
  parent: Visit | null;
}

/** The keys from the message down to `v.key` of `v`'s parent. */
function pathOf(v: Visit): Key[] {
  const path: Key[] = [];
  for (let at: Visit | null = v; at?.parent; at = at.parent) path.push(at.key!);
  return path.reverse();
}
