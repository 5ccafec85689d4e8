// The screen as the waits check it: one Frame per state of screen-view.ts's mirror (frameOf),
// shared by every wait checked against that state.
import type { ScreenState } from "../terminal/screen.ts";
import type { Match } from "../terminal/find.ts";
import type { RegexPattern } from "./regex-cache.ts";
import type { ProgramStream } from "./stream.ts";

/** No match (shared: never changed). */
const NONE: Match[] = [];

/**
 * One state of the screen, as every wait checked against it shares it: the rows joined once for a
 * quick "is it there at all", each needle's matches found once, and the rows that are new since
 * the state before.
 */
export class Frame {
  readonly lines: string[];
  readonly hash: string;
  /** Lines above row 0 (scrollback): a row's place in the whole buffer is `top + row`. */
  readonly top: number;
  private joinedText: string | undefined;
  /** Each needle's matches on the whole screen ("t" + text, "r" + regex source). */
  private readonly scans = new Map<string, Match[]>();
  /** The rows whose text no row of `since` showed, and each needle's matches in them. */
  private delta: { since: Frame; rows: number[]; text: string; scans: Map<string, Match[]> } | null = null;

  constructor(state: ScreenState) {
    this.lines = state.lines;
    this.hash = state.hash;
    this.top = state.scrollback_total;
  }

  get joined(): string {
    return (this.joinedText ??= this.lines.join("\n"));
  }

  /** Every match of `needle` (named by `key`) on the screen. */
  matches(key: string, needle: string | RegexPattern): Match[] {
    let found = this.scans.get(key);
    if (!found) {
      found = typeof needle === "string" && !this.joined.includes(needle) ? [] : findAll(this.lines, needle);
      this.scans.set(key, found);
    }
    return found;
  }

  /**
   * The matches of `needle` in the rows whose text was on no row of `since`. A needle with no
   * match on `since` can have one now only there (matching is per line), so a wait that found
   * nothing last time scans what is new, not the whole screen: a line or two per update.
   */
  newMatches(since: Frame, key: string, needle: string | RegexPattern): Match[] {
    if (since === this) return NONE;
    const d = this.newSince(since);
    // Most needles are not in the few new rows: that is told without a lookup, as distinct waits need.
    if (typeof needle === "string" && !d.text.includes(needle)) return NONE;
    let found = d.scans.get(key);
    if (!found) d.scans.set(key, (found = findAll(this.lines, needle, d.rows)));
    return found;
  }

  /** The rows whose text was on no row of `since`, and that text joined. */
  newSince(since: Frame): { rows: number[]; text: string; scans: Map<string, Match[]> } {
    if (this.delta?.since !== since) {
      const before = new Set(since.lines);
      const rows: number[] = [];
      this.lines.forEach((line, row) => {
        if (!before.has(line)) rows.push(row);
      });
      // Kept for the one state most waits were last checked against: the one before this. That
      // one's own delta is done with (checks are against the newest state), so no chain of old
      // screens stays reachable.
      since.delta = null;
      this.delta = { since, rows, text: rows.map((r) => this.lines[r]).join("\n"), scans: new Map() };
    }
    return this.delta;
  }
}

/** The frame of the screen as it is now: one per screen state, whoever asks. */
const frames = new WeakMap<ScreenState, Frame>();
export function frameOf(s: ProgramStream): Frame {
  const state = s.stream.view.state;
  let f = frames.get(state);
  if (!f) frames.set(state, (f = new Frame(state)));
  return f;
}

export function matchKey(f: Frame, m: Match): string {
  return `${f.top + m.row}:${m.col}:${m.text}`;
}

/** Every match of `needle` on the screen (in `rows` only, if given), several per line included. */
export function findAll(lines: readonly string[], needle: string | RegexPattern, rows?: readonly number[]): Match[] {
  const out: Match[] = [];
  const scan = (row: number) => {
    const line = lines[row]!;
    for (let from = 0; from <= line.length; ) {
      let m: { col: number; text: string } | null;
      if (typeof needle === "string") {
        const col = line.indexOf(needle, from);
        m = col >= 0 ? { col, text: needle } : null;
      } else m = needle.matchFrom(line, from);
      if (!m) break;
      out.push({ row, col: m.col, text: m.text });
      from = m.col + Math.max(1, m.text.length);
    }
  };
  if (rows) rows.forEach(scan);
  else for (let row = 0; row < lines.length; row++) scan(row);
  return out;
}
