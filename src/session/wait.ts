// session.wait: resolves on the first of the asked conditions, or on the session's end, or on
// the timeout. All the waits on one session are checked together, once per screen update, against
// the one mirrored screen (screen-view.ts): thousands of waiters cost about what one does, and a
// pending wait costs nothing while nothing happens.
import { TermdError } from "../terminal/errors.ts";
import type { WaitInput, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import { findIn, type LinePattern, type Match } from "../terminal/find.ts";
import type { RE2JS } from "re2js";
import type { ProgramStream } from "./stream.ts";
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

/** What every waiter of one check shares: the screen's rows, joined once for a quick "is it there at all". */
interface Frame {
  lines: string[];
  joined: string;
  hash: string;
  /** Lines above row 0 (scrollback): a row's place in the whole buffer is `top + row`. */
  top: number;
  /**
   * Each needle's matches, found once per check: waits for the same text or regex share one scan
   * of the screen, so a client's pile of identical waits costs what one does.
   */
  matches: Map<string, Match[]>;
}

/** Every match of a wait's text ("t" + text) or regex ("r" + source) on `f`, from the check's shared scan. */
function matchesOf(f: Frame, key: string, needle: string | RegexPattern): Match[] {
  let found = f.matches.get(key);
  if (!found) {
    found = typeof needle === "string" && !f.joined.includes(needle) ? [] : findAll(f.lines, needle);
    f.matches.set(key, found);
  }
  return found;
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

/** Every match of `needle` on the screen, several per line included. */
function findAll(lines: readonly string[], needle: string | RegexPattern): Match[] {
  const out: Match[] = [];
  lines.forEach((line, row) => {
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
  });
  return out;
}

/** command_done: how long its result waits for the screen to show the command's output, at most. */
const SCREEN_SYNC_MS = 2000;

class Waiter {
  private settleTimer: Timer | undefined;
  private timeout: Timer | undefined;
  /** Checked only once armed: a wait tied to an input counts from when the input is all written. */
  private armed = false;
  private readonly regex: RegexPattern | undefined;
  private readonly startOffset: number;
  /** command_done: a finished command waits for the screen to parse it; this one sync is pending. */
  private syncing = false;
  private synced = false;
  /** command_done: the output offset a command must finish after. */
  private readonly commandSince: number;
  readonly result: Promise<WaitResult>;
  private resolve!: (r: WaitResult) => void;
  done = false;

  constructor(
    private readonly s: ProgramStream,
    private readonly commands: ShellCommands,
    private readonly p: WaitInput,
    private readonly abort: AbortSignal,
    private readonly forget: (w: Waiter) => void,
    private readonly baseline?: Baseline,
  ) {
    this.regex = p.regex !== undefined ? sharedRegex(p.regex) : undefined;
    this.startOffset = s.output.end;
    this.commandSince = p.since ?? s.inputOffset;
    if ((p.command_done || p.prompt) && s.shellIntegration === null && !commands.seen) {
      throw new TermdError(
        "BAD_ARGUMENT",
        `session ${s.name} reports no commands: ${p.prompt ? "prompt" : "command_done"} needs a bash, zsh or fish session started with shell integration (the default), or a shell that sends OSC 133 marks itself`,
        { session: s.name },
      );
    }
    this.result = new Promise((resolve) => (this.resolve = resolve));
    abort.addEventListener("abort", this.onAbort);
  }

  /** Starts the clock and checks the screen as it is now. */
  arm(): void {
    if (this.done || this.armed) return;
    this.armed = true;
    this.timeout = setTimeout(() => this.finish("timeout"), this.p.timeout_ms);
    this.check(frameOf(this.s));
  }

  /** Waits for activity, and for a command's end (its mark is in the output), care about every output chunk; the rest wait for the screen. */
  get onOutput(): boolean {
    return this.p.activity === true || this.p.command_done === true || this.p.prompt === true;
  }

  private readonly onAbort = () => this.finish("timeout");

  finish(outcome: WaitOutcome, match?: Match, command?: CommandRun): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timeout);
    clearTimeout(this.settleTimer);
    this.abort.removeEventListener("abort", this.onAbort);
    this.forget(this);
    const s = this.s;
    const result: WaitResult = { outcome, screen: s.textSnapshot() };
    if (match) result.match = match;
    if (command) result.command = this.commands.describe(command);
    if (!s.running) {
      result.exit_code = s.exitCode;
      result.signal = s.signal;
    }
    this.resolve(result);
  }

  check(f: Frame): void {
    if (this.done || !this.armed) return;
    const { p, s } = this;
    if (p.text !== undefined) {
      const m = this.firstNew(matchesOf(f, `t${p.text}`, p.text), f);
      if (m) return this.finish("matched", m);
    }
    if (this.regex) {
      const m = this.firstNew(matchesOf(f, `r${p.regex}`, this.regex), f);
      if (m) return this.finish("matched", m);
    }
    if (p.gone !== undefined && (!f.joined.includes(p.gone) || !findIn(f.lines, p.gone))) return this.finish("matched");
    if (p.changed_from !== undefined && f.hash !== p.changed_from) return this.finish("changed");
    if (p.activity && s.output.end > this.startOffset) return this.finish("activity");
    if (p.command_done) {
      // Once the screen shows it too: the result's screen then has the command's output.
      const c = this.commands.doneAfter(this.commandSince);
      if (c && (s.view.parsed >= c.to || !s.running || this.synced)) return this.finish("command_done", undefined, c);
      // Output that changes nothing on the screen sends no screen event: ask to hear when it is
      // parsed (or after SCREEN_SYNC_MS, when the answer goes with the screen there is).
      if (c) this.syncScreen();
    }
    if (p.prompt) {
      const end = this.commands.promptAfter(this.commandSince);
      if (end !== null && (s.view.parsed >= end || this.synced)) return this.finish("prompt");
      if (end !== null) this.syncScreen();
    }
    if (p.settle_ms !== undefined) {
      // Inside ?2026h … ?2026l the app is between frames: what the screen shows is half drawn.
      // No timer then: the ?2026l that ends the frame is output, and output evaluates again.
      const midFrame = s.modes.synchronized_output;
      const quietFor = performance.now() - s.lastActivity;
      if (quietFor >= p.settle_ms && s.screenCurrent && s.running && !midFrame) return this.finish("settled");
      clearTimeout(this.settleTimer);
      if (!midFrame) this.settleTimer = setTimeout(() => this.check(frameOf(s)), Math.max(1, p.settle_ms - quietFor));
    }
    if (!s.running) return this.finish("exited");
  }

  /** Has the screen parse what is in the output now (or SCREEN_SYNC_MS pass), then checks again. */
  private syncScreen(): void {
    if (this.syncing) return;
    this.syncing = true;
    void this.s.view.sync(SCREEN_SYNC_MS).then(() => {
      this.synced = true;
      this.check(frameOf(this.s));
    });
  }

  /** The first of `all` that was not on the screen before the input (the baseline). */
  private firstNew(all: Match[], f: Frame): Match | null {
    const seen = this.baseline?.seen;
    return (seen ? all.find((m) => !seen.has(matchKey(f, m))) : all[0]) ?? null;
  }
}

function frameOf(s: ProgramStream): Frame {
  const { lines, hash, scrollback_total } = s.view.state;
  return { lines, hash, top: scrollback_total, joined: lines.join("\n"), matches: new Map() };
}

/** The screen now (or frame `f`), as the baseline of a wait tied to an input that is about to be written. */
export function baselineOf(s: ProgramStream, p: Pick<WaitInput, "text" | "regex">, f = frameOf(s)): Baseline {
  const seen = new Set<string>();
  for (const needle of [p.text, p.regex !== undefined ? sharedRegex(p.regex) : undefined]) {
    if (needle !== undefined) for (const m of findAll(f.lines, needle)) seen.add(matchKey(f, m));
  }
  return { hash: f.hash, seen };
}

/** The pending waits of one session. */
export class Waits {
  private readonly all = new Set<Waiter>();
  private readonly onOutput = new Set<Waiter>();
  private readonly off: () => void;
  /** The screen as it was just before the last input was written (a wait's `fresh: "input"`). */
  private inputFrame: Frame | null = null;

  constructor(
    private readonly s: ProgramStream,
    private readonly commands: ShellCommands,
  ) {
    this.off = s.on((e) => {
      if (e.type === "screen" || e.type === "exit") this.checkAll(this.all);
      else if (e.type === "output" && this.onOutput.size > 0) this.checkAll(this.onOutput);
    });
  }

  get size(): number {
    return this.all.size;
  }

  private checkAll(set: Set<Waiter>): void {
    if (set.size === 0) return;
    const frame = frameOf(this.s);
    for (const w of [...set]) w.check(frame);
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
      cancel: () => w.finish("timeout"),
    };
  }

  private register(p: WaitInput, abort: AbortSignal, baseline?: Baseline): Waiter {
    const w = new Waiter(
      this.s,
      this.commands,
      p,
      abort,
      (done) => {
        this.all.delete(done);
        this.onOutput.delete(done);
      },
      baseline,
    );
    // A caller already gone (a client that hung up before this ran) would never hear "abort".
    if (abort.aborted) w.finish("timeout");
    else {
      this.all.add(w);
      if (w.onOutput) this.onOutput.add(w);
    }
    return w;
  }

  dispose(): void {
    this.off();
  }
}
