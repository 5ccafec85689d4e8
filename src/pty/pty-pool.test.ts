import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildRun, startChild } from "../../test/unit-fixtures.ts";
import type { ScreenOwner } from "../terminal/remote-screen.ts";
import { Timers } from "../platform/timers.ts";
import { PtyPool } from "./pty-pool.ts";
import { childStatus } from "../platform/child-status.ts";

/** A process's state letter (/proc/PID/stat: S sleeping, Z ended and not reaped), or "gone". */
function processState(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0]!;
  } catch {
    return "gone";
  }
}

// The pool as its users see it: programs started on its workers (child.ts), screens put on them,
// and what becomes of both when a worker dies.
let dir: string;
let pool: PtyPool;
let timers: Timers;
const runs: ChildRun[] = [];
/**
 * Pools held as a handover holds them, whose programs a fresh pool took over: closed first, while
 * those programs run and their masters are open (a released worker handles what it was sent meanwhile).
 */
const superseded: PtyPool[] = [];

function fresh(size: number, entry?: string): PtyPool {
  dir = mkdtempSync(join(tmpdir(), "termd-pty-pool-"));
  timers = new Timers();
  return (pool = new PtyPool(timers, size, entry));
}

async function start(command: string[]): Promise<ChildRun> {
  const run = await startChild(pool, dir, command);
  runs.push(run);
  return run;
}

afterEach(async () => {
  for (const p of superseded.splice(0)) p.close();
  for (const { child } of runs.splice(0)) {
    if (!child.runs) continue;
    child.kill();
    await child.exited;
  }
  pool.close();
  // A replacement's pause ends with them.
  timers.close();
  rmSync(dir, { recursive: true, force: true });
});

const quietOwner = (): ScreenOwner & { reopened: number } => ({
  reopened: 0,
  onState() {},
  onReply() {},
  onReopened() {
    this.reopened++;
  },
});

// That their processes are ended and reaped too: test/pty-worker-death.test.ts.
test("a worker that dies: its programs end as lost, its screens reopen on a fresh worker, which runs the next program", async () => {
  fresh(1);
  const { child, until } = await start(["sh", "-c", "echo ready; exec sleep 100"]);
  await until("ready");
  const owner = quietOwner();
  child.openScreen({ rows: 3, cols: 10, scrollback: 0, version: "termd(test)" }, owner);
  expect(pool.screenInfo()).toEqual([{ index: 0, screens: 1, parked: 0 }]);

  await pool.crash(0);
  const exit = await child.exited;
  expect(exit.lost).toBeString();
  expect(owner.reopened).toBe(1);
  expect(pool.screenInfo()).toEqual([{ index: 0, screens: 1, parked: 0 }]);

  const next = await start(["sh", "-c", "echo after"]);
  await next.until("after");
  expect((await next.child.exited).exitCode).toBe(0);
});

test("programs go to the least busy worker: a crash of one ends only the programs it ran", async () => {
  fresh(2);
  const a = await start(["sh", "-c", "echo a-ready; exec sleep 100"]);
  const b = await start(["sh", "-c", "echo b-ready; exec sleep 100"]);
  await Promise.all([a.until("a-ready"), b.until("b-ready")]);
  await pool.crash(0);
  expect((await a.child.exited).lost).toBeString();
  expect(b.child.runs).toBe(true);
  b.child.sendSignal("TERM");
  expect((await b.child.exited).signal).toBe("SIGTERM");
});

test("a worker that cannot even start is not restarted in a tight loop: after it died, programs are refused until a pause has passed", async () => {
  // It was replaced at once, and the next program given to the replacement, which died the same way, and so on.
  fresh(1, "pty/pty-pool.test-worker.ts");
  await expect(startChild(pool, dir, ["true"])).rejects.toMatchObject({
    code: "SPAWN_FAILED",
    message: expect.stringContaining("the pty worker died (error: this worker cannot start)"),
  });
  await expect(startChild(pool, dir, ["true"])).rejects.toMatchObject({
    code: "SPAWN_FAILED",
    message: expect.stringContaining("no pty worker runs: the last died as it started (error: this worker cannot start)"),
  });
});

test("a closed pool starts no program", async () => {
  fresh(1);
  pool.close();
  await expect(startChild(pool, dir, ["true"])).rejects.toThrow("the pty workers are shut down");
});

test("a program that ends while the workers are held is not reaped: the next image reads how it ended", async () => {
  fresh(1);
  // Not in `runs`: it is reaped here, as the next image would, so the pool never hears of its end.
  const { child, until } = await startChild(pool, dir, ["sh", "-c", "echo ready; exec sleep 100"]);
  await until("ready");
  await pool.hold();
  // Regression: the worker's Bun reaped it at once, and took its status with it: the next image
  // found no child of that pid and told the session's end without an exit code.
  process.kill(child.pid, "SIGKILL");
  while (!["Z", "gone"].includes(processState(child.pid))) await new Promise((resolve) => setImmediate(resolve));
  expect(childStatus(child.pid)).toEqual({ state: "ended", exitCode: null, signal: 9 });
  pool.release();
});

/**
 * Holds `pool`, as a handover does, has `meanwhile` done to `run`'s program (sent to its blocked
 * worker, which the exec would drop), then takes the program over on a fresh pool, as the next
 * image does: at the session's `size`, with the input the handover record carries. The held pool
 * stays held to the test's end (released, its worker would apply what it was sent).
 */
async function handedOver(run: ChildRun, size: { rows: number; cols: number }, meanwhile: () => void): Promise<ChildRun> {
  const held = await pool.hold();
  meanwhile();
  const { child } = run;
  const queued = held.input.find((i) => i.pid === child.pid)?.data ?? null;
  const program = { pid: child.pid, fd: child.masterFd!, exit: null, input: child.inputToCarry(queued) };
  const next = new PtyPool(timers, 1);
  const took = await startChild(next, dir, [], null, { program, size });
  superseded.push(pool);
  pool = next;
  runs.splice(0, runs.length, took);
  return took;
}

test("a resize sent to a held worker is applied by the next image, which sets the session's size on the program it takes over", async () => {
  fresh(1);
  const run = await start(["sh", "-c", "echo ready; read x; stty size; echo done; exec sleep 100"]);
  await run.until("ready");
  // Regression: the held worker never applied it and the exec dropped it; the next image set no
  // size, so the program kept 5x40 while the session said 9x33, for good.
  const taken = await handedOver(run, { rows: 9, cols: 33 }, () => run.child.resize({ rows: 9, cols: 33 }));
  taken.child.write("\r");
  await taken.until("done");
  expect(taken.output()).toContain("9 33");
});

test("input sent to a held worker is carried to the next image, which writes it to the program it takes over", async () => {
  fresh(1);
  const run = await start(["sh", "-c", "echo ready; read x; echo got-$x; exec sleep 100"]);
  await run.until("ready");
  // Sent through the worker (a resize is on its way): regression, it went nowhere at the exec and
  // the record did not carry it.
  const taken = await handedOver(run, { rows: 5, cols: 40 }, () => {
    run.child.resize({ rows: 5, cols: 40 });
    run.child.write("abc\r");
  });
  // Behind the carried input; alone (it was lost), it ends the read empty-handed.
  taken.child.write("\r");
  await taken.until("got-");
  expect(taken.output()).toContain("got-abc");
});
