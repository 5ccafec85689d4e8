// session.wait: resolves on the first of the asked conditions, or on the session's end, or on
// the timeout. All the waits on one session are checked together, once per screen update, against
// the one mirrored screen (screen-view.ts): thousands of waiters cost about what one does, and a
// pending wait costs nothing while nothing happens.
import { TermdError } from "../terminal/errors.ts";
import type { WaitInput, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import { findIn, type LinePattern, type Match } from "../terminal/screen.ts";
import { RE2JS } from "re2js";
import type { Session } from "./session.ts";
import type { CommandRun } from "./shell-commands.ts";

/**
 * Patterns come from clients and run against text programs control, on the daemon's one thread:
 * a backtracking engine (JavaScript's RegExp) can take minutes on `(a+)+$`, so they run on RE2's
 * linear-time engine instead (RE2 syntax: no backreferences or lookaround).
 */
export function compileRegex(src: string): LinePattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(src);
  } catch (err) {
    // RE2 keeps matching linear by having no lookaround and no backreferences: say so plainly.
    const missing = /\(\?<?[=!]/.test(src) ? "; RE2 has no lookaround ((?=, (?!, (?<=, (?<!)" : /\\[1-9]/.test(src) ? "; RE2 has no backreferences (\\1)" : "";
    throw new TermdError("BAD_ARGUMENT", `invalid regex (RE2 syntax): ${(err as Error).message}${missing}`);
  }
  return {
    match(line) {
      const m = re.matcher(line);
      return m.find() ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
  };
}

/** What every waiter of one check shares: the screen's rows, joined once for a quick "is it there at all". */
interface Frame {
  lines: string[];
  joined: string;
  hash: string;
}

class Waiter {
  private settleTimer: Timer | undefined;
  private readonly timeout: Timer;
  private readonly regex: LinePattern | undefined;
  private readonly startOffset: number;
  /** command_done: the output offset a command must finish after. */
  private readonly commandSince: number;
  readonly result: Promise<WaitResult>;
  private resolve!: (r: WaitResult) => void;
  done = false;

  constructor(
    private readonly s: Session,
    private readonly p: WaitInput,
    private readonly abort: AbortSignal,
    private readonly forget: (w: Waiter) => void,
  ) {
    this.regex = p.regex !== undefined ? compileRegex(p.regex) : undefined;
    this.startOffset = s.output.end;
    this.commandSince = p.since ?? s.inputOffset;
    if (p.command_done && s.shellIntegration === null && !s.commands.seen) {
      throw new TermdError(
        "BAD_ARGUMENT",
        `session ${s.name} reports no commands: command_done needs a bash, zsh or fish session started with shell integration (the default), or a shell that sends OSC 133 marks itself`,
        { session: s.name },
      );
    }
    this.result = new Promise((resolve) => (this.resolve = resolve));
    this.timeout = setTimeout(() => this.finish("timeout"), p.timeout_ms);
    abort.addEventListener("abort", this.onAbort);
  }

  /** Waits for activity, and for a command's end (its mark is in the output), care about every output chunk; the rest wait for the screen. */
  get onOutput(): boolean {
    return this.p.activity === true || this.p.command_done === true;
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
    if (command) result.command = s.commands.describe(command);
    if (!s.running) {
      result.exit_code = s.exitCode;
      result.signal = s.signal;
    }
    this.resolve(result);
  }

  check(f: Frame): void {
    if (this.done) return;
    const { p, s } = this;
    if (p.text !== undefined && f.joined.includes(p.text)) {
      const m = findIn(f.lines, p.text);
      if (m) return this.finish("matched", m);
    }
    if (this.regex) {
      const m = findIn(f.lines, this.regex);
      if (m) return this.finish("matched", m);
    }
    if (p.gone !== undefined && (!f.joined.includes(p.gone) || !findIn(f.lines, p.gone))) return this.finish("matched");
    if (p.changed_from !== undefined && f.hash !== p.changed_from) return this.finish("changed");
    if (p.activity && s.output.end > this.startOffset) return this.finish("activity");
    if (p.command_done) {
      const c = s.commands.doneAfter(this.commandSince);
      if (c) return this.finish("command_done", undefined, c);
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
}

function frameOf(s: Session): Frame {
  const { lines, hash } = s.view.state;
  return { lines, hash, joined: lines.join("\n") };
}

/** The pending waits of one session. */
export class Waits {
  private readonly all = new Set<Waiter>();
  private readonly onOutput = new Set<Waiter>();
  private readonly off: () => void;

  constructor(private readonly s: Session) {
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

  wait(p: WaitInput, abort: AbortSignal): Promise<WaitResult> {
    const w = new Waiter(this.s, p, abort, (done) => {
      this.all.delete(done);
      this.onOutput.delete(done);
    });
    // A caller already gone (a client that hung up before this ran) would never hear "abort".
    if (abort.aborted) w.finish("timeout");
    else {
      this.all.add(w);
      if (w.onOutput) this.onOutput.add(w);
      w.check(frameOf(this.s));
    }
    return w.result;
  }

  dispose(): void {
    this.off();
  }
}

export function waitFor(s: Session, p: WaitInput, abort: AbortSignal): Promise<WaitResult> {
  return s.waits.wait(p, abort);
}
