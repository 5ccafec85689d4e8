// One session's stream without a PTY: the test plays the pty worker (its reads, with what its tap
// found in them) and the program's terminal (a source that pauses and resumes), against the real
// log, tap facts and screen worker.
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nonPlainEnd } from "../terminal/fast-forward.ts";
import { Timers } from "../platform/timers.ts";
import { ScreenPool } from "../terminal/screen-pool.ts";
import { VtTap } from "../terminal/vt-tap.ts";
import { MAX_SCREEN_LAG, Pipeline, type PipelineOptions, type StreamSource } from "./pipeline.ts";
import type { SessionEvent } from "./stream.ts";

const pool = new ScreenPool(new Timers(), 1, 0);
afterAll(() => pool.close());
let dir: string;
const streams: Stream[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** The terminal a program writes through: what the pipeline asked of it. */
class Terminal implements StreamSource {
  outputPaused = false;
  pauses = 0;
  readonly resumed = Promise.withResolvers<void>();
  readonly replies: string[] = [];
  pauseOutput(): void {
    this.outputPaused = true;
    this.pauses++;
  }
  resumeOutput(): void {
    this.outputPaused = false;
    this.resumed.resolve();
  }
  write(data: string): void {
    this.replies.push(data);
  }
  wantText(): void {}
}

/** A pipeline and what its owner does with it, as session.ts does: a run attached, or a restored stream's screen fed. */
class Stream extends Pipeline {
  readonly terminal = new Terminal();
  /** The tap the run's pty worker runs over its output. */
  readonly reader = new VtTap();

  constructor(o: Partial<PipelineOptions> = {}) {
    super({ owner: { name: "p" }, logPath: join(dir, "p.log"), size: { rows: 3, cols: 20 }, scrollback: 2, pool, ...o });
    streams.push(this);
    if (o.restored) {
      // As Session.restore: a restored stream's screen is fed from its log now.
      this.view.pump();
    } else {
      this.output.create();
      this.attach(this.terminal, null);
    }
  }

  /** A read of the program's output, as its pty worker hands it on (its file written first). */
  print(text: string | Uint8Array): void {
    const data = typeof text === "string" ? Buffer.from(text) : text;
    writeFileSync(this.logPath, data, { flag: "a" });
    this.feed({ data, tap: this.reader.feed(data), nonPlain: nonPlainEnd(data, this.output.end) });
  }
}

const fresh = () => (dir = mkdtempSync(join(tmpdir(), "termd-pipeline-")));

test("a read goes tap, log, screen: its facts and its events come before its output event, and the screen shows it", async () => {
  fresh();
  const s = new Stream();
  const seen: string[] = [];
  s.on((e: SessionEvent) => {
    if (e.type === "output") seen.push(`output, title ${JSON.stringify(s.tap.title)}`);
    else if (e.type !== "screen") seen.push(e.type);
  });
  s.print("\x1b]2;the title\x07\x07hello");
  expect(seen).toEqual(["title", "bell", 'output, title "the title"']);
  expect(Buffer.from(s.readOutput(0, 100)).toString()).toBe("\x1b]2;the title\x07\x07hello");
  const snap = await s.snapshot();
  expect(snap.lines[0]).toBe("hello");
  expect(snap.title).toBe("the title");
});

test("the screen's answer to a query goes to the program's terminal", async () => {
  fresh();
  const s = new Stream();
  s.print("ab\x1b[6n");
  await s.snapshot();
  expect(s.terminal.replies).toEqual(["\x1b[1;3R"]);
});

test(`a screen more than MAX_SCREEN_LAG (${MAX_SCREEN_LAG} bytes) behind stops the program's output, which goes on once it caught up`, async () => {
  fresh();
  const s = new Stream();
  // Coloured lines: fast-forward cannot skip them, so they count as lag.
  const line = Buffer.from("\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m text\r\n");
  const flood = Buffer.concat(Array.from({ length: Math.ceil((2 * MAX_SCREEN_LAG) / line.length) }, () => line));
  s.print(flood);
  expect(s.terminal.outputPaused).toBe(true);
  await s.terminal.resumed.promise;
  expect(s.terminal.outputPaused).toBe(false);
  expect(s.terminal.pauses).toBe(1);
  expect((await s.snapshot()).lines[1]).toBe("red and bold text");
});

test("a restored stream reads its log: output, the tap's facts from its tail, and the screen rebuilt from it", async () => {
  fresh();
  writeFileSync(join(dir, "p.log"), "\x1b]2;before\x07one\r\ntwo\r\nthree");
  const s = new Stream({ restored: { lost: false } });
  expect(s.output.end).toBe(26);
  expect(s.tap.title).toBe("before");
  const snap = await s.snapshot();
  expect(snap.lines).toEqual(["one", "two", "three"]);
});

test("a lost stream's screen is rebuilt from the log's last rows and scrollback only", async () => {
  fresh();
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
  writeFileSync(join(dir, "p.log"), lines.join("\r\n"));
  const s = new Stream({ restored: { lost: true } });
  const snap = await s.snapshot("text", 10);
  // 3 rows and 2 lines of scrollback: nothing older was replayed.
  expect(snap.scrollback_total).toBe(2);
  expect(snap.lines).toEqual(["line 45", "line 46", "line 47", "line 48", "line 49"]);
});

test("a new run's tap goes on as the last run's ended it (its title stack too); with output that tap never read, from the facts here", async () => {
  fresh();
  const s = new Stream();
  // A pushed title: only a pty worker's tap keeps the stack, the facts here do not.
  s.print("\x1b]2;first\x07\x1b[22t");
  const last = s.reader.save();
  await s.ended(last);
  expect(s.runSetup().tap).toEqual(last);
  // Output after the run's end as that tap knows it: its worker died before it said more.
  s.print("more");
  const next = s.runSetup(Buffer.from("[restarted]"));
  expect(next).toMatchObject({ at: s.output.end, log: s.logPath, prelude: Buffer.from("[restarted]"), text: false });
  expect(next.tap).toMatchObject({ end: s.output.end, title: "first", titleStack: [] });
});

test("a run whose log cannot be opened fails with SPAWN_FAILED", () => {
  fresh();
  const s = new Stream({ logPath: join(dir, "gone", "p.log"), restored: { lost: false } });
  expect(() => s.runSetup()).toThrow(
    expect.objectContaining({ code: "SPAWN_FAILED", message: expect.stringContaining("session p's log") }),
  );
});

test("a new size goes to the screen before the program's terminal, then is told; the same size again is nothing", () => {
  fresh();
  const s = new Stream();
  const seen: string[] = [];
  s.on((e) => {
    if (e.type === "resize") seen.push(`told ${e.size.cols}`);
  });
  s.resize({ rows: 3, cols: 30 }, () => seen.push(`terminal, the screen at ${s.size.cols}`));
  s.resize({ rows: 3, cols: 30 }, () => seen.push("terminal again"));
  expect(seen).toEqual(["terminal, the screen at 30", "told 30"]);
});

test("disposing runs what was to go with the stream, and a snapshot still waiting answers SESSION_NOT_FOUND", async () => {
  fresh();
  const s = new Stream();
  let released = 0;
  s.onDispose(() => released++);
  s.print("hello");
  const snap = s.snapshot();
  s.dispose();
  expect(released).toBe(1);
  expect(s.closed).toBe(true);
  await expect(snap).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
});
