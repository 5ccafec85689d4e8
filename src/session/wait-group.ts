// A group of identical waits on one session (waits.ts): checked once against each screen state
// for all its members, and answered together.
import type { ScreenSnapshot, WaitInput, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import { findIn, type Match } from "../terminal/find.ts";
import type { AnswerPacer } from "./answer-pacer.ts";
import type { Baseline } from "./baseline.ts";
import { type Frame, frameOf, matchKey } from "./frame.ts";
import { type RegexPattern, sharedRegex } from "./regex-cache.ts";
import type { CommandRun, ShellCommands } from "./shell-commands.ts";
import type { ProgramStream } from "./stream.ts";
import { resultOf } from "./wait-result.ts";

/** What a group needs of the waits it is one of (Waits): the session, the screen its answers give, and who gives them. */
export interface GroupOwner {
  readonly s: ProgramStream;
  readonly answers: AnswerPacer;
  snapshot(): ScreenSnapshot;
}

/** A member as its group answers it (a Waiter): out of the group, then called with the result. */
export interface GroupMember {
  settle(): (result: WaitResult) => void;
}

/** command_done: how long its result waits for the screen to show the command's output, at most. */
const SCREEN_SYNC_MS = 2000;

/** What a group of identical waits found: every member is answered with it. */
interface Answer {
  outcome: WaitOutcome;
  match?: Match;
  command?: CommandRun;
}

/**
 * The waits of one session that ask the same thing (the same conditions, measured from the same
 * place): they are checked once for all of them, and answered together. What is a member's own is
 * only its timeout and its caller.
 */
export class WaitGroup {
  readonly members = new Set<GroupMember>();
  private readonly regex: RegexPattern | undefined;
  /** The names the frame knows the text's and the regex's scans by. */
  private readonly textKey: string;
  private readonly regexKey: string;
  private settleTimer: Timer | undefined;
  /** prompt: set for the end of the shell's first-prompt time, while it has marked none. */
  private promptTimer: Timer | undefined;
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
    private readonly owner: GroupOwner,
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
    if (p.activity && s.stream.output.end > this.startOffset) return this.answer({ outcome: "activity" });
    if (p.command_done) {
      // Once the screen shows it too: the result's screen then has the command's output.
      const c = this.commands.doneAfter(this.commandSince);
      if (c && (s.stream.view.parsed >= c.to || !s.running || this.synced)) return this.answer({ outcome: "command_done", command: c });
      // Output that changes nothing on the screen sends no screen event: ask to hear when it is
      // parsed (or after SCREEN_SYNC_MS, when the answer goes with the screen there is).
      if (c) this.syncScreen();
    }
    if (p.prompt) {
      const end = this.commands.promptAfter(this.commandSince);
      if (end !== null && (s.stream.view.parsed >= end || this.synced)) return this.answer({ outcome: "prompt" });
      if (end !== null) this.syncScreen();
      // A shell that has marked no prompt in its first-prompt time marks none: none will come.
      const left = this.commands.unmarkedIn();
      if (left === 0 && s.running) return this.answer({ outcome: "timeout" });
      if (left !== null && left > 0 && !this.promptTimer)
        this.promptTimer = setTimeout(() => {
          this.promptTimer = undefined;
          this.check(frameOf(s));
        }, left);
    }
    if (p.settle_ms !== undefined) {
      // Inside ?2026h … ?2026l the app is between frames: what the screen shows is half drawn.
      // No timer then: the ?2026l that ends the frame is output, and output evaluates again.
      const midFrame = s.stream.modes.synchronized_output;
      const quietFor = performance.now() - s.stream.lastActivity;
      if (quietFor >= p.settle_ms && s.stream.screenCurrent && s.running && !midFrame) return this.answer({ outcome: "settled" });
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
    this.owner.answers.answer(
      [...this.members].map((w) => w.settle()),
      result,
    );
  }

  /** Has the screen parse what is in the output now (or SCREEN_SYNC_MS pass), then checks again. */
  private syncScreen(): void {
    if (this.syncing) return;
    this.syncing = true;
    void this.owner.s.stream.view.sync(SCREEN_SYNC_MS).then(() => {
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
    clearTimeout(this.promptTimer);
  }
}

/**
 * What makes two waits the same: their conditions, and where they count from. Not their timeout.
 * A baseline counts by what it holds, so identical waits made against one screen share a group.
 */
export function groupKey(p: WaitInput, startOffset: number, commandSince: number, baseline: Baseline | undefined): string {
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
