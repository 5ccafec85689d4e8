import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionState, WaitInput, WaitResult } from "../protocol/schemas.ts";
import { daemonParts } from "../../test/unit-fixtures.ts";
import { Pipeline } from "./pipeline.ts";
import { ShellCommands } from "./shell-commands.ts";
import type { ProgramStream } from "./stream.ts";
import { baselineOf } from "./baseline.ts";
import { compileRegex } from "./regex-cache.ts";
import { Waits } from "./waits.ts";
import { VtTap } from "../terminal/vt-tap.ts";
import { nonPlainEnd } from "../terminal/fast-forward.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-wait-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { pool, answers } = daemonParts();

/**
 * A session's real stream (log, vt tap, screen in a worker) with a scripted program in place of a
 * PTY: `print` is the program's output, `exit` its end; input is only recorded.
 */
class Program implements ProgramStream {
  readonly stream: Pipeline;
  readonly command = ["prog"];
  readonly cwd = dir;
  state: SessionState = "running";
  running = true;
  readonly pid = null;
  exitCode: number | null = null;
  readonly signal = null;
  readonly shellIntegration = null;
  readonly hooksDir = null;
  readonly typed: string[] = [];

  constructor(readonly name: string) {
    this.stream = new Pipeline({ owner: this, logPath: join(dir, `${name}.log`), size: { rows: 4, cols: 30 }, scrollback: 10, pool });
    this.stream.output.create();
  }

  /** The tap a pty worker would run over the program's output. */
  private readonly reader = new VtTap();

  print(text: string): void {
    const data = Buffer.from(text);
    this.stream.feed({ data, tap: this.reader.feed(data), nonPlain: nonPlainEnd(data, this.stream.output.end) });
  }

  writeInput(data: string | Uint8Array): number {
    this.stream.noteInput();
    this.typed.push(String(data));
    return data.length;
  }

  input(data: string | Uint8Array): Promise<number> {
    return Promise.resolve(this.writeInput(data));
  }

  exit(code: number): void {
    this.running = false;
    this.exitCode = code;
    this.state = code === 0 ? "exited" : "failed";
    this.stream.emit({ type: "state", state: this.state });
    this.stream.emit({ type: "exit", exit_code: code, signal: null });
  }

  dispose(): void {
    this.stream.dispose();
  }
}

let made: { p: Program; waits: Waits; commands: ShellCommands }[] = [];
afterEach(() => {
  for (const { p, waits, commands } of made) {
    waits.dispose();
    commands.dispose();
    p.dispose();
  }
  made = [];
});

let n = 0;
/** `shell`: the shell's first-prompt time, and whether an earlier daemon started it (ShellCommands'). */
async function program(shown = "", shell: ConstructorParameters<typeof ShellCommands>[1] = {}) {
  const p = new Program(`w${++n}`);
  const commands = new ShellCommands(p.stream, shell);
  const waits = new Waits(p, commands, answers);
  made.push({ p, waits, commands });
  if (shown) p.print(shown);
  await p.stream.view.sync();
  const wait = (
    w: Omit<WaitInput, "session" | "timeout_ms"> & { timeout_ms?: number },
    abort = new AbortController().signal,
  ): Promise<WaitResult> => waits.wait({ session: p.name, timeout_ms: 60_000, ...w }, abort);
  return { p, waits, wait };
}

/** Whether a promise has settled by now (after the microtasks queued so far). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await Promise.resolve();
  return done;
}

describe("session.wait", () => {
  test("text already on the screen matches at once, with where it is", async () => {
    const { wait } = await program("one\r\ntwo ready");
    const r = await wait({ text: "ready" });
    expect(r.outcome).toBe("matched");
    expect(r.match).toEqual({ row: 1, col: 4, text: "ready" });
    expect(r.screen.lines.slice(0, 2)).toEqual(["one", "two ready"]);
  });

  test("text that comes later matches once the screen shows it; the wait is then forgotten", async () => {
    const { p, waits, wait } = await program("loading");
    const r = wait({ text: "done" });
    expect(waits.size).toBe(1);
    await p.stream.view.sync();
    expect(await settled(r)).toBe(false);
    p.print("\r\nall done");
    expect(await r).toMatchObject({ outcome: "matched", match: { row: 1, col: 4, text: "done" } });
    expect(waits.size).toBe(0);
  });

  test("a regex matches in RE2 syntax; lookaround and backreferences are refused with a reason", async () => {
    const { p, wait } = await program();
    const r = wait({ regex: "v(\\d+)\\.(\\d+)" });
    p.print("version v12.3 ok");
    expect((await r).match).toEqual({ row: 0, col: 8, text: "v12.3" });
    expect(() => compileRegex("(a)\\1")).toThrow(
      expect.objectContaining({ code: "BAD_ARGUMENT", message: expect.stringContaining("no backreferences") }),
    );
    expect(() => compileRegex("a(?=b)")).toThrow(
      expect.objectContaining({ code: "BAD_ARGUMENT", message: expect.stringContaining("no lookaround") }),
    );
    expect(compileRegex("^b").match("ab")).toBeNull();
  });

  test("the timeout and the caller's abort are outcomes, with the screen, not errors", async () => {
    const { waits, wait } = await program("still here");
    const timedOut = await wait({ text: "never", timeout_ms: 1 });
    expect(timedOut.outcome).toBe("timeout");
    expect(timedOut.screen.lines[0]).toBe("still here");
    const abort = new AbortController();
    const aborted = wait({ text: "never" }, abort.signal);
    abort.abort();
    expect((await aborted).outcome).toBe("timeout");
    // A caller already gone never registers.
    expect((await wait({ text: "never" }, AbortSignal.abort())).outcome).toBe("timeout");
    expect(waits.size).toBe(0);
  });

  test("the program's end answers a wait it can no longer satisfy, with its exit status", async () => {
    const { p, wait } = await program();
    const r = wait({ text: "never" });
    p.exit(3);
    expect(await r).toMatchObject({ outcome: "exited", exit_code: 3, signal: null });
  });

  test("gone, changed_from and activity answer what they name", async () => {
    const { p, wait } = await program("working...");
    const gone = wait({ gone: "working" });
    const changed = wait({ changed_from: p.stream.view.state.hash });
    const activity = wait({ activity: true });
    // A bell: output that changes nothing on the screen answers only the activity wait.
    p.print("\x07");
    expect((await activity).outcome).toBe("activity");
    await p.stream.view.sync();
    expect(await settled(gone)).toBe(false);
    expect(await settled(changed)).toBe(false);
    p.print("\r\x1b[2Kfinished");
    expect((await gone).outcome).toBe("matched");
    expect((await changed).outcome).toBe("changed");
  });

  test("settle_ms answers once the program has been quiet that long with the screen current", async () => {
    const { p, wait } = await program();
    p.print("drawn");
    const r = await wait({ settle_ms: 1 });
    expect(r.outcome).toBe("settled");
    expect(r.screen.lines[0]).toBe("drawn");
  });

  test("fresh: a match already on the screen does not count, a new one at another place does", async () => {
    const { p, wait } = await program("$ ");
    const r = wait({ text: "$ ", fresh: "call" });
    await p.stream.view.sync();
    expect(await settled(r)).toBe(false);
    p.print("ls\r\nfile\r\n$ ");
    expect((await r).match).toEqual({ row: 2, col: 0, text: "$ " });
  });

  test('fresh: "input" counts from the screen before the last input, though the answer came before the wait', async () => {
    const { p, waits, wait } = await program("$ ");
    waits.beforeInput();
    p.writeInput("ls\r");
    p.print("ls\r\nfile\r\n$ ");
    await p.stream.view.sync();
    expect((await wait({ text: "$ ", fresh: "input" })).match).toEqual({ row: 2, col: 0, text: "$ " });
  });

  test("a prepared wait checks nothing until started, so the echo of its own input cannot answer it", async () => {
    const { p, waits } = await program("$ ");
    const w = { session: p.name, timeout_ms: 60_000, text: "ok" };
    const prepared = waits.prepare(w, new AbortController().signal, baselineOf(p, w));
    p.print("echo ok");
    await p.stream.view.sync();
    expect(await settled(prepared.result)).toBe(false);
    prepared.start();
    expect((await prepared.result).match).toEqual({ row: 0, col: 7, text: "ok" });
    const cancelled = waits.prepare(w, new AbortController().signal, baselineOf(p, w));
    cancelled.cancel();
    expect((await cancelled.result).outcome).toBe("timeout");
    expect(waits.size).toBe(0);
  });

  test("many waits for the same text are answered by one screen update", async () => {
    const { p, waits, wait } = await program();
    const all = Array.from({ length: 50 }, () => wait({ text: "go" }));
    expect(waits.size).toBe(50);
    p.print("go");
    const results = await Promise.all(all);
    expect(results.every((r) => r.outcome === "matched" && r.match?.col === 0)).toBe(true);
    expect(waits.size).toBe(0);
  });

  test("identical waits answer together, each caller alone on its own timeout or abort; distinct waits are not confused", async () => {
    const { p, waits, wait } = await program("start");
    const abort = new AbortController();
    const same = Array.from({ length: 200 }, (_, i) => wait({ text: "go" }, i % 50 === 0 ? abort.signal : undefined));
    const short = wait({ text: "go", timeout_ms: 1 });
    const texts = Array.from({ length: 20 }, (_, i) => wait({ text: `key${i}!` }));
    const regex = wait({ regex: "key1\\d!" });
    const gone = wait({ gone: "start" });
    expect(waits.size).toBe(200 + 1 + 20 + 2);
    expect((await short).outcome).toBe("timeout");
    abort.abort();
    // One update at a time: each distinct wait is answered by the line that names it, and only then.
    for (const i of [3, 0, 12]) {
      p.print(`\r\nkey${i}!`);
      expect((await texts[i]!).match?.text).toBe(`key${i}!`);
    }
    expect((await regex).match?.text).toBe("key12!");
    expect(await settled(texts[1]!)).toBe(false);
    expect(await settled(gone)).toBe(false);
    p.print("\r\ngo");
    const results = await Promise.all(same);
    expect(results.filter((r) => r.outcome === "timeout")).toHaveLength(4);
    expect(results.filter((r) => r.outcome === "matched" && r.match?.text === "go" && r.match.row === 3)).toHaveLength(196);
    // A text that shows in a row that changed (not a new one) is found too.
    const late = wait({ text: "key7!" });
    const tiny = [wait({ text: "ok" }), wait({ text: "q" })];
    p.print("\x1b[1;1H\x1b[2Kkey7! ok q");
    expect((await late).match).toEqual({ row: 0, col: 0, text: "key7!" });
    expect((await Promise.all(tiny)).map((r) => r.match)).toEqual([
      { row: 0, col: 6, text: "ok" },
      { row: 0, col: 9, text: "q" },
    ]);
    expect((await texts[7]!).match).toEqual({ row: 0, col: 0, text: "key7!" });
    expect((await gone).outcome).toBe("matched");
    expect(waits.size).toBe(16);
  });

  test("command_done and prompt need a program that reports commands, and answer its OSC 133 marks", async () => {
    const { p, wait } = await program();
    expect(() => wait({ command_done: true })).toThrow(expect.objectContaining({ code: "BAD_ARGUMENT" }));
    p.print("\x1b]133;A\x07$ \x1b]133;B\x07");
    expect((await wait({ prompt: true, since: 0 })).outcome).toBe("prompt");
    const done = wait({ command_done: true, since: p.stream.output.end });
    p.print("make\r\n\x1b]133;C\x07built\r\n\x1b]133;D;2\x07\x1b]133;A\x07$ ");
    const r = await done;
    expect(r.outcome).toBe("command_done");
    expect(r.command).toMatchObject({ exit_code: 2, output: expect.stringContaining("built") });
  });

  test("prompt, from a shell that marked no prompt in its first-prompt time, answers timeout at once; one that marks them is waited for", async () => {
    // A shell that reports its commands (C, D) but draws its prompts unmarked: none will come marked.
    const { p, wait } = await program("", { firstPromptMs: 0 });
    p.print("\x1b]133;C\x07\x1b]133;D;0\x07$ ");
    await p.stream.view.sync();
    const r = await wait({ prompt: true, since: 0, timeout_ms: 24 * 3600 * 1000 });
    expect(r.outcome).toBe("timeout");
    expect(r.screen.lines[0]).toBe("$ ");
    // Once it marks one, a prompt wait waits for the next however old the shell is.
    p.print("\x1b]133;A\x07$ \x1b]133;B\x07");
    const next = wait({ prompt: true });
    p.print("ls\r\n\x1b]133;C\x07\x1b]133;D;0\x07");
    expect(await settled(next)).toBe(false);
    p.print("\x1b]133;A\x07$ \x1b]133;B\x07");
    expect((await next).outcome).toBe("prompt");
  });

  test("prompt, within the shell's first-prompt time, waits for its first prompt and answers timeout once the time is over", async () => {
    // (A D mark: the stand-in program says it reports commands, as a shell with termd's hooks does.)
    const { p, wait } = await program("\x1b]133;D;0\x07", { firstPromptMs: 60_000 });
    const first = wait({ prompt: true, since: 0 });
    expect(await settled(first)).toBe(false);
    p.print("\x1b]133;A\x07$ \x1b]133;B\x07");
    expect((await first).outcome).toBe("prompt");
    const short = await program("", { firstPromptMs: 1 });
    short.p.print("\x1b]133;D;0\x07");
    expect((await short.wait({ prompt: true, since: 0, timeout_ms: 24 * 3600 * 1000 })).outcome).toBe("timeout");
    // A shell an earlier daemon started (a handover): its marked prompts were not seen here, so it is waited for.
    const adopted = await program("\x1b]133;D;0\x07", { firstPromptMs: 0, adopted: true });
    const next = adopted.wait({ prompt: true });
    await adopted.p.stream.view.sync();
    expect(await settled(next)).toBe(false);
    adopted.p.print("\x1b]133;A\x07$ \x1b]133;B\x07");
    expect((await next).outcome).toBe("prompt");
  });
});
