import { afterEach, expect, test } from "bun:test";
import { Timers } from "../platform/timers.ts";
import { LeftoverWatch } from "./leftover-watch.ts";

// A process that leads a terminal session of its own (setsid), as a program termd ran does: the
// session's id is its pid. It has said so once it wrote its line: setsid has run by then.
const started: Bun.Subprocess[] = [];
async function sessionLeader(): Promise<Bun.Subprocess> {
  const p = Bun.spawn(["setsid", "sh", "-c", "echo up; exec sleep 100"], { stdout: "pipe" });
  started.push(p);
  await p.stdout.getReader().read();
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
  const p = await sessionLeader();
  await watch.emptied(p.pid, performance.now(), Number.POSITIVE_INFINITY);
  expect(await p.exited).toBe(137);
  expect(p.signalCode).toBe("SIGKILL");
  expect(watch.size).toBe(0);
  expect(timers.pending).toBe(0);
  timers.close();
});

test("closing the daemon's timers SIGKILLs what every stop still watching left, and ends the stop", async () => {
  const timers = new Timers();
  const watch = new LeftoverWatch(timers);
  const p = await sessionLeader();
  // Its kill time far off: only the close can end it.
  const stop = watch.emptied(p.pid, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  expect(watch.size).toBe(1);
  timers.close();
  await stop;
  expect(watch.size).toBe(0);
  expect(await p.exited).toBe(137);
  expect(p.signalCode).toBe("SIGKILL");
  // Once closed, a stop is done at once, what is left killed the same way.
  const q = await sessionLeader();
  await watch.emptied(q.pid, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  expect(await q.exited).toBe(137);
});
