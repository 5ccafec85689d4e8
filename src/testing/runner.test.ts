// The process's command line, where bun's flags are read from: /proc on Linux, `ps` where there is
// no /proc (macOS), which must read the same flags.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { commandLine, psCommandLine } from "./runner.ts";

test("ps reads this process's command line as /proc does (the fallback where there is no /proc)", () => {
  const proc = readFileSync("/proc/self/cmdline", "utf8")
    .split("\0")
    .filter((a) => a !== "");
  expect(psCommandLine(process.pid)).toEqual(proc.join(" ").split(/\s+/));
  expect(commandLine().filter((a) => a !== "")).toEqual(proc);
  // Bun's own argv holds none of the flags: what the fallback is for.
  expect(process.argv.length).toBeLessThan(proc.length);
});

test("ps of a process that is not there gives nothing", () => {
  expect(psCommandLine(2 ** 22 + 1)).toBeUndefined();
});
