// The answers of waits, given out a bounded number per turn of the event loop over every session.
import type { WaitResult } from "../protocol/schemas.ts";

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
export function answerInTurns(callers: ((r: WaitResult) => void)[], result: WaitResult): void {
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
