// A wait's default timeout, given the test timeout each runner runs a test under: at most 60% of
// it, so a wait that fails does so with its own message before the runner ends the test.
import { expect, test } from "bun:test";
import { bunTestTimeout } from "./runners/bun.ts";
import { vitestTestTimeout } from "./runners/vitest.ts";
import { defaultTimeout } from "./terminal.ts";

test("10 s unless the test timeout is shorter than 10 s / 0.6; then 60% of it", () => {
  expect(defaultTimeout(5_000)).toBe(3_000);
  expect(defaultTimeout(8_000)).toBe(4_800);
  expect(defaultTimeout(16_666)).toBe(9_999);
  expect(defaultTimeout(17_000)).toBe(10_000);
  expect(defaultTimeout(30_000)).toBe(10_000);
  // No test timeout (node:test without --test-timeout, vitest's 0): the whole 10 s.
  expect(defaultTimeout(Number.POSITIVE_INFINITY)).toBe(10_000);
  expect(defaultTimeout(0)).toBe(10_000);
});

test("under bun test: --timeout N (or =N, the last given) from the command line, else bun's 5 s", () => {
  expect(defaultTimeout(bunTestTimeout(["bun", "test", "a.test.ts"]))).toBe(3_000);
  expect(defaultTimeout(bunTestTimeout(["bun", "test", "--timeout", "8000", "a.test.ts"]))).toBe(4_800);
  expect(defaultTimeout(bunTestTimeout(["bun", "test", "--timeout=2000", "--timeout", "30000"]))).toBe(10_000);
  expect(defaultTimeout(bunTestTimeout(["bun", "test", "--timeout", "soon"]))).toBe(3_000);
});

test("under vitest: the current test's timeout, else (a beforeAll, a setup file) the configured testTimeout, else vitest's 5 s", () => {
  const worker = (testTimeout: number) => ({ config: { testTimeout } });
  expect(defaultTimeout(vitestTestTimeout({ timeout: 8_000 }, worker(30_000)))).toBe(4_800);
  expect(defaultTimeout(vitestTestTimeout(undefined, worker(8_000)))).toBe(4_800);
  expect(defaultTimeout(vitestTestTimeout(undefined, worker(5_000)))).toBe(3_000);
  expect(defaultTimeout(vitestTestTimeout(undefined, undefined))).toBe(3_000);
  // 0 is vitest's "no timeout".
  expect(vitestTestTimeout({ timeout: 0 }, worker(5_000))).toBe(Number.POSITIVE_INFINITY);
  expect(vitestTestTimeout(undefined, worker(0))).toBe(Number.POSITIVE_INFINITY);
});
