import { expect, test } from "bun:test";
import { Timers } from "../platform/timers.ts";
import type { WaitResult } from "../protocol/schemas.ts";
import { AnswerPacer, ANSWERS_PER_TURN } from "./answer-pacer.ts";

const RESULT: WaitResult = { outcome: "matched", screen: { lines: ["ready"], cursor: { row: 0, col: 5 } } as WaitResult["screen"] };

/** `n` callers that put their number in `got` when answered, and the results they got. */
function callers(n: number) {
  const got: number[] = [];
  const results: WaitResult[] = [];
  const list = Array.from({ length: n }, (_, i) => (r: WaitResult) => {
    got.push(i);
    results.push(r);
  });
  return { list, got, results };
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

test("answers go out a bounded number per turn of the event loop, in order, each caller with its own copy", async () => {
  const timers = new Timers();
  const pacer = new AnswerPacer(timers);
  const { list, got, results } = callers(ANSWERS_PER_TURN * 2 + 10);
  pacer.answer(list, RESULT);
  expect(got).toHaveLength(ANSWERS_PER_TURN);
  expect(pacer.owed).toBe(ANSWERS_PER_TURN + 10);
  // The pacer's next turn was asked for before this one.
  await nextTurn();
  expect(got).toHaveLength(ANSWERS_PER_TURN * 2);
  await nextTurn();
  expect(got).toEqual(list.map((_, i) => i));
  expect(pacer.owed).toBe(0);
  expect(results[0]).toEqual(RESULT);
  expect(results[0]).not.toBe(results[1]);
  timers.close();
});

test("closing the daemon's timers gives every answer still owed at once, and later answers unpaced", () => {
  const timers = new Timers();
  const pacer = new AnswerPacer(timers);
  const first = callers(ANSWERS_PER_TURN * 3);
  pacer.answer(first.list, RESULT);
  expect(pacer.owed).toBe(ANSWERS_PER_TURN * 2);
  timers.close();
  expect(first.got).toEqual(first.list.map((_, i) => i));
  expect(pacer.owed).toBe(0);
  // Nothing would come back for them: no turn is scheduled once the timers are closed.
  const late = callers(ANSWERS_PER_TURN + 1);
  pacer.answer(late.list, RESULT);
  expect(late.got).toHaveLength(ANSWERS_PER_TURN + 1);
  expect(timers.pending).toBe(0);
});
