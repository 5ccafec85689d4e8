// Integration tests: a real daemon on a temp socket driving real programs (vim, less, python3,
// bash, sleep) through the client library. Nothing here sleeps to wait: every step waits for a
// condition on the screen or the session's end.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { RpcError } from "../src/protocol/errors.ts";
import { TestDaemon } from "./harness.ts";
import { run, shell } from "./shell-session.ts";

const tmp = mkdtempSync(join(tmpdir(), "termd-programs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Tracks whether a promise has settled yet, without waiting for it. */
function track<T>(p: Promise<T>): { promise: Promise<T>; readonly settled: boolean } {
  let settled = false;
  const promise = p.finally(() => (settled = true));
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/**
 * Waits through screen changes until the cursor is on `row` of a screen whose rows start with
 * `lines`; returns that screen. The rows rule out a screen caught mid-redraw (vim redraws all once
 * the answers to its queries come), whose cursor passes each row with the rows below it blank.
 */
async function waitCursorRow(c: Client, session: string, row: number, lines: string[], fromHash = "") {
  let hash = fromHash;
  for (;;) {
    const w = await c.call("session.wait", { session, changed_from: hash, timeout_ms: 5000 });
    expect(w.outcome).toBe("changed");
    if (w.screen.cursor.row === row && lines.every((l, i) => w.screen.lines[i] === l)) return w.screen;
    hash = w.screen.hash;
  }
}

async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    return err as RpcError;
  }
  throw new Error("expected the call to fail");
}

describe("vim", () => {
  test("a file edited and saved through keys holds the typed text and vim exits 0", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const dir = mkdtempSync(join(tmp, "vim-"));
    const file = join(dir, "note.txt");
    await c.call("session.create", { name: "vim", command: ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file], cwd: dir });
    // An empty buffer shows "~" on the rows past the end of the file.
    expect((await c.call("session.wait", { session: "vim", regex: "^~" })).outcome).toBe("matched");

    await c.call("session.input", { session: "vim", keys: ["i"] });
    await c.call("session.input", { session: "vim", text: "hello from termd" });
    await c.call("session.input", { session: "vim", keys: ["Escape"] });
    await c.call("session.input", { session: "vim", text: ":wq" });
    await c.call("session.input", { session: "vim", keys: ["Enter"] });

    const end = await c.call("session.wait", { session: "vim", exit: true });
    expect(end).toMatchObject({ outcome: "exited", exit_code: 0 });
    expect(readFileSync(file, "utf8")).toBe("hello from termd\n");
    expect((await c.call("session.info", { session: "vim" })).state).toBe("exited");
  });
});

describe("key tokens", () => {
  test("Up and Down move vim's cursor in application cursor keys mode", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const dir = mkdtempSync(join(tmp, "vim-keys-"));
    const file = join(dir, "lines.txt");
    writeFileSync(file, "one\ntwo\nthree\nfour\nfive\n");
    await c.call("session.create", { name: "vim", command: ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file], cwd: dir });
    // vim switches the keypad to transmit mode (smkx), which sets DECCKM: Up is then ESC O A. Its
    // cursor goes to the top once it has drawn the file (a settle could pass before a loaded vim did).
    const file5 = ["one", "two", "three", "four", "five"];
    const start = await waitCursorRow(c, "vim", 0, file5);
    expect(start.modes.application_cursor).toBe(true);

    await c.call("session.input", { session: "vim", keys: ["Down", "Down", "Down"] });
    const down = await waitCursorRow(c, "vim", 3, file5, start.hash);

    await c.call("session.input", { session: "vim", keys: ["Up"] });
    const up = await waitCursorRow(c, "vim", 2, file5, down.hash);
    expect(up.cursor.col).toBe(0);

    await c.call("session.input", { session: "vim", keys: ["Escape", ":", "q", "!", "Enter"] });
    expect((await c.call("session.wait", { session: "vim", exit: true })).exit_code).toBe(0);
  });

  test("an unknown key token is refused with INVALID_PARAMS naming the token, and nothing is typed", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const err = await rpcError(c.call("session.input", { session: "sh", keys: ["x", "Ctrl+Wobble"] }));
    expect(err.name).toBe("INVALID_PARAMS");
    expect(err.message).toContain("Ctrl+Wobble");
    // The "x" before the bad token was not written either: it would show on the command line.
    await run(c, "sh", "echo done");
    const w = await c.call("session.wait", { session: "sh", regex: "^done$" });
    expect(w.screen.lines[0]).toBe("$ echo done");
  });
});

describe("less", () => {
  test("PageDown pages through a file and the screen shows the later lines", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const dir = mkdtempSync(join(tmp, "less-"));
    const file = join(dir, "numbers.txt");
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    await c.call("session.create", {
      name: "less",
      command: ["less", file],
      cwd: dir,
      rows: 24,
      cols: 80,
      env: { LESS: "", LESSHISTFILE: "-", LESSOPEN: "", LESSCLOSE: "" },
    });
    const first = await c.call("session.wait", { session: "less", regex: "^line 23$" });
    expect(first.outcome).toBe("matched");
    expect(first.screen.lines[0]).toBe("line 1");

    await c.call("session.input", { session: "less", keys: ["PageDown"] });
    const next = await c.call("session.wait", { session: "less", regex: "^line 46$" });
    expect(next.outcome).toBe("matched");
    expect(next.screen.lines[0]).toBe("line 24");
    expect(next.screen.lines).not.toContain("line 1");

    await c.call("session.input", { session: "less", keys: ["q"] });
    expect((await c.call("session.wait", { session: "less", exit: true })).exit_code).toBe(0);
  });
});

describe("python3", () => {
  test("the REPL answers arithmetic", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "py", command: ["python3", "-q"], env: { PYTHONSTARTUP: "" } });
    expect((await c.call("session.wait", { session: "py", text: ">>> " })).outcome).toBe("matched");
    await c.call("session.input", { session: "py", text: "6*7" });
    await c.call("session.input", { session: "py", keys: ["Enter"] });
    const w = await c.call("session.wait", { session: "py", regex: "^42$" });
    expect(w.outcome).toBe("matched");
    // The next prompt may not be drawn yet when 42 is: only the lines up to the answer are certain.
    expect(w.screen.lines.slice(0, 2)).toEqual([">>> 6*7", "42"]);
    // The cause of an old flake: 42 is printed before the REPL's readline puts the terminal back
    // in raw mode. A C-d that arrives in that gap meets canonical mode, where the line discipline
    // stores end-of-file as a NUL mark; once raw mode is back, readline reads that NUL (Ctrl-@, set
    // mark), not a C-d, and never exits. A person waits for the prompt; so does this.
    expect((await c.call("session.wait", { session: "py", regex: "^>>> $" })).outcome).toBe("matched");
    await c.call("session.input", { session: "py", keys: ["C-d"] });
    expect((await c.call("session.wait", { session: "py", exit: true })).exit_code).toBe(0);
  });
});

describe("exit codes and signals", () => {
  test("a program killed with KILL is reported as killed by SIGKILL with exit code 137", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "sleep", command: ["sleep", "100"] });
    expect((await c.call("session.signal", { session: "sleep", signal: "KILL" })).signal_sent).toBe("SIGKILL");
    const w = await c.call("session.wait", { session: "sleep", exit: true });
    expect(w).toMatchObject({ outcome: "exited", exit_code: 137, signal: "SIGKILL" });
    const info = await c.call("session.info", { session: "sleep" });
    expect(info).toMatchObject({ state: "killed", exit_code: 137, signal: "SIGKILL" });
    expect(info.ended_at).not.toBeNull();
  });

  test("a program exiting with code 3 is reported as failed with exit code 3", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "three", command: ["bash", "-c", "exit 3"] });
    const w = await c.call("session.wait", { session: "three", exit: true });
    expect(w).toMatchObject({ outcome: "exited", exit_code: 3, signal: null });
    expect(await c.call("session.info", { session: "three" })).toMatchObject({ state: "failed", exit_code: 3, signal: null });
  });

  test("a program exiting with code 0 is reported as exited", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "ok", command: ["true"] });
    await c.call("session.wait", { session: "ok", exit: true });
    expect(await c.call("session.info", { session: "ok" })).toMatchObject({ state: "exited", exit_code: 0, signal: null });
  });

  test("session.stop ends sleep with its hangup (SIGHUP comes first, as from a closed terminal) and reports it as stopped", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "sleep", command: ["sleep", "100"] });
    const info = await c.call("session.stop", { session: "sleep" });
    expect(info).toMatchObject({ state: "stopped", signal: "SIGHUP", exit_code: 129 });
  });

  test("a program that ignores HUP and TERM is stopped by SIGKILL once the grace period ends", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "stubborn", command: ["bash", "-c", 'trap "" TERM HUP; echo ready; sleep 100'] });
    expect((await c.call("session.wait", { session: "stubborn", regex: "^ready$" })).outcome).toBe("matched");
    const info = await c.call("session.stop", { session: "stubborn", grace_ms: 200 });
    expect(info).toMatchObject({ state: "stopped", signal: "SIGKILL", exit_code: 137 });
  });

  test("input to a session that ended is refused with SESSION_NOT_RUNNING", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", { name: "gone", command: ["true"] });
    await c.call("session.wait", { session: "gone", exit: true });
    const err = await rpcError(c.call("session.input", { session: "gone", text: "x" }));
    expect(err.name).toBe("SESSION_NOT_RUNNING");
  });
});

describe("session.wait outcomes", () => {
  test("text matches with the row and column where it appears", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "echo '   needle here'");
    const w = await c.call("session.wait", { session: "sh", text: "needle here" });
    expect(w.outcome).toBe("matched");
    // Row 0 is the command line itself, which also contains the text.
    expect(w.match).toEqual({ row: 0, col: 11, text: "needle here" });
  });

  test("a regex matches with its row, column and the matched text", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", 'echo "  value=$((40+2)) units"');
    const w = await c.call("session.wait", { session: "sh", regex: "value=(\\d+)" });
    expect(w.outcome).toBe("matched");
    expect(w.match).toEqual({ row: 1, col: 2, text: "value=42" });
    expect(w.screen.lines[1]).toBe("  value=42 units");
  });

  test("an invalid regex is refused with INVALID_PARAMS", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const err = await rpcError(c.call("session.wait", { session: "sh", regex: "(" }));
    expect(err.name).toBe("INVALID_PARAMS");
  });

  test("gone matches once the text has left the screen", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "echo MARK$((1+1))");
    expect((await c.call("session.wait", { session: "sh", regex: "^MARK2$" })).outcome).toBe("matched");
    const gone = track(c.call("session.wait", { session: "sh", gone: "MARK" }));
    // Still on screen: the wait is pending until the screen is cleared.
    await c.call("system.ping");
    expect(gone.settled).toBe(false);
    await run(c, "sh", "clear");
    const w = await gone.promise;
    expect(w.outcome).toBe("matched");
    expect(w.match).toBeUndefined();
    expect(w.screen.lines.join("\n")).not.toContain("MARK");
  });

  test("a session that ends gives exited with its exit code", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const w = track(c.call("session.wait", { session: "sh", exit: true }));
    await run(c, "sh", "exit 5");
    expect(await w.promise).toMatchObject({ outcome: "exited", exit_code: 5, signal: null });
  });

  test("a text wait on a session that ends gives exited, with the final screen", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const w = track(c.call("session.wait", { session: "sh", text: "never printed" }));
    await run(c, "sh", "echo bye; exit 0");
    const r = await w.promise;
    expect(r).toMatchObject({ outcome: "exited", exit_code: 0 });
    expect(r.screen.lines).toContain("bye");
  });

  test("settle_ms gives settled once the program is quiet", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "for i in 1 2 3; do echo tick$i; done");
    const w = await c.call("session.wait", { session: "sh", settle_ms: 100 });
    expect(w.outcome).toBe("settled");
  });

  test("changed_from gives changed once input changes the screen", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const quiet = await c.call("session.wait", { session: "sh", settle_ms: 50 });
    const s = await c.call("session.screen", { session: "sh" });
    expect(s.hash).toBe(quiet.screen.hash);
    // Nothing changed yet: the same hash keeps the wait pending.
    const w = track(c.call("session.wait", { session: "sh", changed_from: s.hash }));
    await c.call("system.ping");
    expect(w.settled).toBe(false);
    await c.call("session.input", { session: "sh", text: "z" });
    const r = await w.promise;
    expect(r.outcome).toBe("changed");
    expect(r.screen.hash).not.toBe(s.hash);
    expect(r.screen.lines[0]).toBe("$ z");
  });

  test("changed_from with a hash that differs from the current screen returns at once", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const r = await c.call("session.wait", { session: "sh", changed_from: "not-a-real-hash" });
    expect(r.outcome).toBe("changed");
  });

  test("activity gives activity once the program writes", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await c.call("session.wait", { session: "sh", settle_ms: 50 });
    const w = track(c.call("session.wait", { session: "sh", activity: true }));
    await c.call("system.ping");
    expect(w.settled).toBe(false);
    await c.call("session.input", { session: "sh", text: "a" });
    expect((await w.promise).outcome).toBe("activity");
  });

  test("a wait that times out says timeout and still carries the screen", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "echo visible");
    await c.call("session.wait", { session: "sh", regex: "^visible$" });
    const w = await c.call("session.wait", { session: "sh", text: "absent", timeout_ms: 50 });
    expect(w.outcome).toBe("timeout");
    expect(w.match).toBeUndefined();
    expect(w.screen.lines).toContain("visible");
    expect(w.screen.size).toEqual({ rows: 24, cols: 80 });
  });

  test("a pending wait delays no other request on its connection nor on another", async () => {
    await using d = await TestDaemon.start();
    const a = await d.client();
    const b = await d.client();
    await shell(a, "sh");
    const long = track(a.call("session.wait", { session: "sh", text: "NEVER-APPEARS", timeout_ms: 10_000 }));

    // Same connection: ping, screen, input and a second wait that matches.
    expect((await a.call("system.ping")).pid).toBeNumber();
    expect((await a.call("session.screen", { session: "sh" })).lines[0]).toBe("$ ");
    await run(a, "sh", "echo first-$((1+1))");
    expect((await a.call("session.wait", { session: "sh", text: "first-2" })).outcome).toBe("matched");
    // Another connection, same session.
    expect((await b.call("system.ping")).pid).toBeNumber();
    await run(b, "sh", "echo second-$((2+1))");
    expect((await b.call("session.wait", { session: "sh", text: "second-3" })).outcome).toBe("matched");
    expect((await b.call("session.screen", { session: "sh" })).lines).toContain("first-2");
    expect(long.settled).toBe(false);

    // The session's end releases the long wait.
    await run(b, "sh", "exit 0");
    expect(await long.promise).toMatchObject({ outcome: "exited", exit_code: 0 });
  });

  test("closing a connection abandons its pending wait and leaves the daemon serving others", async () => {
    await using d = await TestDaemon.start();
    const a = await d.client();
    const b = await d.client();
    await shell(b, "sh");
    const long = track(a.call("session.wait", { session: "sh", text: "NEVER-APPEARS", timeout_ms: 10_000 }));
    a.close();
    await expect(long.promise).rejects.toThrow(/closed/);
    await run(b, "sh", "echo still-$((3+4))");
    expect((await b.call("session.wait", { session: "sh", text: "still-7" })).outcome).toBe("matched");
  });
});

describe("several clients", () => {
  test("five connections each drive their own session at the same time", async () => {
    await using d = await TestDaemon.start();
    const clients = await Promise.all(Array.from({ length: 5 }, () => d.client()));
    const results = await Promise.all(
      clients.map(async (c, i) => {
        const name = `sh${i}`;
        await shell(c, name);
        await run(c, name, `echo "result=$((${i}*11))"`);
        const w = await c.call("session.wait", { session: name, regex: "^result=\\d+$" });
        await run(c, name, "exit 0");
        await c.call("session.wait", { session: name, exit: true });
        return w.match?.text;
      }),
    );
    expect(results).toEqual(["result=0", "result=11", "result=22", "result=33", "result=44"]);
    const list = await clients[0]!.call("session.list");
    expect(list.sessions.map((s) => s.name).sort()).toEqual(["sh0", "sh1", "sh2", "sh3", "sh4"]);
    expect(list.sessions.every((s) => s.state === "exited")).toBe(true);
  });

  test("one client's input shows on the screen another client reads", async () => {
    await using d = await TestDaemon.start();
    const writer = await d.client();
    const reader = await d.client();
    await shell(writer, "shared");
    await run(writer, "shared", "echo from-writer-$((6*7))");
    const w = await reader.call("session.wait", { session: "shared", text: "from-writer-42" });
    expect(w.outcome).toBe("matched");
    const s = await reader.call("session.screen", { session: "shared" });
    expect(s.lines).toContain("from-writer-42");
  });
});

describe("session.screen", () => {
  test("the ansi format carries the SGR colour of coloured output", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "printf '\\e[31mred\\e[0m plain\\n'");
    await c.call("session.wait", { session: "sh", regex: "^red plain$" });
    const s = await c.call("session.screen", { session: "sh", format: "ansi" });
    expect(s.lines).toContain("red plain");
    expect(s.ansi).toBeString();
    expect(s.ansi!).toMatch(/\x1b\[[0-9;]*31m(\x1b\[[0-9;]*m)*red/);
    // The text format has no escape sequences and no ansi field.
    const t = await c.call("session.screen", { session: "sh" });
    expect(t.ansi).toBeUndefined();
    expect(t.lines.join("")).not.toContain("\x1b");
  });

  test("the scrollback param returns lines that scrolled off above the screen", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh", { rows: 10, cols: 40 });
    await run(c, "sh", "seq 1 50");
    await c.call("session.wait", { session: "sh", regex: "^50$" });
    // The prompt comes after the 50: let the screen settle before comparing two reads of it.
    await c.call("session.wait", { session: "sh", regex: "^\\$ $" });
    const plain = await c.call("session.screen", { session: "sh" });
    expect(plain.lines).toHaveLength(10);
    expect(plain.scrollback_lines).toBe(0);
    expect(plain.lines).not.toContain("1");

    const s = await c.call("session.screen", { session: "sh", scrollback: 1000 });
    const above = s.lines.slice(0, s.scrollback_lines);
    expect(s.scrollback_lines).toBeGreaterThan(0);
    expect(s.lines).toHaveLength(s.scrollback_lines + 10);
    expect(above[0]).toBe("$ seq 1 50");
    expect(above[1]).toBe("1");
    expect(s.lines.slice(s.scrollback_lines)).toEqual(plain.lines);

    const few = await c.call("session.screen", { session: "sh", scrollback: 3 });
    expect(few.scrollback_lines).toBe(3);
    expect(few.lines.slice(0, 3)).toEqual(above.slice(-3));
  });
});

describe("session.output", () => {
  test("returns the raw bytes as base64 with their offsets, and eof once the program ended", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await c.call("session.create", {
      name: "raw",
      command: ["bash", "-c", "printf 'A\\tB\\x01\\e[1mC\\e[0m\\n'; read line; printf 'got:%s\\n' \"$line\""],
    });
    await c.call("session.wait", { session: "raw", regex: "^A\\s+BC$" });

    const first = await c.call("session.output", { session: "raw" });
    expect(first.from).toBe(0);
    expect(first.eof).toBe(false);
    const bytes = Buffer.from(first.base64, "base64");
    expect(first.to).toBe(bytes.length);
    // The PTY turns \n into \r\n; everything else arrives as written.
    expect(bytes.toString("latin1")).toBe("A\tB\x01\x1b[1mC\x1b[0m\r\n");

    const part = await c.call("session.output", { session: "raw", from: 2, max_bytes: 2 });
    expect(part).toMatchObject({ from: 2, to: 4, eof: false });
    expect(Buffer.from(part.base64, "base64").toString("latin1")).toBe("B\x01");

    await c.call("session.input", { session: "raw", text: "xyz\r" });
    expect(await c.call("session.wait", { session: "raw", exit: true })).toMatchObject({ exit_code: 0 });
    const rest = await c.call("session.output", { session: "raw", from: first.to });
    expect(rest.from).toBe(first.to);
    expect(rest.eof).toBe(true);
    const text = Buffer.from(rest.base64, "base64").toString("latin1");
    expect(text).toEndWith("got:xyz\r\n");
    expect(rest.to).toBe(first.to + Buffer.from(rest.base64, "base64").length);
    expect((await c.call("session.info", { session: "raw" })).bytes_out).toBe(rest.to);

    const atEnd = await c.call("session.output", { session: "raw", from: rest.to });
    expect(atEnd).toEqual({ base64: "", from: rest.to, to: rest.to, eof: true });
  });
});

describe("session.resize", () => {
  test("the new size is what stty size reports inside bash", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh", { rows: 24, cols: 80 });
    await run(c, "sh", "stty size");
    expect((await c.call("session.wait", { session: "sh", regex: "^24 80$" })).outcome).toBe("matched");

    expect(await c.call("session.resize", { session: "sh", rows: 30, cols: 100 })).toEqual({ size: { rows: 30, cols: 100 } });
    await run(c, "sh", "clear; stty size");
    const w = await c.call("session.wait", { session: "sh", regex: "^30 100$" });
    expect(w.outcome).toBe("matched");
    expect(w.screen.size).toEqual({ rows: 30, cols: 100 });
    expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 30, cols: 100 });
  });

  test("input sent right after a resize reaches the program after it: stty size reads the new size every time", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh", { rows: 24, cols: 80 });
    for (let i = 1; i <= 12; i++) {
      const size = { rows: 10 + i, cols: 40 + i };
      // Sent together: the resize goes through the pty worker, and the input must not overtake it.
      await Promise.all([
        c.call("session.resize", { session: "sh", ...size }),
        c.call("session.input", { session: "sh", text: `stty size | sed 's/^/size-${i} /'\r` }),
      ]);
      const w = await c.call("session.wait", { session: "sh", regex: `^size-${i} \\d+ \\d+$` });
      expect(w.match!.text).toBe(`size-${i} ${size.rows} ${size.cols}`);
    }
  });
});
