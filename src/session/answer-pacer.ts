// The answers of waits, given out a bounded number per turn of the event loop over every session
// of a daemon. Its turns are the daemon's timers' (platform/timers.ts): once those close, the
// answers still owed are given at once, so no caller is left waiting on a daemon that is gone.
import type { Timers } from "../platform/timers.ts";
import type { WaitResult } from "../protocol/schemas.ts";

/**
 * Callers answered per turn of the event loop, over every session. Each answer becomes a reply
 * written to a socket before the turn ends (about 50 µs each), so thousands answered at once (a
 * group, or a client's distinct waits on a program that exits) would hold the thread for a quarter
 * of a second while another session's key echo waited.
 */
export const ANSWERS_PER_TURN = 64;

export class AnswerPacer {
  /** Answers to give, in order: a caller, and its group's result (shared: each caller gets a copy). */
  private readonly answers: { caller: (r: WaitResult) => void; result: WaitResult }[] = [];
  private answered = 0;
  /** Answers given since the turn began; the next turn starts over. */
  private givenThisTurn = 0;
  private nextTurn = false;

  constructor(private readonly timers: Timers) {
    timers.onClose(() => this.drain());
  }

  /** Answers each of `callers` with `result`: now while this turn has room, the rest in the next turns. */
  answer(callers: ((r: WaitResult) => void)[], result: WaitResult): void {
    for (const caller of callers) this.answers.push({ caller, result });
    this.drain();
  }

  /** Answers owed, not given yet. */
  get owed(): number {
    return this.answers.length - this.answered;
  }

  private drain(): void {
    const room = this.timers.closed ? Number.POSITIVE_INFINITY : ANSWERS_PER_TURN;
    for (; this.answered < this.answers.length && this.givenThisTurn < room; this.answered++, this.givenThisTurn++) {
      const { caller, result } = this.answers[this.answered]!;
      caller({ ...result });
    }
    if (this.answered === this.answers.length) {
      this.answers.length = 0;
      this.answered = 0;
    }
    if (this.nextTurn || this.timers.closed) return;
    this.nextTurn = true;
    this.timers.nextTurn(() => {
      this.nextTurn = false;
      this.givenThisTurn = 0;
      if (this.answers.length > 0) this.drain();
    });
  }
}
