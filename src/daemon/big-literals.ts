// A big request line's long string literals, taken out of its bytes before JSON.parse sees it
// (line-parser-worker.ts): JSC's JSON.parse builds an 8 MiB string that has escapes (a
// session.input's newlines) in ~24 MB besides the line's decoded text, while unescaped in the
// line's own bytes and decoded alone it costs the 8 MB it is. The rest of the line, a marker
// string where each literal was, is parsed as ever, and its faults are JSON.parse's.
import { randomBytes } from "node:crypto";

/** What `\x` stands for, by x; 0: not a one-character escape. */
const ESCAPED = new Uint8Array(128);
for (const [c, v] of Object.entries({ '"': 0x22, "\\": 0x5c, "/": 0x2f, b: 8, f: 12, n: 10, r: 13, t: 9 })) ESCAPED[c.charCodeAt(0)] = v;

export interface Taken {
  /** The line without its big literals, each now a marker string. */
  rest: string;
  /** Each marker's string. */
  strings: Map<string, string>;
}

/**
 * Takes the string literals of `minBytes` bytes or more out of `b` (a line's bytes: changed in
 * place) and decodes the rest with `decoder`. A literal that is a key, or holds what JSON.parse
 * must judge itself (a bad escape, a control character, a surrogate's \u escape), stays in the
 * rest. The markers carry a random tag: no client can write one into its line.
 */
export function takeBigLiterals(b: Uint8Array, minBytes: number, decoder: TextDecoder): Taken {
  const tag = `\u0000${randomBytes(8).toString("hex")}:`;
  const strings = new Map<string, string>();
  const rest: string[] = [];
  let from = 0;
  for (let open = b.indexOf(0x22); open >= 0; ) {
    const close = closeOf(b, open);
    if (close < 0) break; // unterminated: JSON.parse says so
    const length = close - open - 1 >= minBytes && !isKey(b, close + 1) ? unescapedLength(b, open + 1, close) : -1;
    if (length >= 0) {
      unescapeInPlace(b, open + 1, close);
      const marker = tag + strings.size;
      strings.set(marker, decoder.decode(b.subarray(open + 1, open + 1 + length)));
      rest.push(decoder.decode(b.subarray(from, open)), JSON.stringify(marker));
      from = close + 1;
    }
    open = b.indexOf(0x22, close + 1);
  }
  rest.push(decoder.decode(b.subarray(from)));
  return { rest: rest.join(""), strings };
}

/** Where the literal opened at `open` closes: the next quote not escaped; -1 for none. */
function closeOf(b: Uint8Array, open: number): number {
  for (let at = b.indexOf(0x22, open + 1); at >= 0; at = b.indexOf(0x22, at + 1)) {
    let backslashes = 0;
    while (b[at - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** The literal closed before `at` is an object's key. */
function isKey(b: Uint8Array, at: number): boolean {
  while (b[at] === 0x20 || b[at] === 0x09 || b[at] === 0x0d || b[at] === 0x0a) at++;
  return b[at] === 0x3a;
}

/** The code unit a literal's `\uXXXX` at `at` (the `u`) stands for; -1 if it is no such escape. */
function unit(b: Uint8Array, at: number): number {
  const hex = String.fromCharCode(b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
}

const utf8Length = (u: number): number => (u < 0x80 ? 1 : u < 0x800 ? 2 : 3);

/** The bytes of `b[from, to)` (a literal's characters) once unescaped; -1 if JSON.parse must judge it. */
function unescapedLength(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c < 0x20) return -1;
    if (c !== 0x5c) n++;
    else if (ESCAPED[b[++i]!]) n++;
    else if (b[i] !== 0x75) return -1;
    else {
      const u = i + 4 < to ? unit(b, i) : -1;
      if (u < 0 || (u >= 0xd800 && u <= 0xdfff)) return -1;
      n += utf8Length(u);
      i += 4;
    }
  }
  return n;
}

/** Unescapes `b[from, to)` in place, to UTF-8 (never longer than its escape), from `from` on. */
function unescapeInPlace(b: Uint8Array, from: number, to: number): void {
  let o = from;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c !== 0x5c) b[o++] = c;
    else if (b[++i] !== 0x75) b[o++] = ESCAPED[b[i]!]!;
    else {
      const u = unit(b, i);
      i += 4;
      if (u < 0x80) b[o++] = u;
      else if (u < 0x800) {
        b[o++] = 0xc0 | (u >> 6);
        b[o++] = 0x80 | (u & 0x3f);
      } else {
        b[o++] = 0xe0 | (u >> 12);
        b[o++] = 0x80 | ((u >> 6) & 0x3f);
        b[o++] = 0x80 | (u & 0x3f);
      }
    }
  }
}
