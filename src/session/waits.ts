// session.wait: resolves on the first of the asked conditions, or on the session's end, or on
// the timeout. The waits on one session are checked once per screen update against the one
// mirrored screen (screen-view.ts), in groups of identical waits: a group costs one check however
// many callers wait in it, a text or regex that was not there is looked for only in the rows that
// are new, and a pending wait costs nothing while nothing happens.
//
// The parts, each in its file: a caller's wait (waiter.ts) joins a group of identical ones
// (wait-group.ts), checked against a frame of the screen (frame.ts) with shared regexes
// (regex-cache.ts), maybe from a baseline (baseline.ts); answers go out in turns (answer-pacer.ts).
import { TermdError } from "../terminal/errors.ts";
import type { ScreenSnapshot, WaitInput, WaitResult } from "../protocol/schemas.ts";
import type { AnswerPacer } from "./answer-pacer.ts";
import type { ProgramStream } from "./stream.ts";
import { NeedleIndex } from "./needle-index.ts";
import type { ShellCommands } from "./shell-commands.ts";
import { type Baseline, baselineOf } from "./baseline.ts";
import { type Frame, frameOf } from "./frame.ts";
import { sharedRegex } from "./regex-cache.ts";
import { groupKey, WaitGroup } from "./wait-group.ts";
import { Waiter, type WaiterOwner } from "./waiter.ts";

/** Text-only groups up to this many are checked on each update without the index. */
const FEW_TEXTS = 16;

/**
 * The pending waits of one session, in groups of identical ones: a screen update costs one check
 * per group, however many callers wait in it, so one client's pile of the same wait costs what one
 * does. A caller's abort reaches its waits through one listener per caller, not one per wait.
 */
export class Waits implements WaiterOwner {
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

  /** `answers`: the daemon's, which gives the answers of every session's waits out in turns. */
  constructor(
    readonly s: ProgramStream,
    private readonly commands: ShellCommands,
    readonly answers: AnswerPacer,
  ) {
    this.off = s.stream.on((e) => {
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
      this.shot = this.s.stream.textSnapshot();
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
    const startOffset = s.stream.output.end;
    const commandSince = p.since ?? s.stream.inputOffset;
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
