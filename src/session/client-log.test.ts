import { expect, test } from "bun:test";
import { RateLimitedLog } from "./client-log.ts";

test("a burst passes, then one line per interval; what is left out is counted and said once lines pass again", () => {
  let now = 0;
  const lines: string[] = [];
  const log = new RateLimitedLog(
    (l) => lines.push(l),
    () => now,
    3,
    1000,
  );
  for (let i = 0; i < 10; i++) log.log(`line ${i}`);
  expect(lines).toEqual(["line 0", "line 1", "line 2"]);
  now += 999;
  expect(log.log("early")).toBe(false);
  now += 1;
  expect(log.log("next")).toBe(true);
  expect(lines.slice(3)).toEqual([expect.stringContaining("8 more log lines caused by clients were left out"), "next"]);
});

test("an error goes in as its stack, and a line is cut at 4096 characters", () => {
  const lines: string[] = [];
  const log = new RateLimitedLog((l) => lines.push(l));
  log.log("termd: internal error:", new Error("boom"));
  expect(lines[0]).toStartWith("termd: internal error: Error: boom\n");
  expect(lines[0]).toContain("client-log.test.ts");
  log.log("x".repeat(10_000));
  expect(lines[1]!.length).toBeLessThan(4200);
  expect(lines[1]).toEndWith("(5904 more characters)");
});
