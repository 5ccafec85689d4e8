// The test runner termd/testing runs under (bun test, vitest, node:test), as the core sees it: one
// small interface that each adapter in runners/ fills in, node:test's being the default here. The
// core never imports an adapter itself, so it loads under any runner (and under plain Node, where
// `bun:test` does not exist).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What the core asks of a test runner. */
export interface Runner {
  /**
   * The test running now, when the runner says (vitest does: its full name, the describe blocks'
   * titles and its own, formatted, and its id); else it is found from the stack.
   */
  current?(): { file: string; name: string; id?: string } | undefined;
  /** The formatted title of the test.each case running now, where the runner formats it but does not say (bun). */
  caseTitle?(): string | undefined;
  /**
   * Calls `end` once the current test is over, with `failed` when the runner tells the outcome
   * (vitest) or undefined when it does not (bun's onTestFinished); false when it cannot here
   * (outside a test, in a bun test.concurrent test, under node:test).
   */
  afterTest(end: (failed?: boolean, why?: string) => Promise<void>): boolean;
  /** Whether `afterTest` tells the outcome: then a terminal closed by `await using` leaves it to the end. */
  readonly tellsOutcome: boolean;
  /** The runner's flag to rewrite snapshots (`-u`). */
  updateSnapshots(): boolean;
  /** The current test's timeout as far as the runner tells it (ms; Infinity: none). */
  testTimeout(): number;
}

/** A flag's value given as `--flag N` or `--flag=N` in `argv` (the last one given wins); undefined if absent or not a number. */
export function numericFlag(argv: readonly string[], flag: string): number | undefined {
  let found: number | undefined;
  for (const [i, a] of argv.entries()) {
    const v = a === flag ? argv[i + 1] : a.startsWith(`${flag}=`) ? a.slice(flag.length + 1) : undefined;
    if (v !== undefined && v.trim() !== "" && Number.isFinite(Number(v))) found = Number(v);
  }
  return found;
}

/**
 * node:test's (or plain Node's), until an adapter says otherwise: node:test has no expect to
 * extend, so a test asserts with expectTerminal (assert.ts); the test is found from the stack, or
 * exactly from termd/testing/node's wrapped `test`, and `--test-update-snapshots` rewrites snapshots.
 */
const nodeTest: Runner = {
  afterTest: () => false,
  tellsOutcome: false,
  updateSnapshots: () => process.execArgv.includes("--test-update-snapshots"),
  // node:test's tests have no timeout unless --test-timeout gives one (a test's own option is not told).
  testTimeout: () => numericFlag(process.execArgv, "--test-timeout") ?? Number.POSITIVE_INFINITY,
};

let active: Runner = nodeTest;

export function useRunner(r: Runner): void {
  active = r;
}

export function runner(): Runner {
  return active;
}

/** The file the runner was started on: what the outermost test-file frame of a stack is. */
export function mainFile(): string {
  const bun = (globalThis as { Bun?: { main: string } }).Bun;
  return bun ? bun.main : (process.argv[1] ?? "");
}

/** `pid`'s command line as `ps` shows it (macOS and the BSDs have no /proc), split at spaces; undefined if ps fails. */
export function psCommandLine(pid: number): string[] | undefined {
  const r = spawnSync("ps", ["-ww", "-o", "args=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const line = r.status === 0 ? r.stdout.trim() : "";
  return line ? line.split(/\s+/) : undefined;
}

let ownCommandLine: string[] | undefined;

/**
 * The process's own command line: /proc/self/cmdline (Linux), else `ps` (an argument with a space
 * in it comes apart, which no flag read here has). Bun hands a test no other sign of its flags:
 * `process.argv` and `Bun.argv` hold only the runtime and the test file.
 */
export function commandLine(): string[] {
  if (ownCommandLine) return ownCommandLine;
  try {
    ownCommandLine = readFileSync("/proc/self/cmdline", "utf8").split("\0");
  } catch {
    ownCommandLine = psCommandLine(process.pid) ?? [];
  }
  return ownCommandLine;
}
