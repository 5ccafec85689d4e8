// The console server dialect (docs/dialects.md, as context-pilot's console manager uses it): every
// example request of the console server's own document, sent as written on one persistent
// connection, answered in its shape; the log file at log_path gets every output byte; escapes in
// send; create without cwd runs in the server's cwd; kill is SIGTERM then SIGKILL after 100 ms;
// create on a running key replaces it; a client sees only console sessions; remove, stats; bad
// input; a client that goes away mid-request; `termd daemon --pid-file` and shutdown.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interpretEscapes } from "../../src/dialects/console.ts";
import { sharedDaemon, TestDaemon } from "../harness.ts";
import { Lines } from "../lines.ts";
import { eventually } from "../testing/subprocess.ts";

const shared = sharedDaemon();

/** Waits (no sleeping) until session `key` has ended. */
const ended = (key: string) => shared.c.call("session.wait", { session: key, exit: true, timeout_ms: 10_000 });

describe("the document's examples, as written, on one persistent connection", () => {
  test("ping, create, send, status, list", async () => {
    const c = await Lines.open(shared.d.socket);
    expect(await c.ask({ cmd: "ping" })).toEqual({ ok: true });

    // "log_path": "..." in the document stands for a path; here a temp file.
    const log = join(shared.dir, "c_1.log");
    const created = await c.ask({ cmd: "create", key: "c_1", command: "bash", log_path: log });
    expect(created).toEqual({ ok: true, pid: expect.any(Number) });
    expect(created.pid).toBeGreaterThan(0);

    // The document's line: {"cmd": "send", "key": "c_1", "input": "ls -la\\n"}: a backslash-n the server turns into a newline.
    c.write('{"cmd": "send", "key": "c_1", "input": "ls -la\\n"}\n');
    expect(await c.next()).toEqual({ ok: true });
    // The TUI polls the log file, and so does this: ls's output comes there. (Not the screen: the
    // listing of the daemon's cwd is longer than its 24 rows, and its first line scrolls off.)
    expect(await eventually(() => /total \d+/.test(readFileSync(log, "utf8")))).toBe(true);

    expect(await c.ask({ cmd: "status", key: "c_1" })).toEqual({ ok: true, status: "running" });
    const list = await c.ask({ cmd: "list" });
    expect(list.ok).toBe(true);
    expect(list.sessions).toContainEqual({ key: "c_1", pid: created.pid, status: "running", exit_code: null });

    // After a "TUI reload": a new connection sees the same session.
    c.close();
    const again = await Lines.open(shared.d.socket);
    expect(await again.ask({ cmd: "ping" })).toEqual({ ok: true });
    expect(await again.ask({ cmd: "status", key: "c_1" })).toEqual({ ok: true, status: "running" });
    expect(await again.ask({ cmd: "remove", key: "c_1", force: true })).toEqual({ ok: true });
    again.close();
  });
});

describe("commands", () => {
  test("log_path receives every output byte, identical to termd's own output record", async () => {
    const c = await Lines.open(shared.d.socket);
    const log = join(shared.dir, "nested", "seq.log");
    const r = await c.ask({
      cmd: "create",
      key: "seq",
      command: "seq 1 20000; printf 'caf\\303\\251 done\\n'",
      log_path: log,
      cwd: shared.dir,
    });
    expect(r.ok).toBe(true);
    await ended("seq");
    const all = await shared.c.call("session.output", { session: "seq", from: 0, max_bytes: 8 * 1024 * 1024 });
    expect(all.eof).toBe(true);
    expect(Buffer.compare(readFileSync(log), Buffer.from(all.base64, "base64"))).toBe(0);
    expect(readFileSync(log, "utf8")).toContain("20000\r\ncafé done");
    expect(await c.ask({ cmd: "status", key: "seq" })).toEqual({ ok: true, status: "exited(0)", exit_code: 0 });
    expect(await c.ask({ cmd: "remove", key: "seq" })).toEqual({ ok: true });
    c.close();
  });

  test("send interprets \\n \\r \\t \\e \\0 \\xHH and \\\\", async () => {
    expect([...interpretEscapes("a\\nb\\rc\\td\\e\\0\\x41\\x7f\\\\\\q\\x4")]).toEqual([...Buffer.from("a\nb\rc\td\x1b\0A\x7f\\\\q\\x4")]);
    expect(Buffer.from(interpretEscapes("é\\xff")).toString("hex")).toBe("c3a9ff");

    const c = await Lines.open(shared.d.socket);
    const log = join(shared.dir, "catv.log");
    expect((await c.ask({ cmd: "create", key: "catv", command: "cat -v", log_path: log })).ok).toBe(true);
    expect(await c.ask({ cmd: "send", key: "catv", input: "x\\e[1m\\x41\\x01y\\n" })).toEqual({ ok: true });
    // cat -v prints ESC as ^[ and 0x01 as ^A: the escapes reached the program as bytes.
    await shared.c.call("session.wait", { session: "catv", text: "x^[[1mA^Ay", timeout_ms: 10_000 });
    expect(await c.ask({ cmd: "kill", key: "catv" })).toEqual({ ok: true });
    // kill answers once the program is gone: the hangup that comes first ended cat.
    expect(await c.ask({ cmd: "status", key: "catv" })).toEqual({ ok: true, status: "exited(129)", exit_code: 129 });
    expect(readFileSync(log, "utf8")).toContain("x^[[1mA^Ay");
    expect(await c.ask({ cmd: "send", key: "catv", input: "more" })).toEqual({ ok: false, error: "Session 'catv' already exited" });
    c.close();
  });

  test("kill with force, remove, stats, and a key reused: a running session under it is replaced", async () => {
    const c = await Lines.open(shared.d.socket);
    const log = join(shared.dir, "k.log");
    expect((await c.ask({ cmd: "create", key: "k", command: "trap '' TERM; echo armed; exec sleep 100", log_path: log })).ok).toBe(true);
    await shared.c.call("session.wait", { session: "k", text: "armed", timeout_ms: 10_000 });
    // force: no grace, SIGKILL at once although the program ignores SIGTERM.
    expect(await c.ask({ cmd: "kill", key: "k", force: true })).toEqual({ ok: true });
    const st = await c.ask({ cmd: "status", key: "k" });
    expect(st.status).toMatch(/^exited\(\d+\)$/);
    expect(st.exit_code).toBe(137);

    // The server replaces what it had under a key, ended or running.
    const again = await c.ask({ cmd: "create", key: "k", command: "trap '' TERM HUP; echo first; exec sleep 100", log_path: log });
    expect(again).toEqual({ ok: true, pid: expect.any(Number) });
    await shared.c.call("session.wait", { session: "k", text: "first", timeout_ms: 10_000 });
    const replaced = await c.ask({ cmd: "create", key: "k", command: "echo second; exec cat", log_path: log });
    expect(replaced).toEqual({ ok: true, pid: expect.any(Number) });
    expect(replaced.pid).not.toBe(again.pid);
    await shared.c.call("session.wait", { session: "k", text: "second", timeout_ms: 10_000 });
    expect(await c.ask({ cmd: "status", key: "k" })).toEqual({ ok: true, status: "running" });
    expect((await c.ask({ cmd: "list" })).sessions.filter((s: { key: string }) => s.key === "k")).toEqual([
      { key: "k", pid: replaced.pid, status: "running", exit_code: null },
    ]);
    // The old program is gone (it ignored SIGTERM and SIGHUP: SIGKILL after 100 ms).
    expect(() => process.kill(again.pid, 0)).toThrow();

    const stats = await c.ask({ cmd: "stats" });
    expect(stats.ok).toBe(true);
    expect(stats.status).toMatch(/^sessions: \d+ \(running=\d+, exited=\d+\)/);

    expect(await c.ask({ cmd: "remove", key: "k" })).toEqual({ ok: true });
    expect(await c.ask({ cmd: "status", key: "k" })).toEqual({ ok: false, error: "Session 'k' not found" });
    // Removing what is not there is fine, as with the server.
    expect(await c.ask({ cmd: "remove", key: "k" })).toEqual({ ok: true });
    c.close();
  });
});

describe("as context-pilot relies on it", () => {
  test("create without cwd runs in the server's own working directory", async () => {
    const c = await Lines.open(shared.d.socket);
    expect((await c.ask({ cmd: "create", key: "where", command: "pwd; exec cat", log_path: join(shared.dir, "where.log") })).ok).toBe(true);
    // The test daemon runs in this process's working directory (its HOME is elsewhere).
    await shared.c.call("session.wait", {
      session: "where",
      regex: `^${process.cwd().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
      timeout_ms: 10_000,
    });
    expect(await c.ask({ cmd: "remove", key: "where", force: true })).toEqual({ ok: true });
    c.close();
  });

  test("kill is SIGTERM, then SIGKILL after 100 ms: it answers well within the client's 5 s read timeout", async () => {
    const c = await Lines.open(shared.d.socket);
    expect(
      (
        await c.ask({
          cmd: "create",
          key: "stubborn",
          command: "trap '' TERM HUP; echo armed; exec sleep 100",
          log_path: join(shared.dir, "stubborn.log"),
        })
      ).ok,
    ).toBe(true);
    await shared.c.call("session.wait", { session: "stubborn", text: "armed", timeout_ms: 10_000 });
    // The stop it asks for has the 100 ms grace, not the daemon's own (src/dialects/console.test.ts
    // checks the grace it passes; a clock here would fail on a loaded machine): SIGKILL ended it.
    expect(await c.ask({ cmd: "kill", key: "stubborn" })).toEqual({ ok: true });
    expect(await c.ask({ cmd: "status", key: "stubborn" })).toEqual({ ok: true, status: "exited(137)", exit_code: 137 });
    // A program that heeds SIGTERM ends by it (or by the SIGHUP termd sends beside it).
    expect(
      (await c.ask({ cmd: "create", key: "polite", command: "echo armed; exec sleep 100", log_path: join(shared.dir, "polite.log") })).ok,
    ).toBe(true);
    await shared.c.call("session.wait", { session: "polite", text: "armed", timeout_ms: 10_000 });
    expect(await c.ask({ cmd: "kill", key: "polite" })).toEqual({ ok: true });
    expect((await c.ask({ cmd: "status", key: "polite" })).status).toMatch(/^exited\((143|129)\)$/);
    for (const key of ["stubborn", "polite"]) await c.ask({ cmd: "remove", key });
    c.close();
  });

  test("a client sees only console sessions: list, status, send, kill and remove never reach another's", async () => {
    const other = await shared.c.call("session.create", { name: "not-consoles", command: ["cat"] });
    const c = await Lines.open(shared.d.socket);
    // After a reload context-pilot lists, then removes every key it does not know.
    const list = await c.ask({ cmd: "list" });
    expect(list.sessions.map((s: { key: string }) => s.key)).not.toContain("not-consoles");
    expect(await c.ask({ cmd: "status", key: "not-consoles" })).toEqual({ ok: false, error: "Session 'not-consoles' not found" });
    expect(await c.ask({ cmd: "send", key: "not-consoles", input: "x\n" })).toEqual({
      ok: false,
      error: "Session 'not-consoles' not found",
    });
    expect(await c.ask({ cmd: "kill", key: "not-consoles", force: true })).toEqual({
      ok: false,
      error: "Session 'not-consoles' not found",
    });
    expect(await c.ask({ cmd: "remove", key: "not-consoles", force: true })).toEqual({ ok: true });
    const taken = await c.ask({ cmd: "create", key: "not-consoles", command: "cat", log_path: join(shared.dir, "taken.log") });
    expect(taken.ok).toBe(false);
    const info = await shared.c.call("session.info", { session: "not-consoles" });
    expect(info).toMatchObject({ id: other.id, state: "running", bytes_out: 0 });
    await shared.c.call("session.remove", { session: other.id, force: true });
    c.close();
  });
});

describe("bad input gets the server's error shape", () => {
  test("invalid JSON, unknown command, missing fields, unknown key", async () => {
    const c = await Lines.open(shared.d.socket);
    // The first line picks the dialect; after it, even a line that is not JSON gets a console reply.
    expect(await c.ask({ cmd: "ping" })).toEqual({ ok: true });
    c.write("{not json\n");
    const bad = await c.next();
    expect(bad.ok).toBe(false);
    expect(bad.error).toStartWith("Invalid JSON");
    expect(await c.ask({ cmd: "frobnicate" })).toEqual({ ok: false, error: "Unknown command: frobnicate" });
    expect(await c.ask({ cmd: 7 })).toEqual({ ok: false, error: 'Invalid JSON: "cmd" must be a string' });
    expect(await c.ask({ cmd: "create", key: "x", command: "cat" })).toEqual({ ok: false, error: "Missing key, command, or log_path" });
    expect(await c.ask({ cmd: "send", input: "x" })).toEqual({ ok: false, error: "Missing key" });
    expect(await c.ask({ cmd: "status" })).toEqual({ ok: false, error: "Missing key" });
    expect(await c.ask({ cmd: "kill", key: "nope" })).toEqual({ ok: false, error: "Session 'nope' not found" });
    expect(await c.ask({ cmd: "send", key: "nope", input: "x" })).toEqual({ ok: false, error: "Session 'nope' not found" });
    const badLog = await c.ask({ cmd: "create", key: "y", command: "cat", log_path: "/proc/nope/x.log" });
    expect(badLog.ok).toBe(false);
    expect(badLog.error).toContain("log_path");
    // Still serving, on the same connection.
    expect(await c.ask({ cmd: "ping" })).toEqual({ ok: true });
    c.close();
  });

  test("a first line with cmd that is not an object of the dialect still gets its shape", async () => {
    const c = await Lines.open(shared.d.socket);
    expect(await c.ask({ cmd: null })).toEqual({ ok: false, error: 'Invalid JSON: "cmd" must be a string' });
    c.close();
  });
});

test("a client that disconnects mid-request: the request completes, the daemon serves on", async () => {
  const c = await Lines.open(shared.d.socket);
  const log = join(shared.dir, "gone.log");
  expect((await c.ask({ cmd: "create", key: "gone", command: "trap '' TERM HUP; echo armed; exec sleep 100", log_path: log })).ok).toBe(
    true,
  );
  await shared.c.call("session.wait", { session: "gone", text: "armed", timeout_ms: 10_000 });
  // kill waits out the grace (the program ignores SIGTERM); the client leaves before the reply.
  await c.sendAndDrop({ cmd: "kill", key: "gone" });
  await ended("gone");
  const other = await Lines.open(shared.d.socket);
  expect(await other.ask({ cmd: "status", key: "gone" })).toEqual({ ok: true, status: "exited(137)", exit_code: 137 });
  expect(await other.ask({ cmd: "remove", key: "gone" })).toEqual({ ok: true });
  other.close();
});

test("termd daemon --pid-file writes the server.pid of the document's layout; shutdown stops all and removes it", async () => {
  const base = mkdtempSync(join(tmpdir(), "termd-console-layout-"));
  const consoleDir = join(base, ".context-pilot", "console");
  const pidFile = join(consoleDir, "server.pid");
  const socket = join(consoleDir, "server.sock");
  await using own = await TestDaemon.start({ socket, args: ["--pid-file", pidFile] });
  try {
    expect(readFileSync(pidFile, "utf8").trim()).toBe(String(own.proc.pid));
    const c = await Lines.open(socket);
    expect((await c.ask({ cmd: "create", key: "c_1", command: "cat", log_path: join(consoleDir, "c_1.log") })).ok).toBe(true);
    expect((await c.ask({ cmd: "create", key: "c_2", command: "bash", log_path: join(consoleDir, "c_2.log") })).ok).toBe(true);
    // The document's way to restart the server.
    c.write('{"cmd":"shutdown"}\n');
    expect(await c.next()).toEqual({ ok: true });
    await c.closed;
    expect(await own.proc.exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(consoleDir, "c_1.log"))).toBe(true);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("after the server restarts, create under a key used before works: the ended session's record is still the console's", async () => {
  await using first = await TestDaemon.start();
  const c = await Lines.open(first.socket);
  const log = join(first.dir, "b.log");
  expect((await c.ask({ cmd: "create", key: "b", command: "echo first-run", log_path: log })).ok).toBe(true);
  c.write('{"cmd":"shutdown"}\n');
  expect(await c.next()).toEqual({ ok: true });
  await first.proc.exited;

  await using again = await TestDaemon.start({ socket: first.socket, stateDir: first.stateDir });
  const c2 = await Lines.open(again.socket);
  const created = await c2.ask({ cmd: "create", key: "b", command: "echo second-run; exec cat", log_path: log });
  expect(created).toEqual({ ok: true, pid: expect.any(Number) });
  expect(await c2.ask({ cmd: "status", key: "b" })).toEqual({ ok: true, status: "running" });
  c2.close();
});
