import { afterEach, expect, test } from "bun:test";
import { Timers } from "../platform/timers.ts";
import { LeftoverWatch } from "./leftover-watch.ts";

// A process that leads a terminal session of its own (setsid), as a program termd ran does: the
// session's id is its pid.
const started: Bun.Subprocess[] = [];
function sessionLeader(): Bun.Subprocess {
  const p = Bun.spawn(["setsid", "sleep", "100"]);
  started.push(p);
  return p;
}
afterEach(async () => {
  for (const p of started.splice(0)) {
    p.kill("SIGKILL");
    await p.exited;
  }
});

test("what a stop finds left at its kill time gets SIGKILL, and the stop is done once its session is empty", async () => {
  const timers = new Timers();
  const watch = new LeftoverWatch(timers);
  const p = sessionLeader();
  await watch.emptied(p.pid, performance.now(), Number.POSITIVE_INFINITY);
  expect(await p.exited).toBe(137);
  expect(p.signalCode).toBe("SIGKILL");
  expect(watch.size).toBe(0);
  expect(timers.pending).toBe(0);
  timers.close();
});

test("closing the daemon's timers ends every stop still watching, without killing what is left", async () => {
  const timers = new Timers();
  const watch = new LeftoverWatch(timers);
  const p = sessionLeader();
  const stop = watch.emptied(p.pid, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  expect(watch.size).toBe(1);
  timers.close();
  await stop;
  expect(watch.size).toBe(0);
  expect(p.killed || p.exitCode !== null).toBe(false);
  // Once closed, a stop is done at once.
  await watch.emptied(p.pid, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
});
