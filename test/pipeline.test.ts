// The output pipeline under load: screens in worker threads, backpressure on a program that
// out-writes its screen, waits at scale, bounded input. Each checks an outcome, never a speed
// (speed is scripts/bench/'s job).
import { expect, test } from "bun:test";
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { Screen } from "../src/terminal/screen.ts";
import { TestDaemon } from "./harness.ts";

const FLOOD = join(import.meta.dir, "fixtures", "colour-flood.py");
const WAVES = join(import.meta.dir, "fixtures", "waves.py");

/** The screen a full parse of the session's whole log gives, in the test's own thread. */
function fullParse(d: TestDaemon, id: string, rows: number, cols: number) {
  const screen = new Screen({ rows, cols, scrollback: 1000, onReply: () => {} });
  const fd = openSync(join(d.stateDir, "logs", `${id}.log`), "r");
  const buf = new Uint8Array(1024 * 1024);
  try {
    for (let at = 0; ; ) {
      const n = readSync(fd, buf, 0, buf.length, at);
      if (n <= 0) break;
      screen.writeSync(buf.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  const snap = screen.snapshot("ansi");
  screen.dispose();
  return { lines: snap.lines, cursor: snap.cursor, ansi: snap.ansi };
}

async function finalScreen(c: Client, id: string) {
  const snap = await c.call("session.screen", { session: id, format: "ansi" });
  return { lines: snap.lines, cursor: snap.cursor, ansi: snap.ansi };
}

test("a 100 MB colour-redraw flood: the screen is never far behind, and ends exactly as a full parse of the log", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const total = 100 * 1024 * 1024;
  const s = await c.call("session.create", { command: ["python3", FLOOD, "24", "80", String(total)], rows: 24, cols: 80 });
  // While it runs, the screen stays within the lag bound (1 MiB) plus what the PTY already held.
  let samples = 0;
  for (;;) {
    const info = await c.call("session.info", { session: s.id });
    if (info.state !== "running") break;
    const snap = await c.call("session.screen", { session: s.id });
    const behind = (await c.call("session.info", { session: s.id })).bytes_out - snap.offset;
    expect(behind).toBeLessThan(4 * 1024 * 1024);
    samples++;
    await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 200 });
  }
  expect(samples).toBeGreaterThan(0);
  const end = await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 120_000 });
  expect(end).toMatchObject({ outcome: "exited", exit_code: 0 });
  const info = await c.call("session.info", { session: s.id });
  expect(info.bytes_out).toBeGreaterThan(total);
  const got = await finalScreen(c, s.id);
  expect(got.lines[0]).toStartWith("DONE ");
  expect(got).toEqual(fullParse(d, s.id, 24, 80));
}, 240_000);

test("a screen worker that dies is replaced: the screens it held are rebuilt from their logs; running sessions' screens are their pty workers'", async () => {
  // Sessions of an earlier daemon have their screens in a screen worker.
  await using first = await TestDaemon.start();
  const c1 = await first.client();
  const s = await c1.call("session.create", { command: ["python3", FLOOD, "30", "100", String(2 * 1024 * 1024)], rows: 30, cols: 100 });
  expect((await c1.call("session.wait", { session: s.id, exit: true, timeout_ms: 120_000 })).outcome).toBe("exited");
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  await using d = await TestDaemon.start({ socket: first.socket, stateDir: first.stateDir, args: ["--screen-workers", "1"] });
  const c = await d.client();
  const before = await finalScreen(c, s.id);
  expect(before.lines[0]).toStartWith("DONE ");
  const quiet = await c.call("session.create", { command: ["cat"], rows: 10, cols: 40 });
  const screens = await c.call("system.screens");
  expect(screens.workers).toMatchObject([{ index: 0, screens: 1, restarts: 0 }]);
  expect(screens.pty_workers.reduce((n, w) => n + w.screens, 0)).toBe(1);
  expect(await c.call("system.screens", { restart: 0 })).toMatchObject({ restarted: 0 });
  expect(await finalScreen(c, s.id)).toEqual(before);
  // The running session never noticed.
  await c.call("session.input", { session: quiet.id, text: "still here\r" });
  expect((await c.call("session.wait", { session: quiet.id, text: "still here", timeout_ms: 20_000 })).outcome).toBe("matched");
  expect((await c.call("system.screens")).workers).toMatchObject([{ index: 0, screens: 1, restarts: 1 }]);
  await expect(c.call("system.screens", { restart: 5 })).rejects.toMatchObject({ name: "INVALID_PARAMS" });
}, 240_000);

test("5,000 waits on one session are all answered, each with its own match", async () => {
  await using d = await TestDaemon.start();
  const clients = await Promise.all(Array.from({ length: 5 }, () => d.client()));
  const c = clients[0]!;
  const waves = 5,
    size = 1000;
  const s = await c.call("session.create", { command: ["python3", WAVES, String(size)], rows: 60, cols: 200 });
  expect((await c.call("session.wait", { session: s.id, text: "ready", timeout_ms: 20_000 })).outcome).toBe("matched");
  const waits = Array.from({ length: waves * size }, (_, i) =>
    clients[i % clients.length]!.call("session.wait", { session: s.id, text: `k${i}|`, timeout_ms: 120_000 }),
  );
  // All of them pending before the first wave: the daemon still answers at once.
  expect((await c.call("system.ping")).pid).toBeGreaterThan(0);
  for (let n = 0; n < waves; n++) {
    await c.call("session.input", { session: s.id, text: `${n}\n` });
    await Promise.all(waits.slice(n * size, (n + 1) * size));
  }
  const results = await Promise.all(waits);
  results.forEach((r, i) => {
    expect(r.outcome).toBe("matched");
    expect(r.match?.text).toBe(`k${i}|`);
    const line = r.screen.lines[r.match!.row]!;
    expect(line.slice(r.match!.col, r.match!.col + `k${i}|`.length)).toBe(`k${i}|`);
  });
}, 120_000);

test("input to a program that never reads: INPUT_NOT_READ after the call's timeout, and the daemon serves on", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // Raw mode: the line discipline takes only a few KiB before writes to the terminal block.
  const script = "import sys, time, tty; tty.setraw(0); print('raw', flush=True); time.sleep(600)";
  const s = await c.call("session.create", { command: ["python3", "-c", script] });
  expect((await c.call("session.wait", { session: s.id, text: "raw", timeout_ms: 20_000 })).outcome).toBe("matched");
  const big = Buffer.alloc(4 * 1024 * 1024, "x").toString("base64");
  const err = await c.call("session.input", { session: s.id, base64: big, timeout_ms: 300 }).catch((e) => e);
  expect(err).toMatchObject({ name: "INPUT_NOT_READ" });
  expect(err.message).toContain("not reading its input");
  expect(err.details.unread_bytes).toBeGreaterThan(0);
  expect(err.details.unread_bytes).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
  // Small input keeps being refused while the backlog stands, and nothing else is held up.
  await expect(c.call("session.input", { session: s.id, base64: big, timeout_ms: 50 })).rejects.toMatchObject({ name: "INPUT_NOT_READ" });
  const other = await c.call("session.create", { command: ["cat"] });
  await c.call("session.input", { session: other.id, text: "echoed\r" });
  expect((await c.call("session.wait", { session: other.id, text: "echoed" })).outcome).toBe("matched");
  expect((await c.call("session.stop", { session: s.id, grace_ms: 200 })).state).toBe("stopped");
}, 60_000);

test("an idle screen is parked and comes back exactly, without answering a query twice", async () => {
  await using d = await TestDaemon.start({ args: ["--screen-park", "100"] });
  const c = await d.client();
  const s = await c.call("session.create", {
    command: ["python3", join(import.meta.dir, "fixtures", "query-once.py")],
    rows: 12,
    cols: 50,
  });
  expect((await c.call("session.wait", { session: s.id, text: "reply ok", timeout_ms: 20_000 })).outcome).toBe("matched");
  const parked = async () => {
    const { workers, pty_workers } = await c.call("system.screens");
    return [...workers, ...pty_workers].reduce((n, w) => n + w.parked, 0);
  };
  for (let i = 0; (await parked()) === 0; i++) {
    expect(i).toBeLessThan(200);
    await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 25 });
  }
  // Text reads and waits come from the session's mirror: the screen stays parked.
  expect((await c.call("session.screen", { session: s.id })).lines[0]).toBe("reply ok");
  expect((await c.call("session.wait", { session: s.id, text: "reply", timeout_ms: 1000 })).outcome).toBe("matched");
  expect(await parked()).toBe(1);
  // A styled snapshot brings it back, rebuilt from the log.
  expect(await finalScreen(c, s.id)).toEqual(fullParse(d, s.id, 12, 50));
  // Parked again, then output brings it back: the query in the replayed log is not answered again.
  for (let i = 0; (await parked()) === 0; i++) {
    expect(i).toBeLessThan(200);
    await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 25 });
  }
  await c.call("session.input", { session: s.id, text: "hello\r" });
  const w = await c.call("session.wait", { session: s.id, regex: "line .*, extra .*", timeout_ms: 20_000 });
  expect(w.match?.text).toBe("line b'hello', extra b''");
  // A resize of a parked screen: it comes back at its old size and then reflows, as a live one would.
  for (let i = 0; (await parked()) === 0; i++) {
    expect(i).toBeLessThan(200);
    await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 25 });
  }
  await c.call("session.resize", { session: s.id, rows: 8, cols: 30 });
  const snap = await c.call("session.screen", { session: s.id });
  expect(snap.size).toEqual({ rows: 8, cols: 30 });
  expect(snap.lines.join("\n")).toContain("line b'hello', extra b''");
}, 60_000);

test("a flood on the same pty worker as a quiet session: the quiet one's echo and screen still follow its input", async () => {
  await using d = await TestDaemon.start({ args: ["--pty-workers", "1"] });
  const c = await d.client();
  const flood = await c.call("session.create", { command: ["sh", "-c", "while :; do cat /etc/services; done"] });
  const quiet = await c.call("session.create", { command: ["cat"] });
  for (let i = 0; i < 5; i++) {
    await c.call("session.input", { session: quiet.id, text: `quiet-${i}\r` });
    expect((await c.call("session.wait", { session: quiet.id, text: `quiet-${i}`, timeout_ms: 10_000 })).outcome).toBe("matched");
    expect((await c.call("session.screen", { session: quiet.id })).lines.join("\n")).toContain(`quiet-${i}`);
    expect((await c.call("session.info", { session: flood.id })).state).toBe("running");
  }
  expect((await c.call("session.info", { session: flood.id })).bytes_out).toBeGreaterThan(0);
});
