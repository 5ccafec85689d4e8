// Finding text in a screen's lines: what a wait checks on the daemon's thread, apart from the
// emulator (screen.ts), so the daemon does not load xterm where only the screen workers need it.

/** A pattern that finds its first match in one line. */
export interface LinePattern {
  match(line: string): { col: number; text: string } | null;
}

export interface Match {
  row: number;
  col: number;
  text: string;
}

/** First occurrence of `needle` (a string, or a pattern matched line by line) in `lines`. */
export function findIn(lines: readonly string[], needle: string | LinePattern): Match | null {
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row]!;
    if (typeof needle === "string") {
      const col = line.indexOf(needle);
      if (col >= 0) return { row, col, text: needle };
    } else {
      const m = needle.match(line);
      if (m) return { row, ...m };
    }
  }
  return null;
}
