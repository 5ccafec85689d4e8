import { expect, test } from "bun:test";
import { FREE_TRIES, LoginThrottle } from "./login-throttle.ts";
import { SIGN_IN_TTL_S, SignIns } from "./sign-ins.ts";

test("a sign-in is valid until it expires or is ended, and nothing else is", () => {
  let now = 1_000_000;
  const s = new SignIns(() => now);
  const a = s.start();
  const b = s.start();
  expect(a).not.toBe(b);
  expect(s.valid(a)).toBe(true);
  expect(s.valid("made-up")).toBe(false);
  s.end(a);
  expect(s.valid(a)).toBe(false);
  now += SIGN_IN_TTL_S * 1000 - 1;
  expect(s.valid(b)).toBe(true);
  now += 1;
  expect(s.valid(b)).toBe(false);
});

test("wrong tries lock an address out for longer each time, up to a minute; a right one clears it", () => {
  let now = 0;
  const t = new LoginThrottle(() => now);
  for (let i = 1; i < FREE_TRIES; i++) t.failed("a");
  expect(t.wait("a")).toBe(0);
  const waits: number[] = [];
  for (let i = 0; i < 10; i++) {
    t.failed("a");
    waits.push(t.wait("a"));
  }
  expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
  expect(Math.max(...waits)).toBe(60_000);
  expect(t.wait("b")).toBe(0);
  now += 60_000;
  expect(t.wait("a")).toBe(0);
  t.succeeded("a");
  t.failed("a");
  expect(t.wait("a")).toBe(0);
});
