import { afterAll, afterEach, expect, test } from "bun:test";
import { type ChildRun, startChild } from "../../test/unit-fixtures.ts";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive } from "../platform/alive.ts";
import type { TermdError } from "../terminal/errors.ts";
import { type Child, MAX_UNREAD_INPUT } from "./child.ts";
import { Timers } from "../platform/timers.ts";
import { PtyPool } from "./pty-pool.ts";

// A program in a PTY through a pty worker of the test's own pool, no session around it: what the
// daemon's thread sees of it.
const pool = new PtyPool(new Timers(), 1);
const children: Child[] = [];
let dir: string;
afterEach(async () => {
  // Only a program still running: an ended one's pid may be another process's by now.
  for (const c of children.splice(0)) {
    if (!c.runs) continue;
    c.kill();
    await c.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});
afterAll(() => pool.close());

/** `command` on the test's pool in a fresh temp dir, killed after the test if it still runs. */
async function start(command: string[], log: string | null = null): Promise<ChildRun> {
  dir = mkdtempSync(join(tmpdir(), "termd-child-"));
  // The worker appends to a log its session made (output-log.ts's create).
  if (log) writeFileSync(join(dir, log), "");
  const run = await startChild(pool, dir, command, log && join(dir, log));
  children.push(run.child);
  return run;
}

test("the program's output reaches the daemon's thread and its log, then its exit, after the last byte", async () => {
  const { child, output } = await start(["sh", "-c", "printf 'hello there'; exit 3"], "out.log");
  expect(child.pid).toBeGreaterThan(0);
  const exit = await child.exited;
  expect(exit).toMatchObject({ exitCode: 3, signal: null });
  expect(exit.lost).toBeUndefined();
  expect(output()).toBe("hello there");
  expect(readFileSync(join(dir, "out.log"), "utf8")).toBe("hello there");
  expect(child.runs).toBe(false);
});

test("input written reaches the program; once it ended, input is refused", async () => {
  const { child, until } = await start(["sh", "-c", "read x; echo got-$x"]);
  expect(child.write("abc\r")).toBe(4);
  await until("got-abc");
  expect((await child.exited).exitCode).toBe(0);
  expect(() => child.write("late")).toThrow("the program has ended");
});

test("a program that cannot start is refused with SPAWN_FAILED and why", async () => {
  await expect(start(["/nonexistent/program"])).rejects.toMatchObject({ code: "SPAWN_FAILED" });
});

test("a signal sent to the program ends it by that signal, and is remembered as sent", async () => {
  const { child, until } = await start(["sh", "-c", "echo ready; exec sleep 100"]);
  await until("ready");
  expect(child.sendSignal("TERM")).toBe("SIGTERM");
  expect(child.signalSent).toBe("SIGTERM");
  expect((await child.exited).signal).toBe("SIGTERM");
});

test("stop without grace ends the program and what it started in the background", async () => {
  const { child, until, output } = await start(["sh", "-c", "sleep 100 & echo $!; echo ready; wait"]);
  await until("ready");
  const background = Number(/(\d+)/.exec(output())?.[1]);
  expect(alive(background)).toBe(true);
  await child.stop(0);
  expect((await child.exited).signal).toBe("SIGKILL");
  expect(alive(background)).toBe(false);
});

test("a stop without grace while a stop's grace runs SIGKILLs what the program left at once", async () => {
  // The background job ignores the hangup and SIGTERM that end the program: it waits out the grace.
  // It says so itself once they are ignored (an echo of $! by its parent could come before its trap).
  const job = "(trap '' HUP TERM; exec sh -c 'echo job=$$ ready; exec sleep 100') & wait";
  const { child, until, output } = await start(["sh", "-c", job]);
  await until("ready");
  const background = Number(/job=(\d+)/.exec(output())?.[1]);
  const first = child.stop(100_000);
  expect((await child.exited).signal).toBe("SIGHUP");
  expect(alive(background)).toBe(true);
  await child.stop(0);
  expect(alive(background)).toBe(false);
  // The first stop finds the session empty too.
  await first;
});

test("once a stop has finished, a stop without grace leaves the program's old session number alone", async () => {
  const { child, until } = await start(["sh", "-c", "echo ready; exec sleep 100"]);
  await until("ready");
  await child.stop(100_000); // ends on the hangup, nothing left behind: this stop is complete
  expect(pool.leftovers.size).toBe(0);
  // By now the number may be an unrelated session's: no look at it, no SIGKILL to it.
  const looked: number[] = [];
  const emptied = pool.leftovers.emptied.bind(pool.leftovers);
  pool.leftovers.emptied = (sid, killAt, giveUpAt) => {
    looked.push(sid);
    return emptied(sid, killAt, giveUpAt);
  };
  try {
    await child.stop(0);
  } finally {
    pool.leftovers.emptied = emptied;
  }
  expect(looked).toEqual([]);
});

test("input the program does not read stops at MAX_UNREAD_INPUT: past its deadline the writer gives up with INPUT_NOT_READ", async () => {
  // Raw, so the terminal stops taking input once its buffer is full (a cooked line discards instead).
  const { child, until } = await start(["sh", "-c", "stty raw -echo; echo ready; exec sleep 100"]);
  await until("ready");
  const input = new Uint8Array(3 * MAX_UNREAD_INPUT).fill(120);
  const err = await child.writeBounded(input, performance.now()).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "INPUT_NOT_READ" });
  const { unread_bytes, written_bytes } = (err as TermdError).details as { unread_bytes: number; written_bytes: number };
  expect(unread_bytes).toBeLessThanOrEqual(MAX_UNREAD_INPUT);
  expect(written_bytes).toBeGreaterThan(0);
  expect(written_bytes).toBeLessThan(input.length);
});

test("input written right after a resize reaches the program after it: the program it wakes reads the new size", async () => {
  // Raw, so each byte wakes it at once; it answers with the size its terminal has then.
  const script =
    "import os,tty\ntty.setraw(0)\nos.write(1, b'raw;')\nn = 0\nwhile True:\n  os.read(0, 1)\n  n += 1\n  s = os.get_terminal_size(0)\n  os.write(1, b'#%d=%dx%d;' % (n, s.lines, s.columns))";
  const { child, until, output } = await start(["python3", "-c", script]);
  await until("raw;");
  child.write("x");
  await until("#1=");
  const wanted: string[] = [];
  for (let n = 2; n <= 40; n++) {
    const size = { rows: 10 + (n % 20), cols: 40 + n };
    child.resize(size);
    child.write("x");
    wanted.push(`#${n}=${size.rows}x${size.cols}`);
    await until(`#${n}=`);
  }
  // One more, unchecked: the last answer above is whole once this one began.
  child.write("x");
  await until("#41=");
  expect(output().split(";").slice(2, -2)).toEqual(wanted);
});
