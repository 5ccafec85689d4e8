// The headless screen of one session: @xterm/headless fed with the PTY's bytes. It answers the
// terminal queries xterm implements (DA, DSR/CPR, DECRQM, DECRQSS …) through onReply, and those
// xterm headless leaves unanswered (XTVERSION, the kitty keyboard query, OSC 10/11/12 colours)
// through parser hooks, so every reply leaves in the order the queries came. It gives snapshots
// as text or ANSI with the cursor, title and a hash a waiter can compare against.
import { Terminal } from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { boundCounts } from "./bounds.ts";
import type { CellRun, ScreenSnapshot, Size } from "../protocol/schemas.ts";
import { rowRuns } from "./cells.ts";
import { jsonBytes, type PageAsk, rowsThatFit } from "./scrollback-page.ts";
import { patchXtermGaps } from "./xterm-gaps.ts";
import { KittyKeyboard } from "./kitty.ts";
import { isOscQuery, queryIds } from "./queries.ts";

/** What OSC 10, 11 and 12 report: xterm.js's default theme (white on black, white cursor). */
export const DEFAULT_COLORS: Readonly<Record<number, string>> = {
  10: "rgb:ffff/ffff/ffff",
  11: "rgb:0000/0000/0000",
  12: "rgb:ffff/ffff/ffff",
};

export interface ScreenOptions {
  rows: number;
  cols: number;
  scrollback: number;
  /** Bytes the terminal sends back to the program (query replies). */
  onReply: (data: string) => void;
  /** XTVERSION's answer (CSI > q → DCS > | name ST), e.g. "termd(0.1.0)". */
  version?: string;
}

/** The screen as the session's view mirrors it after every update. */
export interface ScreenState {
  lines: string[];
  cursor: { row: number; col: number; visible: boolean };
  size: Size;
  alternate: boolean;
  scrollback_total: number;
  seq: number;
  hash: string;
  plainScrolling: boolean;
  /** The parser is between sequences (not inside an escape sequence or string). */
  ground: boolean;
}

/** The part of a snapshot the screen itself knows (the session adds title, cwd, modes, offset). */
export type ScreenPart = Omit<ScreenSnapshot, "offset" | "modes" | "current_cwd" | "title">;

/** What a block of rows' ANSI may take more in the page than alone: the style the row before left, in full, and the line break. */
const BLOCK_SLACK = 64;

export class Screen {
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private cursorHidden = false;
  /** The kitty flags as of the byte being parsed, for the query's answer (the tap's may be ahead). */
  private readonly kitty = new KittyKeyboard();
  /** Increments with every parsed write: a cheap "did anything change" counter. */
  seq = 0;

  constructor(opts: ScreenOptions) {
    this.term = new Terminal({
      rows: opts.rows,
      cols: opts.cols,
      scrollback: opts.scrollback,
      allowProposedApi: true,
      logLevel: "off",
    });
    this.term.loadAddon(this.serializer as unknown as Parameters<Terminal["loadAddon"]>[0]);
    // Unicode 11 widths, as modern terminals have them: emoji and CJK take two cells. The SVG and
    // PNG renderers place characters by the cells this gives, so they can never disagree with it.
    this.term.loadAddon(new Unicode11Addon() as unknown as Parameters<Terminal["loadAddon"]>[0]);
    this.term.unicode.activeVersion = "11";
    this.term.onData(opts.onReply);
    this.term.onBinary(opts.onReply);
    // xterm headless keeps cursor visibility private; track DECTCEM ourselves.
    this.term.parser.registerCsiHandler({ prefix: "?", final: "h" }, (params) => this.decset(params, false));
    this.term.parser.registerCsiHandler({ prefix: "?", final: "l" }, (params) => this.decset(params, true));
    boundCounts(this.term, opts.scrollback);
    this.answerQueries(opts);
    patchXtermGaps(this.term);
  }

  /** The queries xterm headless parses but does not answer: without a reply vim, neovim, fish and
   * agent TUIs wait for a timeout, or take their absence for an old terminal. */
  private answerQueries(opts: ScreenOptions): void {
    const p = this.term.parser;
    const first = (params: (number | number[])[], fallback: number) => {
      const v = params[0];
      return typeof v === "number" && v >= 0 ? v : fallback;
    };
    const alt = () => this.term.buffer.active.type === "alternate";
    p.registerCsiHandler({ prefix: ">", final: "q" }, (params) => {
      if (first(params, 0) === 0) opts.onReply(`\x1bP>|${opts.version ?? "termd"}\x1b\\`);
      return true;
    });
    p.registerCsiHandler({ prefix: ">", final: "u" }, (params) => (this.kitty.push(first(params, 0), alt()), true));
    p.registerCsiHandler({ prefix: "<", final: "u" }, (params) => (this.kitty.pop(first(params, 1), alt()), true));
    p.registerCsiHandler({ prefix: "=", final: "u" }, (params) => {
      const mode = typeof params[1] === "number" && params[1] > 0 ? params[1] : 1;
      this.kitty.set(first(params, 0), mode, alt());
      return true;
    });
    p.registerEscHandler({ final: "c" }, () => (this.kitty.reset(), false));
    p.registerCsiHandler({ prefix: "?", final: "u" }, () => (opts.onReply(`\x1b[?${this.kitty.flags(alt())}u`), true));
    // "10;?" asks for the foreground; "10;?;?" for 10 and then 11, as in xterm; which OSCs are
    // such queries is queries.ts's table, as for the attach filter. A colour being set goes on to
    // xterm's own handler.
    for (const id of queryIds("osc", "screen").map(Number)) {
      p.registerOscHandler(id, (data) => {
        if (!isOscQuery(`${id};${data}`)) return false;
        data.split(";").forEach((_, i) => {
          opts.onReply(`\x1b]${id + i};${DEFAULT_COLORS[id + i]}\x1b\\`);
        });
        return true;
      });
    }
  }

  private decset(params: (number | number[])[], hidden: boolean): boolean {
    if (params.includes(25)) this.cursorHidden = hidden;
    return false; // let xterm handle it too
  }

  /**
   * Parses bytes now. xterm's public write() defers parsing to a timer (about 1 ms a call here),
   * which would put that on every key's round trip; the session already slices and schedules the
   * stream, so it parses synchronously through the core's writeSync.
   */
  writeSync(data: Uint8Array): void {
    (this.term as unknown as { _core: { writeSync(d: Uint8Array): void } })._core.writeSync(data);
    this.seq++;
  }

  /**
   * Can plain text be fast-forwarded (see fast-forward.ts)? Only while lines scroll the
   * whole screen: a scroll region or origin mode would keep old rows that a clear would lose.
   */
  get plainScrolling(): boolean {
    const core = (
      this.term as unknown as {
        _core: { buffer: { scrollTop: number; scrollBottom: number }; coreService: { decPrivateModes: { origin: boolean } } };
      }
    )._core;
    return core.buffer.scrollTop === 0 && core.buffer.scrollBottom === this.term.rows - 1 && !core.coreService.decPrivateModes.origin;
  }

  /** Is the parser between sequences? A fast-forward may only start there. */
  get ground(): boolean {
    return (
      (this.term as unknown as { _core: { _inputHandler: { _parser: { currentState: number } } } })._core._inputHandler._parser
        .currentState === 0
    );
  }

  /** Clears the screen and the scrollback and homes the cursor, as if it had all scrolled away. */
  clearAll(): void {
    this.writeSync(new TextEncoder().encode("\x1b[H\x1b[2J\x1b[3J"));
  }

  resize(size: Size): void {
    this.term.resize(size.cols, size.rows);
    // xterm trims the resized lines' memory later, in 16 ms slices on a timer, and warns on the
    // console when a slice overran (on a busy machine, every few resizes): trimmed here at once,
    // in the worker's own time, it leaves nothing behind to run or warn.
    for (const buffer of this.buffers()) buffer._memoryCleanupQueue.flush();
  }

  /** The normal and the alternate buffer, as xterm keeps them (internals). */
  private buffers(): { _memoryCleanupQueue: { flush(): void; _tasks: unknown[] } }[] {
    type Buffer = { _memoryCleanupQueue: { flush(): void; _tasks: unknown[] } };
    const { normal, alt } = (this.term as unknown as { _core: { _bufferService: { buffers: { normal: Buffer; alt: Buffer } } } })._core
      ._bufferService.buffers;
    return [normal, alt];
  }

  /** Work xterm left to run later (its memory trimming after a resize); none, since resize does it at once. */
  get deferredTasks(): number {
    return this.buffers().reduce((n, b) => n + b._memoryCleanupQueue._tasks.length, 0);
  }

  get size(): Size {
    return { rows: this.term.rows, cols: this.term.cols };
  }

  /** The visible rows as text, trailing blanks trimmed. */
  lines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let r = 0; r < this.term.rows; r++) out.push(buf.getLine(buf.viewportY + r)?.translateToString(true) ?? "");
    return out;
  }

  cursor(): { row: number; col: number; visible: boolean } {
    const buf = this.term.buffer.active;
    return { row: buf.cursorY, col: buf.cursorX, visible: !this.cursorHidden };
  }

  /** A short digest of what a person would see: rows, cursor and which buffer is shown. */
  hash(lines = this.lines()): string {
    const c = this.cursor();
    const key = `${lines.join("\n")}\0${c.row},${c.col},${c.visible}\0${this.term.buffer.active.type}`;
    return Bun.hash.wyhash(key).toString(16).padStart(16, "0");
  }

  /** What the session keeps of the screen between updates: enough for text reads and waits. */
  state(): ScreenState {
    const visible = this.lines();
    return {
      lines: visible,
      cursor: this.cursor(),
      size: this.size,
      alternate: this.term.buffer.active.type === "alternate",
      scrollback_total: this.term.buffer.active.viewportY,
      seq: this.seq,
      hash: this.hash(visible),
      plainScrolling: this.plainScrolling,
      ground: this.ground,
    };
  }

  /**
   * The screen, and the page of scrollback `page` asks for (see scrollback-page.ts): the session
   * adds the title, cwd and modes, from its tap, and the offset. The page that ends at the
   * screen's top carries, in ansi, the screen's redraw, with history from the normal buffer (also
   * under the alternate screen, where it shows again once the program leaves it); a page above it
   * carries its own lines, each ending in CRLF, the style reset at its end, so pages written
   * oldest first and that one last redraw the whole history.
   */
  snapshot(format: "text" | "ansi" | "cells" = "text", scrollback = 0, page: PageAsk = {}): ScreenPart {
    const active = this.term.buffer.active;
    const visible = this.lines();
    const total = active.viewportY;
    const end = Math.min(page.end ?? 0, total);
    const redraw = format === "ansi" && end === 0;
    const history = redraw ? this.term.buffer.normal : active;
    /** Are the history's rows in `lines` (not only in a redraw's ansi)? */
    const inLines = history.type === active.type;
    const top = history.length - this.term.rows - end;
    const want = Math.max(0, Math.min(scrollback, top));
    const cell = history.getNullCell();
    const y = (i: number) => top - 1 - i;
    const texts: string[] = [];
    const runs: CellRun[][] = [];
    const text = (i: number) => (texts[i] ??= history.getLine(y(i))?.translateToString(true) ?? "");
    const runsOf = (i: number) => (runs[i] ??= rowRuns(history.getLine(y(i)), cell));
    const ansiOf = (k: number) =>
      redraw
        ? this.serializer.serialize({ scrollback: k })
        : k === 0
          ? ""
          : this.serializer.serialize({ range: { start: top - k, end: top - 1 }, excludeAltBuffer: true, excludeModes: true }) +
            "\x1b[0m\r\n";
    const screenCells = format === "cells" ? visible.map((_, r) => rowRuns(active.getLine(active.viewportY + r), cell)) : undefined;
    // The same in every page tried: reckoned once.
    const cursor = this.cursor();
    const hash = this.hash(visible);
    const build = (k: number): ScreenPart => {
      const above = inLines ? Array.from({ length: k }, (_, j) => text(k - 1 - j)) : [];
      const snap: ScreenPart = {
        lines: [...above, ...visible],
        scrollback_lines: above.length,
        scrollback_total: total,
        scrollback_end: end,
        cursor,
        size: this.size,
        alternate: active.type === "alternate",
        seq: this.seq,
        hash,
      };
      if (format === "ansi") snap.ansi = ansiOf(k);
      if (screenCells) snap.cells = [...above.map((_, j) => runsOf(k - 1 - j)), ...screenCells];
      return snap;
    };
    const budget = page.budget ?? Infinity;
    if (budget === Infinity || want === 0) return build(want);
    const none = build(0);
    const base = jsonBytes(none);
    // Rows first … first+n-1: their text and runs as they are in the reply (a comma each), their
    // ANSI as one range, plus what the range may take more in place (a style carried over, a line break).
    const cost = (first: number, n: number) => {
      let c = 0;
      for (let i = first; i < first + n; i++) {
        if (inLines) c += jsonBytes(text(i)) + 1;
        if (screenCells) c += jsonBytes(runsOf(i)) + 1;
      }
      if (format === "ansi")
        c +=
          jsonBytes(
            this.serializer.serialize({ range: { start: y(first + n - 1), end: y(first) }, excludeAltBuffer: true, excludeModes: true }),
          ) + BLOCK_SLACK;
      return c;
    };
    let k = rowsThatFit(want, budget - base, cost);
    // ANSI in place can still pass its estimate (a background carried over a row's blanks): fewer rows, in proportion to the excess.
    for (;;) {
      if (k === 0) return none;
      const snap = build(k);
      const size = jsonBytes(snap);
      if (size <= budget) return snap;
      k = Math.max(0, Math.floor((k * (budget - base) * 0.98) / (size - base)));
    }
  }

  dispose(): void {
    this.term.dispose();
  }
}
