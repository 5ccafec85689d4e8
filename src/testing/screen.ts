// The screen as termd/testing hands it to a test: session.screen's snapshot with the scrollback
// apart, and the search the waits and matchers share.
import type { Modes, ScreenSnapshot } from "../protocol/schemas.ts";

export interface Screen {
  /** The screen's rows. */
  lines: string[];
  /** Lines that scrolled off the top, oldest first: only when asked for (`screen({ scrollback })`). */
  scrollback?: string[];
  /** The rows joined with newlines, trailing blanks and blank rows at the end trimmed. */
  text: string;
  cursor: { row: number; col: number; visible: boolean };
  size: { rows: number; cols: number };
  title: string;
  modes: Modes;
  /** Changes whenever the text, the cursor or the buffer shown does: what waitForChange compares. */
  hash: string;
}

export interface Match {
  row: number;
  col: number;
  text: string;
  /** The other places the text was found, when there were more than one (a wait takes the first). */
  also?: Match[];
}

/** `scrollback` in options: every line held (true) or the last N. */
export type ScrollbackOption = boolean | number;

export function scrollbackLines(o: ScrollbackOption | undefined): number {
  return o === true ? 1_000_000_000 : typeof o === "number" ? o : 0;
}

export function toScreen(s: ScreenSnapshot): Screen {
  const lines = s.lines.slice(s.scrollback_lines);
  return {
    lines,
    ...(s.scrollback_lines > 0 ? { scrollback: s.lines.slice(0, s.scrollback_lines) } : {}),
    text: lines
      .map((l) => l.trimEnd())
      .join("\n")
      .replace(/\n+$/, ""),
    cursor: s.cursor,
    size: s.size,
    title: s.title,
    modes: s.modes,
    hash: s.hash,
  };
}

/** Every match of `text` on the screen and the scrollback it holds (only `row`'s when given), in reading order. */
export function findAll(s: Screen, text: string | RegExp, row?: number): Match[] {
  const out: Match[] = [];
  const above = s.scrollback ?? [];
  const re = typeof text === "string" ? undefined : new RegExp(text.source, text.flags.includes("g") ? text.flags : text.flags + "g");
  [...above, ...s.lines].forEach((line, i) => {
    const r = i - above.length;
    if (row !== undefined && r !== row) return;
    if (typeof text === "string") {
      for (let col = line.indexOf(text); col >= 0; col = line.indexOf(text, col + text.length)) out.push({ row: r, col, text });
      return;
    }
    for (const m of line.matchAll(re!)) if (m[0].length > 0) out.push({ row: r, col: m.index, text: m[0] });
  });
  return out;
}

/** Where matches are, for a message: `row 3 col 0, row 7 col 4`. */
export function describePlaces(ms: Match[]): string {
  return ms.map((m) => `row ${m.row} col ${m.col}`).join(", ");
}

/**
 * The text in more than one place under `strict`: the message that says so, naming each place;
 * undefined when it is in one place (or none), or not strict.
 */
export function ambiguity(found: Match[], what: string, strict: boolean): string | undefined {
  if (!strict || found.length < 2) return undefined;
  return `${what} is on the screen in ${found.length} places (strict): ${describePlaces(found)}`;
}
