// Which test a call comes from, and whether that test failed, under any runner (runner.ts).
//
// The test is, in this order:
// - the scope a wrapped `test` runs its body in (wrap-test.ts: termd/testing/bun's and
//   termd/testing/node's `test`), which also knows the outcome, a plain throw included;
// - what the runner says (vitest's expect.getState());
// - else found from the call's stack: the outermost frame in the test file (the file the runner
//   was started on), and the nearest `test(` / `it(` call above that line gives its title, the
//   `describe(` blocks around it (by indentation) the titles before it, and a test.each case's
//   title comes formatted from the runner (runners/bun-each.ts).
// A test's artifacts go to a folder named after its full name, made unique in the process (a
// second test of the same name gets `-2`), so no two tests share one.
// Where no runner tells the outcome (bun's own `test`, node:test's), a test has failed when the
// last thing it checked failed: an assertion (termd/testing's matchers, bun's built-in matchers,
// which runners/bun-expect.ts wraps to report here) or a Terminal call (a wait that timed out), with no
// assertion or call succeeding after it, since a test that goes on after a failure caught it; or
// when it ended with one of our calls still pending (bun abandons a test that times out in the
// middle of an await). A plain `throw` outside any assertion or call is not seen there.
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mainFile, runner } from "./runner.ts";

export interface Finisher {
  /** Runs once the test is over; `failed` as far as this module can tell. */
  finish(run: TestRun): Promise<void>;
}

export class TestRun {
  failed = false;
  /** Why, the first time: for the artifacts' README. */
  failure: string | undefined;
  private readonly open = new Set<Finisher>();
  private snapshots = 0;
  private launches = 0;
  finished = false;
  private sticky = false;
  /** The end will tell whether the test failed (a wrapped test, vitest): closing waits for it. */
  deferred = false;

  /** The test file's absolute path. */
  readonly file: string;
  /** The test's own title ("" when not found); under vitest, its full name. */
  readonly title: string;
  /** Where the test starts in its file (1-based; 0 when the runner or a wrapper told the test). */
  readonly line: number;
  /** The test's full name: the describe blocks' titles and its own, joined by " > ". */
  readonly name: string;
  /** What tells this test from every other: the runner's id, or its file, line and full name. */
  readonly key: string;

  constructor(where: TestWhere) {
    this.file = where.file;
    this.title = where.title;
    this.line = where.line;
    this.name = [...where.path, where.title].join(" > ");
    this.key = keyOf(where);
  }

  /** A name for files: the full name without characters a path cannot carry, unique in this process. */
  get slug(): string {
    return uniqueFolder(this.key, slugOf(this.name, this.line));
  }

  /** `test-results/<test name>/` under the directory `bun test` runs in. */
  get artifactDir(): string {
    return join(process.cwd(), "test-results", this.slug);
  }

  /** The next default snapshot name in this test: its title, then title-2, title-3 … */
  nextSnapshotName(): string {
    const base = slugOf(this.title, this.line);
    const n = ++this.snapshots;
    return n === 1 ? base : `${base}-${n}`;
  }

  nextLaunch(): number {
    return ++this.launches;
  }

  /** An assertion or call failed: the test has failed unless it goes on (it caught the error). */
  fail(why: string): void {
    if (!this.failed) this.failure = why;
    this.failed = true;
  }

  /** An assertion or call succeeded after a failure: the test caught that one. */
  ok(): void {
    if (this.sticky) return;
    this.failed = false;
    this.failure = undefined;
  }

  /** The test was abandoned mid-call (its timeout): nothing clears that. */
  abandoned(why: string): void {
    this.fail(why);
    this.sticky = true;
  }

  track(f: Finisher): void {
    this.open.add(f);
  }

  untrack(f: Finisher): void {
    this.open.delete(f);
    // Without an end hook (a bun test.concurrent test, node:test's own test) the last terminal closed is the test's end.
    if (!this.hooked && this.open.size === 0) runs.delete(this.key);
  }

  /** The runner's after-test hook or a wrapped test's body will call end(). */
  hooked = false;

  /** The test is over: `failed` as the runner or the wrapper says, else as far as this module can tell. */
  async end(failed?: boolean, why?: string): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (failed === true) this.abandoned(why ?? "the test failed");
    else if (failed === false) this.failed = false;
    runs.delete(this.key);
    for (const f of [...this.open]) await f.finish(this);
  }
}

/** Where a test is: its file, its title, the describe blocks around it, and its line or the runner's id for it. */
export interface TestWhere {
  file: string;
  title: string;
  path: readonly string[];
  line: number;
  id?: string;
}

function keyOf(w: TestWhere): string {
  return `${w.file}:${w.id ?? w.line}:${[...w.path, w.title].join(" > ")}`;
}

/** `name` without characters a path cannot carry. */
function slugOf(name: string, line: number): string {
  return (
    (name || `line-${line}`)
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 100) || `line-${line}`
  );
}

/** Each test's artifacts folder, and the folders taken, in this process. */
const folders = new Map<string, string>();
const taken = new Set<string>();

/** The folder for the test `key`: `base`, or `base-2`, `base-3` … when another test has it. */
function uniqueFolder(key: string, base: string): string {
  let folder = folders.get(key);
  if (folder) return folder;
  folder = base;
  for (let n = 2; taken.has(folder); n++) folder = `${base}-${n}`;
  taken.add(folder);
  folders.set(key, folder);
  return folder;
}

const runs = new Map<string, TestRun>();
const sources = new Map<string, string[]>();

function sourceLines(file: string): string[] {
  let lines = sources.get(file);
  if (!lines) {
    try {
      lines = readFileSync(file, "utf8").split("\n");
    } catch {
      lines = [];
    }
    sources.set(file, lines);
  }
  return lines;
}

/** A call of `fns` (with modifiers: `.only`, `.each(…)` …) whose first argument is a string literal: group 2 is its text. */
const call = (fns: string) =>
  new RegExp(
    `\\b(?:${fns})(?:\\.(?:concurrent|serial|only|skip|todo|failing|if\\([^)]*\\)|skipIf\\([^)]*\\)|todoIf\\([^)]*\\)|each\\([^)]*\\)))*\\s*\\(\\s*(["'\`])((?:\\\\.|(?!\\1).)*)\\1`,
  );
const TEST_CALL = call("test|it");
const DESCRIBE_CALL = call("describe|suite");

const unescaped = (s: string) => s.replace(/\\(.)/g, "$1");
const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The titles of the describe blocks around `line` of `file`, outermost first: going up, each line
 * indented less than the last is the start of the block around it, a describe( call or not
 * (as formatted code has it).
 */
function describePath(file: string, line: number): string[] {
  const lines = sourceLines(file);
  const path: string[] = [];
  let indent = indentOf(lines[line - 1] ?? "");
  for (let i = Math.min(line, lines.length) - 2; i >= 0 && indent > 0; i--) {
    const l = lines[i]!;
    if (l.trim() === "" || indentOf(l) >= indent) continue;
    indent = indentOf(l);
    const m = DESCRIBE_CALL.exec(l);
    if (m) path.unshift(unescaped(m[2]!));
  }
  return path;
}

/** The test whose body holds `line` of `file`: the nearest test( or it( call above it. */
function enclosingTest(file: string, line: number): { name: string; line: number } | undefined {
  const lines = sourceLines(file);
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const m = TEST_CALL.exec(lines[i]!);
    if (m) return { name: unescaped(m[2]!), line: i + 1 };
  }
  return undefined;
}

/** The outermost frame of the stack in the test file: `file:line`. */
function testFrame(stack: string): { file: string; line: number } | undefined {
  const main = mainFile();
  let found: { file: string; line: number } | undefined;
  // Node writes an ES module's frames as file:// URLs.
  for (const m of stack.matchAll(/\(?(?:file:\/\/)?((?:\/|[A-Za-z]:)[^():\s]+):(\d+):\d+\)?/g)) {
    if (m[1] === main) found = { file: m[1], line: Number(m[2]) };
  }
  return found;
}

/** The scope of a wrapped test's body (wrap-test.ts). */
export interface TestScope {
  file: string;
  name: string;
  /** Where the test( call that registered it is (0: not known). */
  line: number;
  run?: TestRun;
}

export const scopes = new AsyncLocalStorage<TestScope>();

/** Where a test is, from the innermost of: a wrapped test's scope, the runner, the stack. */
function locate(stack: string): (TestWhere & { scope?: TestScope }) | undefined {
  const scope = scopes.getStore();
  if (scope) return { file: scope.file, title: scope.name, path: describePath(scope.file, scope.line), line: scope.line, scope };
  const told = runner().current?.();
  if (told) return { file: told.file, title: told.name, path: [], line: 0, ...(told.id ? { id: told.id } : {}) };
  const frame = testFrame(stack);
  if (!frame) return undefined;
  const t = enclosingTest(frame.file, frame.line);
  const line = t?.line ?? frame.line;
  return { file: frame.file, title: runner().caseTitle?.() ?? t?.name ?? "", path: describePath(frame.file, line), line };
}

/**
 * The test the caller runs in, given the stack taken synchronously at the call (an await loses
 * the caller's frames). `register`: hook the test's end (launch does; the hooks must be set while
 * the test's own code runs).
 */
export function testRunAt(stack: string, register = false): TestRun | undefined {
  const at = locate(stack);
  if (!at) return undefined;
  if (at.scope?.run) return at.scope.run;
  let run = runs.get(keyOf(at));
  if (run) return run;
  run = new TestRun(at);
  if (!register) return run;
  runs.set(run.key, run);
  const r = run;
  // The runner's hook also ends a wrapped test's run that timed out (its body never settles).
  r.hooked = runner().afterTest((failed, why) => r.end(failed, why));
  r.deferred = r.hooked && runner().tellsOutcome;
  if (at.scope) {
    at.scope.run = r;
    r.hooked = r.deferred = true;
  }
  return run;
}

/** Whether any test of this process has launched a terminal and not ended yet. */
export function anyRuns(): boolean {
  return runs.size > 0;
}

/** The run an assertion at `stack` belongs to, if a launch registered it. */
export function registeredRunAt(stack: string): TestRun | undefined {
  const at = locate(stack);
  if (at?.scope) return at.scope.run;
  if (!at) return runs.size === 1 ? [...runs.values()][0] : undefined;
  return runs.get(keyOf(at));
}
