// The pty worker's read loop over PTYs of the test's own (no program: the test writes the slave
// side as a program would). Linux: the masters are /dev/ptmx's.
import { afterEach, expect, test } from "bun:test";
import { closeSync, constants, openSync, readSync, writeSync } from "node:fs";
import { Gathered } from "../../test/unit-fixtures.ts";
import { ptyLibc } from "../platform/pty-libc.ts";
import { openMaster } from "./pty-master.ts";
import { PtyReactor, type ReactorEntry } from "./pty-reactor.ts";

const libc = ptyLibc();
const open: number[] = [];
let reactor: { r: PtyReactor; wake: [number, number] } | null = null;
afterEach(async () => {
  for (const fd of open.splice(0)) {
    reactor?.r.remove(fd);
    closeSync(fd);
  }
  if (!reactor) return;
  // Its last round, already queued, still polls the wake pipe: woken, it runs at once, and ends
  // before a callback queued after it. Closed any sooner, the pipe's number could be the next
  // test's master, which that round would read from.
  const [wakeRead, wakeWrite] = reactor.wake;
  writeSync(wakeWrite, "x");
  await new Promise((resolve) => setImmediate(resolve));
  closeSync(wakeRead);
  closeSync(wakeWrite);
  reactor = null;
});

/** What the reactor told of one PTY: its output (`until(text)`), its drains, its hangup. */
function watcher() {
  const out = new Gathered();
  let drains = 0;
  const hungUp = Promise.withResolvers<void>();
  const entry: ReactorEntry = {
    data: (bytes) => out.add(Buffer.from(bytes).toString()),
    drain: () => drains++,
    hangup: () => hungUp.resolve(),
  };
  return {
    entry,
    output: () => out.text,
    drains: () => drains,
    hungUp: hungUp.promise,
    until: (text: string) => out.until(text),
  };
}

/** A PTY watched by a reactor: its master and its slave (what a program would hold). */
function watched(r: PtyReactor, w: ReturnType<typeof watcher>): { master: number; slave: number } {
  const master = openMaster(null);
  const slave = openSync(libc!.unlock(master), constants.O_RDWR | constants.O_NOCTTY);
  open.push(master, slave);
  r.add(master, w.entry);
  return { master, slave };
}

function newReactor(): PtyReactor {
  const wake = libc!.pipe();
  reactor = { r: new PtyReactor(libc!, wake[0]), wake };
  return reactor.r;
}

test.skipIf(libc === null)("what a program writes reaches its entry, each PTY's apart", async () => {
  const r = newReactor();
  const a = watcher();
  const b = watcher();
  const pa = watched(r, a);
  const pb = watched(r, b);
  writeSync(pa.slave, "from a");
  writeSync(pb.slave, "from b");
  await Promise.all([a.until("from a"), b.until("from b")]);
  expect([a.output(), b.output()]).toEqual(["from a", "from b"]);
});

test.skipIf(libc === null)("input written reaches the program's side, and the entry hears when the terminal took it all", async () => {
  const r = newReactor();
  const w = watcher();
  const { master, slave } = watched(r, w);
  r.write(master, "typed\n");
  expect(w.drains()).toBe(1);
  expect(r.queued(master)).toBeNull();
  // The line discipline echoes it back (cooked: \n as \r\n), and the program reads the line.
  await w.until("typed\r\n");
  const buf = Buffer.alloc(64);
  expect(buf.toString("utf8", 0, readSync(slave, buf))).toBe("typed\n");
});

test.skipIf(libc === null)("once every holder of the slave closed it, the entry gets what was left, then the hangup", async () => {
  const r = newReactor();
  const w = watcher();
  const { master, slave } = watched(r, w);
  writeSync(slave, "last words");
  // Closed here, not after the test: its number may be another file's by then.
  open.splice(open.indexOf(slave), 1);
  closeSync(slave);
  await w.hungUp;
  expect(w.output()).toBe("last words");
  // Input for a terminal that hung up goes nowhere, and waits nowhere.
  r.write(master, "late");
  expect(r.queued(master)).toBeNull();
});

test.skipIf(libc === null)("a paused PTY whose other side closed is read to its end at once, and the entry hears the hangup", async () => {
  const r = newReactor();
  const w = watcher();
  const { master, slave } = watched(r, w);
  r.pause(master, true);
  writeSync(slave, "written while paused");
  open.splice(open.indexOf(slave), 1);
  closeSync(slave);
  await w.hungUp;
  expect(w.output()).toBe("written while paused");
});
