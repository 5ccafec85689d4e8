import { expect, test } from "bun:test";
import { EARLY_DEATH_MS, restartDelay, startWorker } from "./worker-thread.ts";

/** Starts the test worker and does `act` to it; resolves with what it answered and every death it was told of, once it died. */
async function run(act: (w: Worker) => void): Promise<{ messages: string[]; deaths: string[] }> {
  const messages: string[] = [];
  const deaths: string[] = [];
  const { promise, resolve } = Promise.withResolvers<void>();
  const w = startWorker<string>("platform/worker-thread.test-worker.ts", {
    message: (m) => messages.push(m),
    died: (why) => {
      deaths.push(why);
      resolve();
    },
  });
  act(w);
  await promise;
  return { messages, deaths };
}

/** Sends the worker `messages` in order. */
const say =
  (...messages: string[]) =>
  (w: Worker) => {
    for (const m of messages) w.postMessage(m);
  };

test("a worker ended by an uncaught error is reported dead once, with the error's line, after the messages it posted", async () => {
  const { messages, deaths } = await run(say("a", "throw"));
  expect(messages).toEqual(["echo a"]);
  expect(deaths).toHaveLength(1);
  expect(deaths[0]).toContain("told to fail");
});

test("a worker that exits without an error is reported dead too", async () => {
  // The request-line parser listened for "error" only: lines given to such a worker never came back.
  expect(await run(say("b", "exit"))).toEqual({
    messages: ["echo b"],
    deaths: ["exited with code 3"],
  });
});

test("a worker its owner ends is reported dead, for the owner to tell apart by its own state", async () => {
  const { deaths } = await run((w) => w.terminate());
  expect(deaths).toHaveLength(1);
});

test("a worker that died early is replaced after a pause that doubles with each early death, up to a bound; one that lived, at once", () => {
  let delay = 0;
  const delays: number[] = [];
  for (let i = 0; i < 12; i++) delays.push((delay = restartDelay(0, delay, EARLY_DEATH_MS - 1)));
  expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  expect(restartDelay(0, delay, EARLY_DEATH_MS)).toBe(0);
  expect(restartDelay(0, 0, 0)).toBe(100);
});
