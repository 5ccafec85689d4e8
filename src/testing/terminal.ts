// A Terminal: one program in its own session of the test's daemon, with the calls a test makes
// (type, press, read the screen, wait) and its disposal (`await using`): the session is stopped
// and removed however the test ends, after its artifacts were written when the test failed.
import type { Client } from "../client/client.ts";
import type { Trace } from "./config.ts";
import type { InputInput, ScreenSnapshot, WaitResult } from "../protocol/schemas.ts";
import { clearArtifacts, writeArtifacts, type TimedOutWait } from "./artifacts.ts";
import { rowCells, type Cell } from "./cells.ts";
import { defined, type ClickOptions, type MouseEventInput, type MouseOptions, type MouseTarget } from "./mouse.ts";
import { ambiguity, findAll, scrollbackLines, toScreen, type Match, type Screen, type ScrollbackOption } from "./screen.ts";
import { renderScreen } from "./screen-text.ts";
import { pointAtCaller } from "./stack.ts";
import type { TestRun } from "./test-context.ts";
import { describeWait, inputWait, type InputOptions } from "./wait-for.ts";

/** The longest a wait or a retrying matcher waits unless told (ms). */
const MAX_DEFAULT_TIMEOUT_MS = 10_000;

/**
 * How long a wait or a retrying matcher waits unless told, given the runner's test timeout (ms):
 * 10 s, but at most 60% of the test's timeout, so a wait that fails does so with its own message
 * and screen before the runner ends the test (3 s under bun's and vitest's default 5 s; the
 * proportion of Playwright's 5 s expect timeout in a 30 s test, more room than that).
 */
export function defaultTimeout(testTimeout: number): number {
  return testTimeout > 0 ? Math.min(MAX_DEFAULT_TIMEOUT_MS, Math.floor(testTimeout * 0.6)) : MAX_DEFAULT_TIMEOUT_MS;
}

export interface WaitForTextOptions {
  timeout?: number;
  /** Wait until the text is no longer on the screen. */
  gone?: boolean;
  /** Only this row counts. */
  row?: number;
  /** Search the lines that scrolled off the top too (true: all of them; a number: the last N); their rows are negative. */
  scrollback?: ScrollbackOption;
  /** The text in more than one place fails at once, naming each place (default: the terminal's, off unless configured). */
  strict?: boolean;
}

/** A wait that did not see its condition in time (or saw the program end first). */
export class WaitError extends Error {
  override name = "WaitError";
  /** The screen when the wait gave up (not enumerable: the message already shows it). */
  declare readonly screen: Screen;
  constructor(message: string, screen: Screen) {
    super(message);
    Object.defineProperty(this, "screen", { value: screen, enumerable: false });
  }
}

/**
 * A call that was waiting when its terminal closed (the test ended, or close() was called);
 * `cause`: the error the call met itself as the session went (the session gone), if any.
 */
export class CutShortError extends Error {
  override name = "CutShortError";
}

export interface TerminalInit {
  client: Client;
  socket: string;
  session: string;
  /** Files of this terminal's artifacts start with it. */
  label: string;
  run: TestRun | undefined;
  timeout: number;
  strict: boolean;
  trace: Trace;
  /** Called once the session is removed: what the program needed while it ran goes then. */
  onClose?: () => void;
}

export class Terminal {
  /** The session's name in the daemon (`termd attach NAME --socket SOCKET` shows it live). */
  readonly session: string;
  /** The daemon's socket. */
  readonly socket: string;
  readonly label: string;
  /** Default timeout of waits and matchers (ms). */
  readonly timeout: number;
  /** Whether text in more than one place fails a wait or matcher (unless it says otherwise). */
  readonly strict: boolean;
  /** When the recording and screens are kept. */
  readonly trace: Trace;
  private readonly client: Client;
  readonly run: TestRun | undefined;
  private readonly timedOut: TimedOutWait[] = [];
  private pending = 0;
  private closing: Promise<void> | undefined;
  private readonly onClose: (() => void) | undefined;
  /** Why the terminal closed while a call was waiting: what that call rejects with. */
  private closedBy = "the terminal was closed";

  constructor(init: TerminalInit) {
    this.client = init.client;
    this.socket = init.socket;
    this.session = init.session;
    this.label = init.label;
    this.run = init.run;
    this.timeout = init.timeout;
    this.strict = init.strict;
    this.trace = init.trace;
    this.onClose = init.onClose;
    this.run?.track(this);
  }

  /** Runs one call of the test's: failures count against the test and name its artifacts. */
  private async op<T>(fn: () => Promise<T>): Promise<T> {
    // Made before the first await, while the stack still holds the test's frames.
    const site = new Error();
    this.pending++;
    try {
      const r = await fn();
      this.run?.ok();
      return r;
    } catch (err) {
      // A call the closing cut short fails with that, not with what the session's removal did (the program's hangup, a session gone).
      const e =
        this.closing && !(err instanceof CutShortError)
          ? new CutShortError(`${this.closedBy} while a call was waiting`, { cause: err })
          : err;
      pointAtCaller(this.failed(e), site);
      throw e;
    } finally {
      this.pending--;
    }
  }

  /** @internal Marks the test failed and says where its artifacts go; returns the error to throw. */
  failed(err: unknown): unknown {
    if (this.run && !this.closing) {
      this.run.fail(err instanceof Error ? err.message : String(err));
      if (this.trace !== "off" && err instanceof Error && !err.message.includes("test-results/"))
        err.message += `\n\nartifacts (if the test fails): ${this.run.artifactDir}/`;
    }
    return err;
  }

  // Typing

  /** Types text as is (control characters included). */
  type(text: string, opts: InputOptions = {}): Promise<Match | undefined> {
    return this.input({ text }, opts);
  }

  /** Presses keys: `press("Enter")`, `press("Ctrl+C")`, `press("Escape", ":", "q")`, options last. */
  press(...args: (string | InputOptions)[]): Promise<Match | undefined> {
    const last = args.at(-1);
    const opts = typeof last === "object" ? (args.pop() as InputOptions) : {};
    return this.input({ keys: args as string[] }, opts);
  }

  /** Pastes text: bracketed when the program turned bracketed paste on. */
  paste(text: string, opts: InputOptions = {}): Promise<Match | undefined> {
    return this.input({ paste: text }, opts);
  }

  /** Types text, then Enter once the program is quiet (at least 150 ms later): the safe way to submit. */
  submit(text: string, opts: InputOptions = {}): Promise<Match | undefined> {
    return this.input({ text, submit: true }, opts);
  }

  private input(what: Pick<InputInput, "text" | "keys" | "paste" | "submit" | "mouse">, opts: InputOptions): Promise<Match | undefined> {
    return this.op(async () => {
      if (opts.waitFor === undefined) {
        await this.client.call("session.input", { session: this.session, ...what });
        return undefined;
      }
      const w = opts.waitFor;
      const wait = inputWait(w, this.timeout);
      const r = await this.client.call("session.input", { session: this.session, ...what, wait });
      return this.outcome(r.wait!, `${describeWait(w)} after the input`, wait.timeout_ms ?? this.timeout, Boolean(wait.exit));
    });
  }

  /** A wait's result as the caller wants it: the match, or an error showing the screen. */
  private outcome(r: WaitResult, what: string, timeout: number, exitOk: boolean): Match | undefined {
    if (r.outcome === "matched") return r.match;
    if (r.outcome === "changed" || r.outcome === "settled" || r.outcome === "activity") return undefined;
    if (this.closing) throw this.cutShort(what);
    const screen = toScreen(r.screen);
    if (r.outcome === "exited" && exitOk) return undefined;
    const why =
      r.outcome === "exited"
        ? `the program exited (${r.signal ? `signal ${r.signal}` : `code ${r.exit_code}`}) before ${what} showed`
        : `timed out after ${timeout} ms waiting for ${what}`;
    return this.giveUp(why, screen);
  }

  /** A wait that gives up: its screen kept for the artifacts, an error showing it. */
  private giveUp(why: string, screen: Screen, highlight?: Set<number>): never {
    this.timedOut.push({ what: why, screen });
    throw new WaitError(`${why}\n\n${renderScreen(screen, highlight)}`, screen);
  }

  // Mouse: encoded by the daemon for the mouse mode the program turned on; MOUSE_NOT_ENABLED when
  // it asked for none.

  /** Where a target is: a point as given, or the middle of the text's first match (waited for). */
  private async locate(target: MouseTarget, timeout?: number, strict?: boolean): Promise<{ row: number; col: number }> {
    if (typeof target === "object" && !(target instanceof RegExp)) return target;
    const m = await this.waitForText(target, { timeout, strict });
    return { row: m.row, col: m.col + Math.floor((Math.max(1, m.text.length) - 1) / 2) };
  }

  private mouse(event: MouseEventInput, opts: InputOptions): Promise<Match | undefined> {
    return this.input({ mouse: event }, opts);
  }

  /** Clicks a text on the screen (its middle; waited for, as waitForText does) or a cell `{ row, col }`. */
  async click(target: MouseTarget, opts: ClickOptions = {}): Promise<Match | undefined> {
    const at = await this.locate(target, opts.timeout, opts.strict);
    const { button, count, shift, alt, ctrl } = opts;
    return this.mouse({ action: "click", ...at, ...defined({ button, count, shift, alt, ctrl }) }, opts);
  }

  /** Turns the wheel `n` notches (default 1) over `at` (default: the middle of the screen). */
  async scroll(
    direction: "up" | "down" | "left" | "right",
    n = 1,
    opts: MouseOptions & { at?: MouseTarget } = {},
  ): Promise<Match | undefined> {
    const at = opts.at !== undefined ? await this.locate(opts.at, opts.timeout, opts.strict) : await this.middle();
    const { shift, alt, ctrl } = opts;
    return this.mouse({ action: "scroll", direction, count: n, ...at, ...defined({ shift, alt, ctrl }) }, opts);
  }

  /** Presses a button at `from`, moves through the cells between and releases it at `to`. */
  async drag(
    from: MouseTarget,
    to: MouseTarget,
    opts: MouseOptions & { button?: "left" | "middle" | "right" } = {},
  ): Promise<Match | undefined> {
    const a = await this.locate(from, opts.timeout, opts.strict);
    const b = await this.locate(to, opts.timeout, opts.strict);
    const { button, shift, alt, ctrl } = opts;
    return this.mouse({ action: "drag", from: a, to: b, ...defined({ button, shift, alt, ctrl }) }, opts);
  }

  private async middle(): Promise<{ row: number; col: number }> {
    const s = await this.screen();
    return { row: Math.floor(s.size.rows / 2), col: Math.floor(s.size.cols / 2) };
  }

  // Reading

  /** The screen now (it shows at least every byte the program wrote before the call); `scrollback` adds the lines above it. */
  screen(opts: { scrollback?: ScrollbackOption } = {}): Promise<Screen> {
    return this.op(async () => toScreen(await this.client.screen({ session: this.session, scrollback: scrollbackLines(opts.scrollback) })));
  }

  /** Row `n` of the screen (0-based), trailing blanks trimmed. */
  async line(n: number): Promise<string> {
    return ((await this.screen()).lines[n] ?? "").trimEnd();
  }

  /** The cell at `row`, `col` (0-based) with its character, width and style. */
  async cell(row: number, col: number): Promise<Cell> {
    return (await this.cells(row))[col] ?? rowCells([], 1)[0]!;
  }

  /** Every cell of `row`. */
  cells(row: number): Promise<Cell[]> {
    return this.op(async () => {
      const s = await this.client.call("session.screen", { session: this.session, format: "cells" });
      return rowCells(s.cells?.[row] ?? [], s.size.cols);
    });
  }

  /** @internal The screen with the styled cells of every row (the style matchers'). */
  styledScreen(): Promise<{ screen: Screen; cells: ReturnType<typeof rowCells>[]; runs: NonNullable<ScreenSnapshot["cells"]> }> {
    return this.op(async () => {
      const s = await this.client.call("session.screen", { session: this.session, format: "cells" });
      const runs = s.cells ?? [];
      return { screen: toScreen(s), cells: runs.map((r) => rowCells(r, s.size.cols)), runs };
    });
  }

  // Pictures: drawn by the daemon (session.screenshot) with the screen's own cell widths.

  /** The screen as an SVG document: colours, bold, underline, the cursor, wide characters and emoji. */
  svg(): Promise<string> {
    return this.op(() => this.client.screenshot(this.session, { format: "svg" }));
  }

  /** The screen as a PNG file's bytes (9 × 18 pixels a cell, times `scale`, default 1). */
  png(opts: { scale?: number } = {}): Promise<Uint8Array> {
    return this.op(() => this.client.screenshot(this.session, { format: "png", scale: opts.scale }));
  }

  // Waiting

  /**
   * Waits until `check` holds on the screen, reading it again whenever it changes (`poll`: at
   * least this often too, for conditions the screen's hash does not see, such as colours).
   */
  async until<T>(
    what: string,
    check: (s: Screen) => T | undefined | Promise<T | undefined>,
    opts: { timeout?: number; poll?: number; highlight?: (s: Screen) => Set<number>; scrollback?: ScrollbackOption } = {},
  ): Promise<T> {
    return this.op(async () => {
      const timeout = opts.timeout ?? this.timeout;
      const deadline = performance.now() + timeout;
      for (;;) {
        const s = toScreen(await this.client.screen({ session: this.session, scrollback: scrollbackLines(opts.scrollback) }));
        const r = await check(s);
        if (r !== undefined) return r;
        const left = Math.floor(deadline - performance.now());
        if (left <= 0) return this.giveUp(`timed out after ${timeout} ms waiting for ${what}`, s, opts.highlight?.(s));
        const w = await this.client.call("session.wait", {
          session: this.session,
          changed_from: s.hash,
          ...(opts.poll ? { activity: true } : {}),
          timeout_ms: Math.min(left, opts.poll ?? left),
        });
        if (w.outcome === "exited") {
          if (this.closing) throw this.cutShort(what);
          const last = toScreen(w.screen);
          const r2 = await check(last);
          if (r2 !== undefined) return r2;
          return this.giveUp(
            `the program exited (${w.signal ? `signal ${w.signal}` : `code ${w.exit_code}`}) while waiting for ${what}`,
            last,
            opts.highlight?.(last),
          );
        }
      }
    });
  }

  /**
   * @internal Waits up to `timeout` ms for the screen to differ from `hash` (or, with `poll`, for any output
   * or `poll` ms); false if the program ended. What the retrying matchers wait with between tries.
   */
  async changeFrom(hash: string, timeout: number, poll?: number): Promise<boolean> {
    const w = await this.op(() =>
      this.client.call("session.wait", {
        session: this.session,
        changed_from: hash,
        ...(poll ? { activity: true } : {}),
        timeout_ms: Math.max(1, Math.floor(Math.min(timeout, poll ?? timeout))),
      }),
    );
    if (w.outcome === "exited" && this.closing) throw this.cutShort("the screen to change");
    return w.outcome !== "exited";
  }

  /** The error of a wait that the terminal's closing ended: what happened, not the hangup the program got then. */
  private cutShort(what: string): CutShortError {
    return new CutShortError(`${this.closedBy} while waiting for ${what}`);
  }

  /** @internal Keeps a failed wait's last screen for the artifacts (the matchers' timeouts). */
  noteTimeout(what: string, screen: Screen): void {
    this.timedOut.push({ what, screen });
  }

  /**
   * @internal Waits for a shell's first prompt: shell integration's prompt-end mark (OSC 133 B),
   * or, from fish, which marks only the prompt's start (A), that mark and then `prompt` before the
   * cursor (or, not knowing the prompt, 100 ms of quiet).
   */
  async firstPrompt(prompt: string | undefined): Promise<void> {
    const started = await this.until(
      "the shell's first prompt (shell integration's OSC 133 marks)",
      async (s) => {
        const { marks } = await this.client.call("session.debug", { session: this.session });
        if (marks.some((m) => m.kind === "B")) return "drawn";
        if (!marks.some((m) => m.kind === "A")) return undefined;
        if (prompt === undefined) return "started";
        return (s.lines[s.cursor.row] ?? "").slice(0, s.cursor.col).endsWith(prompt) ? "drawn" : undefined;
      },
      { poll: 100 },
    );
    if (started === "started") await this.waitForIdle(100);
  }

  /**
   * Waits for text (or a match of a RegExp) on the screen, or with `gone` for it to leave. Found in
   * more than one place, it resolves to the first (reading order), with the others in `also`; or,
   * strict, fails at once naming each place.
   */
  waitForText(text: string | RegExp, opts: WaitForTextOptions = {}): Promise<Match> {
    const rows = (s: Screen) => new Set(findAll(s, text).map((m) => m.row));
    const shown = typeof text === "string" ? JSON.stringify(text) : String(text);
    const what = `${shown}${opts.row !== undefined ? ` on row ${opts.row}` : ""}${opts.gone ? " to leave the screen" : ""}`;
    return this.until(
      what,
      (s) => {
        const found = findAll(s, text, opts.row);
        if (opts.gone) return found.length === 0 ? { row: -1, col: -1, text: "" } : undefined;
        if (found.length === 0) return undefined;
        const twice = ambiguity(found, shown, opts.strict ?? this.strict);
        if (twice) this.giveUp(twice, s, new Set(found.map((m) => m.row)));
        return found.length > 1 ? { ...found[0]!, also: found.slice(1) } : found[0];
      },
      { timeout: opts.timeout, highlight: rows, scrollback: opts.scrollback },
    );
  }

  /** Waits until the program has been quiet (no output, no screen change) for `ms`. */
  waitForIdle(ms = 200, opts: { timeout?: number } = {}): Promise<void> {
    return this.op(async () => {
      const timeout = opts.timeout ?? Math.max(this.timeout, ms * 2);
      const r = await this.client.call("session.wait", { session: this.session, settle_ms: ms, timeout_ms: timeout });
      this.outcome(r, `${ms} ms of quiet`, timeout, true);
    });
  }

  /** Waits for the screen to change from what it shows now; gives the new screen. */
  waitForChange(opts: { timeout?: number } = {}): Promise<Screen> {
    return this.op(async () => {
      const timeout = opts.timeout ?? this.timeout;
      const before = await this.client.call("session.screen", { session: this.session });
      const r = await this.client.call("session.wait", { session: this.session, changed_from: before.hash, timeout_ms: timeout });
      this.outcome(r, "a change of the screen", timeout, false);
      return toScreen(r.screen);
    });
  }

  /** Waits for the program to end; gives its exit code, or the signal that ended it. */
  waitForExit(opts: { timeout?: number } = {}): Promise<{ code: number | null; signal: string | null }> {
    return this.op(async () => {
      const timeout = opts.timeout ?? this.timeout;
      const r = await this.client.call("session.wait", { session: this.session, exit: true, timeout_ms: timeout });
      this.outcome(r, "the program to exit", timeout, true);
      return { code: r.signal ? null : (r.exit_code ?? null), signal: r.signal ?? null };
    });
  }

  /** Waits for the end however long it takes (the test's own timeout bounds it). */
  exited(): Promise<{ code: number | null; signal: string | null }> {
    return this.waitForExit({ timeout: 24 * 3600 * 1000 });
  }

  // Other

  resize(rows: number, cols: number): Promise<void> {
    return this.op(async () => void (await this.client.call("session.resize", { session: this.session, rows, cols })));
  }

  /** Sends a signal (`"INT"`, `"SIGTERM"`, 9 …) to the program. */
  signal(name: string | number): Promise<void> {
    return this.op(async () => void (await this.client.call("session.signal", { session: this.session, signal: name })));
  }

  /**
   * Stops the program and forgets the session; writes the artifacts first if the test failed.
   * Called by `await using`: where the outcome is told after the test's scope (a wrapped test,
   * vitest), the test's end does it then, so a test that throws its own error keeps its artifacts.
   */
  close(): Promise<void> {
    if (this.run?.deferred && !this.run.finished) return Promise.resolve();
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.run?.untrack(this);
    try {
      const keep = this.trace === "on" || (this.trace === "retain-on-failure" && this.run?.failed);
      if (this.run && keep) await writeArtifacts(this.client, this.session, this.label, this.run, this.timedOut);
      else if (this.run && this.trace !== "off") clearArtifacts(this.run);
    } finally {
      await this.client.call("session.remove", { session: this.session, force: true }).catch(() => {});
      this.onClose?.();
    }
  }

  /** @internal The test ended with this terminal still open: a timeout abandons the test mid-call. */
  async finish(run: TestRun): Promise<void> {
    if (this.pending > 0) {
      run.abandoned("the test ended (timed out) while a call was still waiting");
      this.closedBy = "the test ended (timed out) and closed its terminal";
    }
    await this.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
