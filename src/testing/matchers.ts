// The screen matchers on a Terminal, in the shape jest-style `expect.extend` takes (bun:test's and
// vitest's, runners/), and what expectTerminal (assert.ts) calls for node:test. Each one retries
// until it holds or its timeout (the terminal's unless told: 10 s, less under a short test
// timeout) runs out, reading the screen again whenever it changes; so they are awaited:
// `await expect(t).toShowText("ready")`. `.not` waits for the opposite. A failure shows the whole
// screen with the cursor marked and the rows that matter highlighted, and where the test's
// artifacts go.
import { dirname } from "node:path";
import type { CellColor } from "../protocol/schemas.ts";
import { findInCells, type Cell } from "./cells.ts";
import { renderScreen, screenFile, styledScreenFile } from "./screen-text.ts";
import {
  ciMode,
  noteSnapshot,
  readSnapshot,
  snapshotDiff,
  snapshotDir,
  snapshotPath,
  formerSnapshot,
  updatingSnapshots,
  writeSnapshot,
} from "./snapshots.ts";
import { ambiguity, findAll, type Match, type Screen, type ScrollbackOption } from "./screen.ts";
import { Terminal } from "./terminal.ts";

/** A colour: a palette index (0-255), "#rrggbb", one of the 16 ANSI names ("red", "brightBlue"), or "default". */
export type ColorSpec = number | string;

export interface ShowTextOptions {
  /** Only this row counts. */
  row?: number;
  /** The lines that scrolled off the top count too (true: all of them; a number: the last N). Not with fg/bg/bold. */
  scrollback?: ScrollbackOption;
  fg?: ColorSpec;
  bg?: ColorSpec;
  bold?: boolean;
  timeout?: number;
  /** The text in more than one place (on `row`, if given) fails at once, naming each (default: the terminal's). */
  strict?: boolean;
}

export interface RetryOptions {
  timeout?: number;
}

export interface SnapshotOptions extends RetryOptions {
  /** Keep colours and attributes too (`NAME.styled.txt`). */
  style?: boolean;
}

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** What a matcher reads of `this` in expect.extend: whether it runs under `.not` (vitest leaves it undefined otherwise). */
export interface MatcherContext {
  isNot?: boolean;
}

const NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];

function colourValue(c: ColorSpec): CellColor | null {
  if (typeof c === "number") return c;
  const lower = c.toLowerCase();
  if (lower === "default") return null;
  if (/^#[0-9a-f]{6}$/.test(lower)) return lower;
  const bright = lower.startsWith("bright");
  const i = NAMES.indexOf(bright ? lower.slice(6) : lower);
  if (i < 0) throw new Error(`unknown colour ${JSON.stringify(c)}: use a palette index, "#rrggbb", an ANSI name or "default"`);
  return bright ? i + 8 : i;
}

function sameColour(cell: CellColor | null, want: CellColor | null): boolean {
  return typeof cell === "string" && typeof want === "string" ? cell.toLowerCase() === want : cell === want;
}

function terminalOf(received: unknown, matcher: string): Terminal {
  if (received instanceof Terminal) return received;
  throw new Error(`${matcher} expects a Terminal from launch(), got ${typeof received}`);
}

interface Attempt {
  ok: boolean;
  screen: Screen;
  highlight: Set<number>;
  detail?: string;
  /** No use retrying (strict found the text twice): fail now. */
  final?: boolean;
}

/**
 * Tries `attempt` until its `ok` is what the matcher wants (`!isNot`) or the timeout passes;
 * `poll` for conditions the screen hash does not see (styles, the title).
 */
async function retry(
  t: Terminal,
  isNot: boolean,
  timeout: number,
  attempt: () => Promise<Attempt>,
  poll?: number,
): Promise<Attempt & { waited: number }> {
  const start = performance.now();
  for (;;) {
    const a = await attempt();
    const left = timeout - (performance.now() - start);
    if (a.ok !== isNot || left <= 0 || a.final) return { ...a, waited: Math.round(performance.now() - start) };
    if (!(await t.changeFrom(a.screen.hash, left, poll))) {
      const last = await attempt();
      return { ...last, waited: Math.round(performance.now() - start) };
    }
  }
}

function result(t: Terminal, pass: boolean, isNot: boolean, what: string, a: Attempt & { waited: number }, timeout: number): MatcherResult {
  if (pass === isNot) {
    const why = `expected the screen ${isNot ? "not " : ""}to ${what} (waited ${Math.min(a.waited, timeout)} of ${timeout} ms)`;
    t.noteTimeout(why, a.screen);
    const err = new Error(`${why}${a.detail ? `\n${a.detail}` : ""}\n\n${renderScreen(a.screen, a.highlight)}`);
    t.failed(err);
    return { pass, message: () => err.message };
  }
  return { pass, message: () => `expected the screen ${isNot ? "" : "not "}to ${what}` };
}

function describeStyle(o: ShowTextOptions): string {
  const parts = [
    o.fg !== undefined ? `fg ${o.fg}` : "",
    o.bg !== undefined ? `bg ${o.bg}` : "",
    o.bold !== undefined ? (o.bold ? "bold" : "not bold") : "",
  ].filter(Boolean);
  return parts.length ? ` in ${parts.join(", ")}` : "";
}

function styled(cells: Cell[], o: ShowTextOptions): boolean {
  const fg = o.fg !== undefined ? colourValue(o.fg) : undefined;
  const bg = o.bg !== undefined ? colourValue(o.bg) : undefined;
  return cells.every(
    (c) =>
      (fg === undefined || sameColour(c.fg, fg)) &&
      (bg === undefined || sameColour(c.bg, bg)) &&
      (o.bold === undefined || c.bold === o.bold),
  );
}

/** The matchers, for expect.extend. */
export const matchers = {
  async toShowText(this: MatcherContext, received: unknown, text: string | RegExp, opts: ShowTextOptions = {}) {
    const t = terminalOf(received, "toShowText");
    const timeout = opts.timeout ?? t.timeout;
    const withStyle = opts.fg !== undefined || opts.bg !== undefined || opts.bold !== undefined;
    const strict = !this.isNot && (opts.strict ?? t.strict);
    const shown = typeof text === "string" ? JSON.stringify(text) : String(text);
    const a = await retry(
      t,
      !!this.isNot,
      timeout,
      async () => {
        let screen: Screen;
        let found: Match[];
        let ok: boolean;
        let detail: string | undefined;
        if (!withStyle) {
          screen = await t.screen({ scrollback: opts.scrollback });
          found = findAll(screen, text);
          ok = found.some((m) => opts.row === undefined || m.row === opts.row);
        } else {
          const styledNow = await t.styledScreen();
          screen = styledNow.screen;
          found = [];
          ok = false;
          styledNow.cells.forEach((row, r) => {
            for (const m of findInCells(row, text)) {
              found.push({ row: r, col: m.col, text: "" });
              if ((opts.row === undefined || r === opts.row) && styled(row.slice(m.col, m.col + m.cols), opts)) ok = true;
            }
          });
          if (!ok && found.length) detail = "the text is there, but not in that style";
        }
        // Every row the text is on is highlighted, also when only `row` counts: it shows where it went.
        const highlight = new Set(found.map((m) => m.row));
        const twice = ambiguity(
          found.filter((m) => opts.row === undefined || m.row === opts.row),
          shown,
          strict,
        );
        return twice ? { ok: false, screen, highlight, detail: twice, final: true } : { ok, screen, highlight, detail };
      },
      withStyle ? 100 : undefined,
    );
    const where = opts.row !== undefined ? ` on row ${opts.row}` : "";
    return result(t, a.ok, !!this.isNot, `show ${shown}${where}${describeStyle(opts)}`, a, timeout);
  },

  async toHaveCursorAt(this: MatcherContext, received: unknown, row: number, col: number, opts: RetryOptions = {}) {
    const t = terminalOf(received, "toHaveCursorAt");
    const timeout = opts.timeout ?? t.timeout;
    const a = await retry(t, !!this.isNot, timeout, async () => {
      const screen = await t.screen();
      return {
        ok: screen.cursor.row === row && screen.cursor.col === col,
        screen,
        highlight: new Set([row]),
        detail: `cursor at ${screen.cursor.row},${screen.cursor.col}`,
      };
    });
    return result(t, a.ok, !!this.isNot, `have the cursor at ${row},${col}`, a, timeout);
  },

  async toHaveTitle(this: MatcherContext, received: unknown, title: string | RegExp, opts: RetryOptions = {}) {
    const t = terminalOf(received, "toHaveTitle");
    const timeout = opts.timeout ?? t.timeout;
    const a = await retry(
      t,
      !!this.isNot,
      timeout,
      async () => {
        const screen = await t.screen();
        const ok = typeof title === "string" ? screen.title === title : title.test(screen.title);
        return { ok, screen, highlight: new Set<number>(), detail: `title ${JSON.stringify(screen.title)}` };
      },
      100,
    );
    return result(t, a.ok, !!this.isNot, `have the title ${typeof title === "string" ? JSON.stringify(title) : String(title)}`, a, timeout);
  },

  async toMatchScreenSnapshot(this: MatcherContext, received: unknown, name?: string, opts: SnapshotOptions = {}) {
    const t = terminalOf(received, "toMatchScreenSnapshot");
    const run = t.run;
    if (!run) throw new Error("toMatchScreenSnapshot works inside a test file: it keeps snapshots beside it");
    const path = snapshotPath(snapshotDir(run.file), name ?? run.nextSnapshotName(), Boolean(opts.style));
    noteSnapshot(run.file, path);
    const timeout = opts.timeout ?? t.timeout;
    const take = async () => {
      if (!opts.style) {
        const screen = await t.screen();
        return { screen, file: screenFile(screen) };
      }
      const { screen, runs } = await t.styledScreen();
      return { screen, file: styledScreenFile(screen, runs) };
    };
    const stored = readSnapshot(path);
    if (stored === undefined || updatingSnapshots()) {
      const former = stored === undefined && !updatingSnapshots() ? formerSnapshot(run.file, path) : undefined;
      if (former) {
        // Not written over, nor taken silently: the suite's baseline is that file, where it was.
        const { screen } = await take();
        return result(
          t,
          !!this.isNot,
          !!this.isNot,
          `match the snapshot ${path}, which does not exist; ${former}, where termd/testing kept it before each test file had a folder of snapshots, does: move it (mkdir -p ${dirname(path)} && mv ${former} ${path}), or run with -u (or TERMD_UPDATE_SNAPSHOTS=1) to write a new one`,
          { ok: false, screen, highlight: new Set(), waited: 0 },
          timeout,
        );
      }
      if (stored === undefined && ciMode()) {
        const { screen } = await take();
        return result(
          t,
          !!this.isNot,
          !!this.isNot,
          `match the snapshot ${path}, which does not exist (under CI none is written: bun test --ci, or the CI variable)`,
          { ok: false, screen, highlight: new Set(), waited: 0 },
          timeout,
        );
      }
      // What is kept is the screen once the program has drawn it, not a frame halfway through.
      await t.waitForIdle(200, { timeout });
      writeSnapshot(path, (await take()).file);
      return { pass: !this.isNot, message: () => `wrote the snapshot ${path}` };
    }
    let last = "";
    const a = await retry(
      t,
      !!this.isNot,
      timeout,
      async () => {
        const { screen, file } = await take();
        last = file;
        return { ok: file === stored, screen, highlight: new Set<number>() };
      },
      opts.style ? 100 : undefined,
    );
    if (!a.ok)
      a.detail = `${path} (- snapshot, + screen; run bun test -u or TERMD_UPDATE_SNAPSHOTS=1 to update it):\n${snapshotDiff(stored, last)}`;
    return result(t, a.ok, !!this.isNot, `match the snapshot ${path}`, a, timeout);
  },
};
