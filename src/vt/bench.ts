// Parser throughput with a performer that does nothing, so the figure is the parser's own cost.
// Run `bun src/vt/bench.ts`: prints MB/s (10^6 bytes per second) for ~50 MB of plain text and for
// a synthetic full-screen colourful stream (CUP, SGR colour changes every few characters, EL),
// the shape of vim's or top's output. Input is fed in 64 KiB chunks, the size of a large PTY read.
import { NoopPerformer } from "./performer.ts";
import { Parser } from "./parser.ts";

export const BENCH_CHUNK = 64 * 1024;

/** Parses `bytes` `repeat` times (after one warm-up pass) and returns MB/s. */
export function benchParser(bytes: Uint8Array, repeat: number, chunk = BENCH_CHUNK): number {
  const parser = new Parser(new NoopPerformer());
  const feed = (): void => {
    for (let at = 0; at < bytes.length; at += chunk) {
      parser.parse(bytes, at, Math.min(at + chunk, bytes.length));
    }
  };
  feed();
  const started = performance.now();
  for (let r = 0; r < repeat; r++) feed();
  const seconds = (performance.now() - started) / 1000;
  return (bytes.length * repeat) / 1e6 / seconds;
}

/** Deterministic pseudo-random numbers, so every run measures the same bytes. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

const WORDS = "the quick brown fox jumps over lazy dog terminal session parser byte stream".split(" ");

/** Lines of ASCII words up to 80 columns, CRLF-terminated, as `cat` of a text file gives. */
export function plainText(size: number): Uint8Array {
  const rand = lcg(1);
  const out = new Uint8Array(size);
  let at = 0;
  let col = 0;
  while (at < size) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!;
    if (col + word.length + 1 > 80) {
      out[at++] = 0x0d;
      out[at++] = 0x0a;
      col = 0;
    }
    for (let k = 0; k < word.length && at < size; k++) out[at++] = word.charCodeAt(k);
    if (at < size) out[at++] = 0x20;
    col += word.length + 1;
  }
  return out;
}

/** Full redraws of a 50x160 screen: per row CUP, then SGR (256-colour, truecolour, bold, reset)
 * every 2-8 characters, then EL; every frame starts with ED. */
export function colourfulStream(size: number): Uint8Array {
  const rand = lcg(2);
  const enc = new TextEncoder();
  const parts: string[] = [];
  let length = 0;
  const push = (s: string): void => {
    parts.push(s);
    length += s.length;
  };
  const text = "abcdefghijklmnopqrstuvwxyz0123456789 ";
  while (length < size) {
    push("\x1b[H\x1b[2J");
    for (let row = 1; row <= 50 && length < size; row++) {
      push(`\x1b[${row};1H`);
      let col = 0;
      while (col < 150) {
        const kind = rand();
        if (kind < 0.4) push(`\x1b[38;5;${Math.floor(rand() * 256)}m`);
        else if (kind < 0.6) push(`\x1b[38;2;${Math.floor(rand() * 256)};${Math.floor(rand() * 256)};90m`);
        else if (kind < 0.8) push(`\x1b[1;${30 + Math.floor(rand() * 8)};4${Math.floor(rand() * 8)}m`);
        else push("\x1b[0m");
        const n = 2 + Math.floor(rand() * 7);
        let run = "";
        for (let k = 0; k < n; k++) run += text[Math.floor(rand() * text.length)];
        push(run);
        col += n;
      }
      push("\x1b[K");
    }
  }
  return enc.encode(parts.join("")).subarray(0, size);
}

if (import.meta.main) {
  const plain = plainText(50 * 1000 * 1000);
  const colourful = colourfulStream(20 * 1000 * 1000);
  const best = (bytes: Uint8Array, repeat: number): number => Math.max(...[0, 1, 2, 3, 4].map(() => benchParser(bytes, repeat)));
  console.log(`plain text       ${best(plain, 4).toFixed(0)} MB/s (${plain.length / 1e6} MB x 4)`);
  console.log(`colourful stream ${best(colourful, 4).toFixed(0)} MB/s (${colourful.length / 1e6} MB x 4)`);
}
