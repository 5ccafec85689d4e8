import { afterEach, expect, test } from "bun:test";
import { ScreenReopened, type ScreenOwner } from "./remote-screen.ts";
import { Timers } from "../platform/timers.ts";
import { ScreenPool } from "./screen-pool.ts";

const VERSION = "termd(test)";
const SIZE = { rows: 3, cols: 20 };

const pools: ScreenPool[] = [];
afterEach(() => {
  for (const p of pools.splice(0)) p.close();
});

/** A pool that is closed after the test; parking is left to the tests that ask for it. */
function pool(size: number): ScreenPool {
  const p = new ScreenPool(new Timers(), size, 0);
  pools.push(p);
  return p;
}

/** An owner that keeps what its screen tells it; `at(offset)` resolves once the screen has read output up to there. */
function owner() {
  const replies: string[] = [];
  let reopened = 0;
  let offset = 0;
  const waiters = new Set<() => void>();
  const o: ScreenOwner = {
    onState(at) {
      offset = at;
      for (const w of [...waiters]) w();
    },
    onReply: (data) => replies.push(data),
    onReopened: () => reopened++,
  };
  return {
    o,
    replies,
    reopened: () => reopened,
    at(target: number): Promise<void> {
      const { promise, resolve } = Promise.withResolvers<void>();
      const check = () => {
        if (offset < target) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
      return promise;
    },
  };
}

const bytes = (s: string) => new TextEncoder().encode(s);

/** A screen on one of `p`'s workers, its owner `w`, once it shows `out` (written at offset 0). */
async function showing(p: ScreenPool, out: string, answer = false) {
  const w = owner();
  const s = p.open(SIZE, 10, VERSION, w.o);
  s.write(bytes(out), out.length, answer);
  await w.at(out.length);
  return { s, w };
}
/** The screen's rows as text, trailing blanks trimmed. */
const text = async (screen: ReturnType<ScreenPool["open"]>) => (await screen.snapshot("text", 0)).lines.map((l) => l.trimEnd());

test("a screen shows the output written to it and answers a query through its owner", async () => {
  const { s, w } = await showing(pool(1), "hello\r\nworld\x1b[6n", true);
  expect(await text(s)).toEqual(["hello", "world", ""]);
  // The cursor position report: row 2, column 6.
  expect(w.replies).toEqual(["\x1b[2;6R"]);
});

test("each screen opens on the least busy worker, and a worker starts only once it is given one", () => {
  const p = pool(2);
  const count = () => p.info().map((i) => i.screens);
  expect(count()).toEqual([0, 0]);
  const a = p.open(SIZE, 10, VERSION, owner().o);
  expect(count()).toEqual([1, 0]);
  const b = p.open(SIZE, 10, VERSION, owner().o);
  const c = p.open(SIZE, 10, VERSION, owner().o);
  expect(count()).toEqual([2, 1]);
  a.dispose();
  c.dispose();
  expect(count()).toEqual([0, 1]);
  b.dispose();
  expect(count()).toEqual([0, 0]);
});

test("a worker that ends reopens its screens blank on a fresh one and tells their owners; a snapshot asked of it fails with ScreenReopened", async () => {
  const p = pool(1);
  const { s, w } = await showing(p, "before");
  const asked = s.snapshot("text", 0);
  expect(p.restart(0)).toBe(true);
  await expect(asked).rejects.toBeInstanceOf(ScreenReopened);
  expect(w.reopened()).toBe(1);
  expect(p.info()[0]).toMatchObject({ screens: 1, restarts: 1 });
  expect(await text(s)).toEqual(["", "", ""]);
  // The owner rebuilds it from the output: the new worker takes writes as the old one did.
  s.write(bytes("after"), 11, false);
  await w.at(11);
  expect(await text(s)).toEqual(["after", "", ""]);
  expect(p.restart(1)).toBe(false);
});

test("a parked screen is closed in its worker, and opens blank again when unparked", async () => {
  const p = pool(1);
  const { s } = await showing(p, "kept by its session");
  s.park();
  expect(p.info()[0]).toMatchObject({ screens: 1, parked: 1 });
  s.unpark();
  expect(p.info()[0]!.parked).toBe(0);
  expect(await text(s)).toEqual(["", "", ""]);
});

test("a closed pool opens no screen, and a disposed screen answers no snapshot", async () => {
  const p = pool(1);
  const s = p.open(SIZE, 10, VERSION, owner().o);
  s.dispose();
  await expect(s.snapshot("text", 0)).rejects.toThrow("the screen is closed");
  p.close();
  expect(() => p.open(SIZE, 10, VERSION, owner().o)).toThrow("the screen workers are shut down");
});
