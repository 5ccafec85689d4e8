// session.wait: resolves on the first of the asked conditions, or on the session's end, or on
// the timeout. The waits on one session are checked once per screen update against the one
// mirrored screen (screen-view.ts), in groups of identical waits: a group costs one check however
// many callers wait in it, a text or regex that was not there is looked for only in the rows that
// are new, and a pending wait costs nothing while nothing happens.
import { TermdError } from "../terminal/errors.ts";
import type { ScreenSnapshot, WaitInput, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import { findIn, type LinePattern, type Match } from "../terminal/find.ts";
import type { ScreenState } from "../terminal/screen.ts";
import type { RE2JS } from "re2js";
import type { ProgramStream } from "./stream.ts";
import { NeedleIndex } from "./needle-index.ts";
import type { CommandRun, ShellCommands } from "./shell-commands.ts";

/**
 * Patterns come from clients and run against text programs control, on the daemon's one thread:
 * a backtracking engine (JavaScript's RegExp) can take minutes on `(a+)+$`, so they run on RE2's
 * linear-time engine instead (RE2 syntax: no backreferences or lookaround).
 */
export function compileRegex(src: string): RegexPattern {
  let re: RE2JS;
  try {
    // Required on the first regex, not imported: its Unicode tables are ~2 MB of the daemon's
    // memory, and most daemons never see a regex wait.
    re = (require("re2js") as typeof import("re2js")).RE2JS.compile(src);
  } catch (err) {
    // RE2 keeps matching linear by having no lookaround and no backreferences: say so plainly.
    const missing = /\(\?<?[=!]/.test(src)
      ? "; RE2 has no lookaround ((?=, (?!, (?<=, (?<!)"
      : /\\[1-9]/.test(src)
        ? "; RE2 has no backreferences (\\1)"
        : "";
    throw new TermdError("BAD_ARGUMENT", `invalid regex (RE2 syntax): ${(err as Error).message}${missing}`);
  }
  return {
    match(line) {
      const m = re.matcher(line);
      return m.find() ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
    matchFrom(line, from) {
      const m = re.matcher(line);
      return m.find(from) ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
  };
}

/** A pattern that can also search from a column, without the anchors moving there. */
interface RegexPattern extends LinePattern {
  matchFrom(line: string, from: number): { col: number; text: string } | null;
}

/** No match (shared: never changed). */
const NONE: Match[] = [];

/**
 * One state of the screen, as every wait checked against it shares it: the rows joined once for a
 * quick "is it there at all", each needle's matches found once, and the rows that are new since
 * the state before.
 */
class Frame {
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
function frameOf(s: ProgramStream): Frame {
  const state = s.view.state;
  let f = frames.get(state);
  if (!f) frames.set(state, (f = new Frame(state)));
  return f;
}

/** Compiled patterns by source: identical waits share one (bounded: a client's distinct patterns are not kept). */
const compiled = new Map<string, RegexPattern>();
const MAX_COMPILED = 256;

function sharedRegex(src: string): RegexPattern {
  let re = compiled.get(src);
  if (!re) {
    re = compileRegex(src);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(src, re);
  }
  return re;
}

/**
 * A wait tied to an input (session.input's `wait`) starts from the screen before the input: its
 * text and regex count only where they did not already match (the same text at the same place in
 * the buffer, scrollback included), so a prompt already on the screen does not answer a wait for
 * the next one; `changed` means changed from that screen.
 */
export interface Baseline {
  hash: string;
  /** `bufferRow:col:text` of every match on the screen before the input. */
  seen: Set<string>;
}

function matchKey(f: Frame, m: Match): string {
  return `${f.top + m.row}:${m.col}:${m.text}`;
}

/** Every match of `needle` on the screen (in `rows` only, if given), several per line included. */
function findAll(lines: readonly string[], needle: string | RegexPattern, rows?: readonly number[]): Match[] {
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

/** command_done: how long its result waits for the screen to show the command's output, at most. */
const SCREEN_SYNC_MS = 2000;

/** What a group of identical waits found: every member is answered with it. */
interface Answer {
  outcome: WaitOutcome;
  match?: Match;
  command?: CommandRun;
}

/** A wait's answer with the screen it saw, and how the program ended if it has. */
function resultOf(s: ProgramStream, outcome: WaitOutcome, screen: ScreenSnapshot): WaitResult {
  const result: WaitResult = { outcome, screen };
  if (!s.running) {
    result.exit_code = s.exitCode;
    result.signal = s.signal;
  }
  return result;
}

/**
 * The waits of one session that ask the same thing (the same conditions, measured from the same
 * place): they are checked once for all of them, and answered together. What is a member's own is
 * only its timeout and its caller.
 */
class WaitGroup {
  readonly members = new Set<Waiter>();
  private readonly regex: RegexPattern | undefined;
  /** The names the frame knows the text's and the regex's scans by. */
  private readonly textKey: string;
  private readonly regexKey: string;
  private settleTimer: Timer | undefined;
  /** command_done: a finished command waits for the screen to parse it; this one sync is pending. */
  private syncing = false;
  private synced = false;
  /** The screen this group's text and regex were last looked for on, and not found. */
  private seen: Frame | null = null;
  /**
   * Asks nothing but a text (and the end): while the session runs, only a screen whose new rows
   * hold its text can answer it, so it is filed in the session's text index and checked only then.
   */
  readonly indexed: boolean;

  constructor(
    private readonly owner: Waits,
    readonly key: string,
    readonly p: WaitInput,
    private readonly commands: ShellCommands,
    /** activity: the output offset its output must pass. */
    private readonly startOffset: number,
    /** command_done, prompt: the output offset a command must finish after. */
    private readonly commandSince: number,
    private readonly baseline: Baseline | undefined,
  ) {
    this.regex = p.regex !== undefined ? sharedRegex(p.regex) : undefined;
    this.textKey = `t${p.text}`;
    this.regexKey = `r${p.regex}`;
    this.indexed =
      p.text !== undefined &&
      !baseline &&
      [p.regex, p.gone, p.changed_from, p.settle_ms].every((c) => c === undefined) &&
      !p.activity &&
      !p.command_done &&
      !p.prompt;
  }

  /** Waits for activity, and for a command's end (its mark is in the output), care about every output chunk; the rest wait for the screen. */
  get onOutput(): boolean {
    return this.p.activity === true || this.p.command_done === true || this.p.prompt === true;
  }

  /**
   * `since`: a screen the text and regex were not on, so that only its new rows need looking at
   * (by default the one they were last missing from; matches counted against a baseline are
   * placed, so those look at the whole screen).
   */
  check(f: Frame, since: Frame | null = this.baseline ? null : this.seen): void {
    if (this.members.size === 0) return;
    const { p, owner } = this;
    const s = owner.s;
    if (p.text !== undefined) {
      const key = this.textKey;
      const m = this.firstNew(since ? f.newMatches(since, key, p.text) : f.matches(key, p.text), f);
      if (m) return this.answer({ outcome: "matched", match: m });
    }
    if (this.regex) {
      const key = this.regexKey;
      const m = this.firstNew(since ? f.newMatches(since, key, this.regex) : f.matches(key, this.regex), f);
      if (m) return this.answer({ outcome: "matched", match: m });
    }
    this.seen = f;
    if (p.gone !== undefined && (!f.joined.includes(p.gone) || !findIn(f.lines, p.gone))) return this.answer({ outcome: "matched" });
    if (p.changed_from !== undefined && f.hash !== p.changed_from) return this.answer({ outcome: "changed" });
    if (p.activity && s.output.end > this.startOffset) return this.answer({ outcome: "activity" });
    if (p.command_done) {
      // Once the screen shows it too: the result's screen then has the command's output.
      const c = this.commands.doneAfter(this.commandSince);
      if (c && (s.view.parsed >= c.to || !s.running || this.synced)) return this.answer({ outcome: "command_done", command: c });
      // Output that changes nothing on the screen sends no screen event: ask to hear when it is
      // parsed (or after SCREEN_SYNC_MS, when the answer goes with the screen there is).
      if (c) this.syncScreen();
    }
    if (p.prompt) {
      const end = this.commands.promptAfter(this.commandSince);
      if (end !== null && (s.view.parsed >= end || this.synced)) return this.answer({ outcome: "prompt" });
      if (end !== null) this.syncScreen();
    }
    if (p.settle_ms !== undefined) {
      // Inside ?2026h … ?2026l the app is between frames: what the screen shows is half drawn.
      // No timer then: the ?2026l that ends the frame is output, and output evaluates again.
      const midFrame = s.modes.synchronized_output;
      const quietFor = performance.now() - s.lastActivity;
      if (quietFor >= p.settle_ms && s.screenCurrent && s.running && !midFrame) return this.answer({ outcome: "settled" });
      clearTimeout(this.settleTimer);
      if (!midFrame) this.settleTimer = setTimeout(() => this.check(frameOf(s)), Math.max(1, p.settle_ms - quietFor));
    }
    if (!s.running) return this.answer({ outcome: "exited" });
  }

  /** Answers every member with `a`, and the one screen and exit status they all see. */
  private answer(a: Answer): void {
    const result = resultOf(this.owner.s, a.outcome, this.owner.snapshot());
    if (a.match) result.match = a.match;
    if (a.command) result.command = this.commands.describe(a.command);
    answerInTurns(
      [...this.members].map((w) => w.settle()),
      result,
    );
  }

  /** Has the screen parse what is in the output now (or SCREEN_SYNC_MS pass), then checks again. */
  private syncScreen(): void {
    if (this.syncing) return;
    this.syncing = true;
    void this.owner.s.view.sync(SCREEN_SYNC_MS).then(() => {
      this.synced = true;
      this.check(frameOf(this.owner.s));
    });
  }

  /** The first of `all` that was not on the screen before the input (the baseline). */
  private firstNew(all: Match[], f: Frame): Match | null {
    const seen = this.baseline?.seen;
    return (seen ? all.find((m) => !seen.has(matchKey(f, m))) : all[0]) ?? null;
  }

  /** The last member left: nothing more to check or time. */
  dispose(): void {
    clearTimeout(this.settleTimer);
  }
}

/** One caller's wait: its timeout, its caller's abort, its answer; what it waits for is its group's. */
class Waiter {
  private timeout: Timer | undefined;
  /** Checked only once armed: a wait tied to an input counts from when the input is all written. */
  private armed = false;
  /** The group it is checked in, once armed. */
  group: WaitGroup | null = null;
  readonly result: Promise<WaitResult>;
  private resolve!: (r: WaitResult) => void;
  done = false;

  constructor(
    private readonly owner: Waits,
    readonly p: WaitInput,
    readonly abort: AbortSignal,
    /** The group this wait joins when armed. */
    readonly key: string,
    readonly makeGroup: () => WaitGroup,
  ) {
    this.result = new Promise((resolve) => (this.resolve = resolve));
  }

  /** Starts the clock and checks the screen as it is now. */
  arm(): void {
    if (this.done || this.armed) return;
    this.armed = true;
    this.timeout = setTimeout(() => this.timedOut(), this.p.timeout_ms);
    this.owner.join(this);
  }

  /** Its timeout, its caller's abort or cancel: answered alone, with the screen as it is. */
  timedOut(): void {
    if (this.done) return;
    const s = this.owner.s;
    this.finish(resultOf(s, "timeout", s.textSnapshot()));
  }

  finish(result: WaitResult): void {
    if (!this.done) this.settle()(result);
  }

  /** Done: no timeout, out of its group; answered by calling what this returns. */
  settle(): (result: WaitResult) => void {
    this.done = true;
    clearTimeout(this.timeout);
    this.owner.leave(this);
    return this.resolve;
  }
}

/**
 * Callers answered per turn of the event loop, over every session. Each answer becomes a reply
 * written to a socket before the turn ends (about 50 µs each), so thousands answered at once (a
 * group, or a client's distinct waits on a program that exits) would hold the thread for a quarter
 * of a second while another session's key echo waited.
 */
const ANSWERS_PER_TURN = 64;

/** Answers to give, in order: a caller, and its group's result (shared: each caller gets a copy). */
const answers: { caller: (r: WaitResult) => void; result: WaitResult }[] = [];
let answered = 0;
/** Answers given since the turn began; the next turn starts over. */
let givenThisTurn = 0;
let nextTurn = false;

/** Answers each of `callers` with `result`: now while this turn has room, the rest in the next turns. */
function answerInTurns(callers: ((r: WaitResult) => void)[], result: WaitResult): void {
  for (const caller of callers) answers.push({ caller, result });
  drain();
}

function drain(): void {
  for (; answered < answers.length && givenThisTurn < ANSWERS_PER_TURN; answered++, givenThisTurn++) {
    const { caller, result } = answers[answered]!;
    caller({ ...result });
  }
  if (answered === answers.length) {
    answers.length = 0;
    answered = 0;
  }
  if (nextTurn) return;
  nextTurn = true;
  setImmediate(() => {
    nextTurn = false;
    givenThisTurn = 0;
    if (answers.length > 0) drain();
  });
}

/** The screen now (or frame `f`), as the baseline of a wait tied to an input that is about to be written. */
export function baselineOf(s: ProgramStream, p: Pick<WaitInput, "text" | "regex">, f = frameOf(s)): Baseline {
  const seen = new Set<string>();
  for (const needle of [p.text, p.regex !== undefined ? sharedRegex(p.regex) : undefined]) {
    if (needle !== undefined) for (const m of findAll(f.lines, needle)) seen.add(matchKey(f, m));
  }
  return { hash: f.hash, seen };
}

/**
 * What makes two waits the same: their conditions, and where they count from. Not their timeout.
 * A baseline counts by what it holds, so identical waits made against one screen share a group.
 */
function groupKey(p: WaitInput, startOffset: number, commandSince: number, baseline: Baseline | undefined): string {
  const commands = p.command_done || p.prompt;
  return JSON.stringify([
    p.text ?? null,
    p.regex ?? null,
    p.gone ?? null,
    p.changed_from ?? null,
    p.activity ? startOffset : null,
    p.command_done ?? false,
    p.prompt ?? false,
    commands ? commandSince : null,
    p.settle_ms ?? null,
    baseline ? [...baseline.seen].join("\n") : null,
  ]);
}

/** Text-only groups up to this many are checked on each update without the index. */
const FEW_TEXTS = 16;

/**
 * The pending waits of one session, in groups of identical ones: a screen update costs one check
 * per group, however many callers wait in it, so one client's pile of the same wait costs what one
 * does. A caller's abort reaches its waits through one listener per caller, not one per wait.
 */
export class Waits {
  /** Every wait not answered yet, armed or not. */
  private readonly all = new Set<Waiter>();
  private readonly groups = new Map<string, WaitGroup>();
  private readonly onOutput = new Set<WaitGroup>();
  /** Groups checked on every screen update; the others are in `texts`. */
  private readonly unindexed = new Set<WaitGroup>();
  /** Groups that ask only for a text, by their text; none of them is on `last`. */
  private readonly texts = new NeedleIndex<WaitGroup>();
  private readonly indexed = new Set<WaitGroup>();
  /** The screen of the last update: no indexed group's text was on it. */
  private last: Frame | null = null;
  /** Each caller's pending waits here, and the one listener that ends them when it goes away. */
  private readonly callers = new Map<AbortSignal, { waiters: Set<Waiter>; listener: () => void }>();
  private readonly off: () => void;
  /** The screen as it was just before the last input was written (a wait's `fresh: "input"`). */
  private inputFrame: Frame | null = null;
  private shot: ScreenSnapshot | null = null;

  constructor(
    readonly s: ProgramStream,
    private readonly commands: ShellCommands,
  ) {
    this.off = s.on((e) => {
      if (e.type === "screen") this.update();
      else if (e.type === "exit") for (const g of [...this.groups.values()]) g.check(frameOf(s));
      else if (e.type === "output") for (const g of [...this.onOutput]) g.check(frameOf(s));
    });
  }

  get size(): number {
    return this.all.size;
  }

  /**
   * The screen as answers give it, taken once for all the groups answered in one pass (a client's
   * thousands of distinct waits on a program that exits), until the pass is over.
   */
  snapshot(): ScreenSnapshot {
    if (!this.shot) {
      this.shot = this.s.textSnapshot();
      queueMicrotask(() => (this.shot = null));
    }
    return this.shot;
  }

  /**
   * The screen changed: every group not indexed is checked, and of the indexed ones only those
   * whose text is in the rows that are new (the others are still not on the screen).
   */
  private update(): void {
    const f = frameOf(this.s);
    const prev = this.last;
    this.last = f;
    for (const g of [...this.unindexed]) g.check(f);
    if (this.indexed.size === 0 || prev === null || prev === f) return;
    // A few are checked as they are: looking them up would cost more than that.
    const some = this.indexed.size <= FEW_TEXTS ? [...this.indexed] : this.texts.candidates(f.newSince(prev).text);
    for (const g of some) g.check(f, prev);
  }

  /** Called before any input is written: what is on the screen then is not new to a `fresh: "input"` wait. */
  beforeInput(): void {
    this.inputFrame = frameOf(this.s);
  }

  wait(p: WaitInput, abort: AbortSignal): Promise<WaitResult> {
    const fresh =
      p.fresh === undefined ? undefined : baselineOf(this.s, p, p.fresh === "input" ? (this.inputFrame ?? undefined) : undefined);
    const w = this.register(p, abort, fresh);
    w.arm();
    return w.result;
  }

  /**
   * A wait measured from `baseline` and from the output offset now, but armed (its timeout
   * started, its conditions checked) by `start()`: the caller writes its input in between (a safe
   * submit takes a while), so nothing the program answers can slip past the wait, and nothing
   * partway through the input (the echo before Enter) answers it.
   */
  prepare(p: WaitInput, abort: AbortSignal, baseline: Baseline): { result: Promise<WaitResult>; start(): void; cancel(): void } {
    const w = this.register(p, abort, baseline);
    return {
      result: w.result,
      start: () => w.arm(),
      cancel: () => w.timedOut(),
    };
  }

  private register(p: WaitInput, abort: AbortSignal, baseline?: Baseline): Waiter {
    const s = this.s;
    if ((p.command_done || p.prompt) && s.shellIntegration === null && !this.commands.seen) {
      throw new TermdError(
        "BAD_ARGUMENT",
        `session ${s.name} reports no commands: ${p.prompt ? "prompt" : "command_done"} needs a bash, zsh or fish session started with shell integration (the default), or a shell that sends OSC 133 marks itself`,
        { session: s.name },
      );
    }
    if (p.regex !== undefined) sharedRegex(p.regex); // a bad pattern is refused now, not when armed
    const startOffset = s.output.end;
    const commandSince = p.since ?? s.inputOffset;
    const key = groupKey(p, startOffset, commandSince, baseline);
    const w = new Waiter(this, p, abort, key, () => new WaitGroup(this, key, p, this.commands, startOffset, commandSince, baseline));
    // A caller already gone (a client that hung up before this ran) would never hear "abort".
    if (abort.aborted) {
      w.timedOut();
      return w;
    }
    this.all.add(w);
    let caller = this.callers.get(abort);
    if (!caller) {
      const waiters = new Set<Waiter>();
      const listener = () => {
        for (const x of [...waiters]) x.timedOut();
      };
      caller = { waiters, listener };
      this.callers.set(abort, caller);
      abort.addEventListener("abort", listener);
    }
    caller.waiters.add(w);
    return w;
  }

  /** `w` is armed: into its group, which checks the screen as it is now. */
  join(w: Waiter): void {
    const f = frameOf(this.s);
    // The index holds groups whose text is not on `last`: brought up to the screen now first.
    if (this.indexed.size > 0 && this.last !== f) this.update();
    this.last = f;
    let g = this.groups.get(w.key);
    const had = g !== undefined;
    if (!g) {
      g = w.makeGroup();
      this.groups.set(w.key, g);
      if (g.onOutput) this.onOutput.add(g);
      if (g.indexed) {
        this.texts.add(g.p.text!, g);
        this.indexed.add(g);
      } else this.unindexed.add(g);
    }
    g.members.add(w);
    w.group = g;
    // An indexed group that was here already is known not to be on this screen.
    g.check(f, had && g.indexed ? f : undefined);
  }

  /** `w` was answered: out of its group (the group goes with its last member) and its caller's set. */
  leave(w: Waiter): void {
    this.all.delete(w);
    const g = w.group;
    if (g) {
      g.members.delete(w);
      if (g.members.size === 0) {
        g.dispose();
        this.groups.delete(g.key);
        this.onOutput.delete(g);
        this.unindexed.delete(g);
        if (g.indexed) {
          this.texts.delete(g.p.text!, g);
          this.indexed.delete(g);
        }
      }
    }
    const caller = this.callers.get(w.abort);
    if (caller) {
      caller.waiters.delete(w);
      if (caller.waiters.size === 0) {
        w.abort.removeEventListener("abort", caller.listener);
        this.callers.delete(w.abort);
      }
    }
  }

  dispose(): void {
    this.off();
  }
}
