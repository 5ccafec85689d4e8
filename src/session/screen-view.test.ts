import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Timers } from "../platform/timers.ts";
import { ScreenPool } from "../terminal/screen-pool.ts";
import { nonPlainEnd } from "../terminal/fast-forward.ts";
import { OutputLog } from "./output-log.ts";
import { ScreenView } from "./screen-view.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-screen-view-test-"));
// One worker, never parking: the real screen, as a session's, without a daemon.
const pool = new ScreenPool(new Timers(), 1, 0);
const open: ScreenView[] = [];
afterEach(() => {
  for (const view of open.splice(0)) view.dispose();
});
afterAll(() => {
  pool.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** A real log in the temp dir and a view of it; `write` is what a session's program output does. */
function screen(rows = 4, cols = 20, before = "") {
  const log = new OutputLog(join(dir, `${++n}.log`), `s${n}`);
  log.create();
  if (before) log.append(Buffer.from(before), nonPlainEnd(Buffer.from(before), 0));
  const replies: string[] = [];
  let changes = 0;
  const view = new ScreenView({
    size: { rows, cols },
    scrollback: 10,
    version: "termd(test)",
    log,
    pool,
    answeredUpTo: log.end,
    onChange: () => changes++,
    onProgress: () => {},
    onReply: (data) => replies.push(data),
  });
  open.push(view);
  const write = (text: string) => {
    log.append(Buffer.from(text), nonPlainEnd(Buffer.from(text), log.end));
    view.pump();
  };
  return { log, view, replies, write, changes: () => changes };
}

describe("a screen view", () => {
  test("is not current until the worker has parsed every byte written; then its mirror shows them", async () => {
    const { view, write, changes } = screen();
    write("hello\r\nworld");
    expect(view.current).toBe(false);
    await view.sync();
    expect(view.current).toBe(true);
    expect(view.state.lines).toEqual(["hello", "world", "", ""]);
    expect(view.state.cursor).toMatchObject({ row: 1, col: 5 });
    expect(view.text()).toMatchObject({ lines: ["hello", "world", "", ""], size: { rows: 4, cols: 20 }, seq: view.seq });
    expect(changes()).toBeGreaterThan(0);
  });

  test("hands out the rows changed since a seq; a seq it never reached gets every row, marked full", async () => {
    const { view, write } = screen();
    write("a\r\nb");
    await view.sync();
    const seq = view.seq;
    write("\x1b[2;1Hc");
    await view.sync();
    expect(view.seq).toBeGreaterThan(seq);
    expect(view.changesSince(seq)).toEqual({ changed: [{ row: 1, text: "c" }], full: false });
    expect(view.changesSince(view.seq)).toEqual({ changed: [], full: false });
    expect(view.changesSince(view.seq + 1)).toEqual({
      changed: ["a", "c", "", ""].map((text, row) => ({ row, text })),
      full: true,
    });
  });

  test("a resize is on the mirror once sync resolves, and counts as a change of every row", async () => {
    const { view, write } = screen();
    write("x");
    await view.sync();
    const seq = view.seq;
    view.resize({ rows: 3, cols: 10 });
    expect(view.size).toEqual({ rows: 3, cols: 10 });
    await view.sync();
    expect(view.state.size).toEqual({ rows: 3, cols: 10 });
    expect(view.state.lines).toEqual(["x", "", ""]);
    expect(view.changesSince(seq).changed.map((c) => c.row)).toEqual([0, 1, 2]);
  });

  test("answers a query once: not for output an earlier screen answered, nor again when a replaced worker rebuilds it", async () => {
    // The log already held a query (a restored session's): no reply for it.
    const { view, write, replies } = screen(4, 20, "\x1b[6n");
    write("ab\x1b[6n");
    await view.sync();
    expect(replies).toEqual(["\x1b[1;3R"]);
    const seq = view.seq;
    pool.restart(0);
    await view.sync();
    expect(replies).toEqual(["\x1b[1;3R"]);
    expect(view.state.lines[0]).toBe("ab");
    // Its seq never goes back, so a reader's since_seq stays meaningful.
    expect(view.seq).toBeGreaterThanOrEqual(seq);
    write("\x1b[6n");
    await view.sync();
    expect(replies).toEqual(["\x1b[1;3R", "\x1b[1;3R"]);
  });

  test("far behind on plain text, it shows the same screen and scrollback as if it had parsed every line", async () => {
    const { view, write } = screen(4, 20);
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i}`);
    write(lines.join("\r\n"));
    await view.sync();
    expect(view.state.lines).toEqual(lines.slice(-4));
    const withScrollback = await view.snapshot("text", 10);
    expect(withScrollback.lines).toEqual(lines.slice(-14));
    expect(withScrollback.offset).toBe(Buffer.byteLength(lines.join("\r\n")));
  });

  test("a pending sync resolves when the view is disposed, and a disposed view holds no one up", async () => {
    const { view, write } = screen();
    write("pending");
    const synced = view.sync();
    view.dispose();
    await synced;
    expect(view.current).toBe(true);
    await view.sync();
  });
});
