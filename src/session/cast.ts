// asciicast v2 (the format asciinema records and plays): a JSON header line, then one JSON array
// per event: [seconds, "o" | "i" | "r", data]. Used live by `record` (output, input, resizes) and
// to export any session from its log and timing journal.
import type { Size } from "../protocol/schemas.ts";
import { commandLine } from "../protocol/session-labels.ts";
import type { JournalEntry } from "./journal.ts";

export interface CastHeader {
  size: Size;
  term: string;
  command: readonly string[];
  startedAt: Date;
  title?: string;
}

/**
 * The header line. With `maxBytes`, a header longer than that as a reply carries it (a JSON
 * string in JSON: a control character is 7 bytes there) has its longest text fields cut to one
 * length, each ending in "…", until it fits: a command or a title may be megabytes (a request line
 * is up to 10 MiB), and a page must hold its header and some output, while the short ones (a TERM,
 * a SHELL) stay whole.
 */
export function castHeader(h: CastHeader, maxBytes = Infinity): string {
  const text = { command: commandLine(h.command), title: h.title ?? "", term: h.term, shell: process.env.SHELL ?? "/bin/sh" };
  for (;;) {
    const line = JSON.stringify({
      version: 2,
      width: h.size.cols,
      height: h.size.rows,
      timestamp: Math.floor(h.startedAt.getTime() / 1000),
      command: text.command,
      ...(text.title ? { title: text.title } : {}),
      env: { TERM: text.term, SHELL: text.shell },
    });
    const over = replyBytes(line) - maxBytes;
    if (over <= 0) return line;
    const level = levelSaving(Object.values(text), over);
    let shorter = false;
    for (const k of Object.keys(text) as (keyof typeof text)[]) {
      const was = text[k].length;
      text[k] = cut(text[k], level);
      shorter ||= text[k].length < was;
    }
    if (!shorter) return line;
  }
}

/** The bytes `s` takes as a JSON string in a JSON reply. */
function replyBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s));
}

/**
 * The greatest length such that cutting every text longer than it to it saves about `over` reply
 * bytes (each unit of a text counted at its text's average; the caller measures again).
 */
function levelSaving(texts: string[], over: number): number {
  const costs = texts.map((t) => (t.length ? replyBytes(JSON.stringify(t)) / t.length : 0));
  const saved = (level: number) => texts.reduce((sum, t, i) => sum + Math.max(0, t.length - level) * costs[i]!, 0);
  let lo = 0;
  let hi = Math.max(...texts.map((t) => t.length));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (saved(mid) >= over) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `s` in at most `n` UTF-16 units, "…" its last when it was cut (never half of a surrogate pair). */
function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = Math.max(0, n - 1);
  const code = s.charCodeAt(end - 1);
  return s.slice(0, code >= 0xd800 && code < 0xdc00 ? end - 1 : end) + "…";
}

export type CastCode = "o" | "i" | "r";

export function castEvent(seconds: number, code: CastCode, data: string): string {
  return JSON.stringify([Math.round(seconds * 1e6) / 1e6, code, data]);
}

/**
 * Turns byte chunks into event text without splitting a UTF-8 character between two events:
 * a partial character waits for the next chunk (asciinema's players expect whole strings).
 */
export class CastText {
  private readonly decoder = new TextDecoder("utf-8");

  push(bytes: Uint8Array | string): string {
    return typeof bytes === "string" ? bytes : this.decoder.decode(bytes, { stream: true });
  }
}

/** How many of `bytes` to take so the cut does not fall inside a UTF-8 character. */
export function utf8Cut(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= Math.max(0, n - 4); i--) {
    const b = bytes[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + len > n && i > 0 ? i : n;
  }
  return n;
}

export interface CastPage {
  /** The events of output bytes [from, to), one JSON line each. */
  lines: string[];
  to: number;
}

/**
 * Output events for bytes [from, from+max) of a session, timed by its journal (a byte takes the
 * time of the chunk it arrived in), with the resizes that happened between those chunks.
 */
export function castPage(journal: JournalEntry[], read: (from: number, max: number) => Uint8Array, from: number, max: number): CastPage {
  const raw = read(from, max);
  const bytes = raw.subarray(0, utf8Cut(raw));
  const to = from + bytes.length;
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const emit = (ms: number, a: number, b: number) => {
    const text = decoder.decode(bytes.subarray(a - from, b - from), { stream: true });
    if (text) lines.push(castEvent(ms / 1000, "o", text));
  };
  let pos = 0; // where the output seen so far in the journal ends
  let lastMs = 0;
  for (const e of journal) {
    if (e.kind === "r") {
      // The size the recording starts with is the header's; later ones sit between chunks.
      if (pos >= from && pos < to && !(pos === 0 && e.ms === 0)) lines.push(castEvent(e.ms / 1000, "r", `${e.size.cols}x${e.size.rows}`));
      continue;
    }
    const start = pos;
    pos = Math.max(pos, e.end);
    lastMs = e.ms;
    if (start >= to) break;
    if (pos > from) emit(e.ms, Math.max(start, from), Math.min(pos, to));
  }
  // Output the journal does not cover (a session recorded before journals) comes at its end.
  if (pos < to) emit(lastMs, Math.max(pos, from), to);
  return { lines, to };
}
