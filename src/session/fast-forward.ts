// Skipping what a flood of plain text would scroll out of the screen and its scrollback anyway.
// xterm parses at ~35 MB/s here, slower than a PTY delivers `cat` of a big file; when the
// screen is far behind and the backlog is plain text (no escape sequence, no charset shift, no
// C1 control), the screen after parsing all of it is the same as after clearing the screen and
// scrollback and parsing only the last rows+scrollback lines. The ring and the log still hold
// every byte; only the screen's work is spared.

/** Backlog (beyond what is kept) below which skipping is not worth a scan. */
export const MIN_SKIP_BYTES = 256 * 1024;
const SCAN_CHUNK = 1024 * 1024;

/**
 * Where parsing may resume; null when there is not enough to skip yet; false when the backlog is
 * not plain text (no use scanning it again). `read(from, max)` gives output bytes [from, from+max).
 */
export function skipPoint(read: (from: number, max: number) => Uint8Array, from: number, end: number, keepLines: number): number | null | false {
  if (end - from < MIN_SKIP_BYTES) return null;
  // Backwards from the end: the start of the last `keepLines` lines.
  let newlines = 0;
  let point: number | null = null;
  for (let to = end; to > from && point === null; ) {
    const start = Math.max(from, to - SCAN_CHUNK);
    const bytes = read(start, to - start);
    for (let i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] === 0x0a && ++newlines > keepLines) {
        point = start + i + 1;
        break;
      }
    }
    to = start;
  }
  if (point === null || point - from < MIN_SKIP_BYTES) return null;
  // Forwards over what would be skipped: it must change nothing but the text on the screen.
  for (let at = from; at < point; ) {
    const bytes = read(at, Math.min(SCAN_CHUNK, point - at));
    if (bytes.length === 0) return null;
    if (bytes.indexOf(0x1b) >= 0 || bytes.indexOf(0x0e) >= 0 || bytes.indexOf(0x0f) >= 0) return false;
    // C1 controls arrive UTF-8 encoded as C2 80..C2 9F.
    for (let i = bytes.indexOf(0xc2); i >= 0; i = bytes.indexOf(0xc2, i + 1)) {
      const next = bytes[i + 1];
      if (next === undefined || (next >= 0x80 && next <= 0x9f)) return false;
    }
    at += bytes.length;
  }
  return point;
}
