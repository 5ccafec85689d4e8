// Skipping what a flood of plain text would scroll out of the screen and its scrollback anyway.
// xterm parses at ~35 MB/s here, slower than a PTY delivers `cat` of a big file; when the
// screen is far behind and the backlog is plain text (no escape sequence, no charset shift, no
// C1 control), the screen after parsing all of it is the same as after clearing the screen and
// scrollback and parsing only the last rows+scrollback lines. The ring and the log still hold
// every byte; only the screen's work is spared.

/** Backlog (beyond what is kept) below which skipping is not worth a scan. */
export const MIN_SKIP_BYTES = 256 * 1024;
/** The backward scan for the kept lines reads this much at a time (about 800 lines of 80 columns). */
const SCAN_CHUNK = 64 * 1024;

/**
 * Offset just past the last byte in `bytes` that is not plain text (ESC, SO, SI, a C1 control),
 * or -1. A C2 at the very end counts with the byte after it, unseen, that may make it a C1 control.
 */
export function lastNonPlain(bytes: Uint8Array): number {
  let last = Math.max(bytes.lastIndexOf(0x1b), bytes.lastIndexOf(0x0e), bytes.lastIndexOf(0x0f));
  // C1 controls arrive UTF-8 encoded as C2 80..C2 9F.
  for (let i = bytes.lastIndexOf(0xc2); i > last; i = i > 0 ? bytes.lastIndexOf(0xc2, i - 1) : -1) {
    const next = bytes[i + 1];
    if (next === undefined || (next >= 0x80 && next <= 0x9f)) {
      last = i + 1;
      break;
    }
  }
  return last < 0 ? -1 : last + 1;
}

/** The same as an output offset, for `bytes` that start at `from`; -1 when they are all plain text. */
export function nonPlainEnd(bytes: Uint8Array, from: number): number {
  const at = lastNonPlain(bytes);
  return at < 0 ? -1 : from + at;
}

/**
 * Where parsing may resume over the backlog [from, end), which the caller knows to be plain text:
 * the start of its last `keepLines` lines. Null when that would skip less than MIN_SKIP_BYTES.
 * `read(from, max)` gives output bytes [from, from+max).
 */
export function skipPoint(read: (from: number, max: number) => Uint8Array, from: number, end: number, keepLines: number): number | null {
  if (end - from < MIN_SKIP_BYTES) return null;
  let newlines = 0;
  for (let to = end; to > from; ) {
    const start = Math.max(from, to - SCAN_CHUNK);
    const bytes = read(start, to - start);
    for (let i = bytes.lastIndexOf(0x0a); i >= 0; i = i > 0 ? bytes.lastIndexOf(0x0a, i - 1) : -1) {
      if (++newlines > keepLines) {
        const point = start + i + 1;
        return point - from < MIN_SKIP_BYTES ? null : point;
      }
    }
    to = start;
  }
  return null;
}
