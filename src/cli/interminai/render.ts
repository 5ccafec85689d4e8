// What `output` does to the screen text it gets: line numbers (-n) and the inverse cursor mark.
// The mark is placed by screen cell, skipping escape codes, so colour codes earlier in the row do
// not shift it (interminai counts characters of the rendered string; the spec asks for cells).

/** Numbers for `count` lines starting at `from`: -k … -1, then 1, 2 …; there is no line 0. */
export function lineNumbers(from: number, count: number): number[] {
  const out: number[] = [];
  let n = from === 0 ? 1 : from;
  for (let i = 0; i < count; i++) {
    out.push(n);
    n = n === -1 ? 1 : n + 1;
  }
  return out;
}

/** " 01\t" for 1, "-05\t" for -5: padded to the widest number printed. */
export function numberLines(lines: string[], from: number): string[] {
  const nums = lineNumbers(from, lines.length);
  const width = Math.max(1, ...nums.map((n) => String(Math.abs(n)).length));
  return lines.map((l, i) => {
    const n = nums[i]!;
    return `${n < 0 ? "-" : " "}${String(Math.abs(n)).padStart(width, "0")}\t${l}`;
  });
}

const ESCAPE = /^\x1b\[[0-?]*[ -/]*[@-~]/;

/** Wraps the character at screen cell `col` in ESC[7m … ESC[27m; a row shorter than that is left alone. */
export function markCursor(row: string, col: number): string {
  let cells = 0;
  let i = 0;
  while (i < row.length) {
    const esc = ESCAPE.exec(row.slice(i, i + 64));
    if (esc) {
      i += esc[0].length;
      continue;
    }
    // One character with its combining marks (zero-width code points that follow it).
    let end = i + (row.codePointAt(i)! > 0xffff ? 2 : 1);
    while (end < row.length && row[end] !== "\x1b" && Bun.stringWidth(String.fromCodePoint(row.codePointAt(end)!)) === 0) {
      end += row.codePointAt(end)! > 0xffff ? 2 : 1;
    }
    const ch = row.slice(i, end);
    const w = Math.max(1, Bun.stringWidth(ch));
    if (col < cells + w) return `${row.slice(0, i)}\x1b[7m${ch}\x1b[27m${row.slice(end)}`;
    cells += w;
    i = end;
  }
  return row;
}
