// The interminai personality (docs/dialects.md): the socket dialect spoken raw, every example
// request of interminai's protocol document and of its command line's appendix sent as written, bad
// input and clients that hang up; then the command line driven as a user's script drives it, from
// source and as dist/interminai (a link to dist/termd, built by `npm test`), against bash, cat and
// vim, in daemon mode (the test's own termd daemon) and in the foreground (--no-daemon).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync, watch, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { ROOT, TestDaemon } from "../harness.ts";
import { ask, foreground, ia, nativeSession, relay, raw, seen, sessionAt, socketOf, startSession } from "./interminai-cli.ts";

const SOURCE = [process.execPath, join(ROOT, "src/cli/main.ts"), "interminai"];
const DIST = [join(ROOT, "dist/interminai")];
/** Tests that start several sessions and run many commands get longer than bun's default 5 s. */
setDefaultTimeout(30_000);
const BINS: [string, string[]][] = [
  ["source", SOURCE],
  ["dist/interminai", DIST],
];

/**
 * Resolves once `path` is gone: at once if it is, else on the change in its folder that removes it
 * (inotify, through fs.watch); rejects if it is still there after `timeoutMs`.
 */
function removed(path: string, timeoutMs = 10_000): Promise<void> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const timer = setTimeout(() => settle(new Error(`${path} still there after ${timeoutMs} ms`)), timeoutMs);
  const watcher = watch(dirname(path), () => existsSync(path) || settle());
  const settle = (err?: Error) => {
    clearTimeout(timer);
    watcher.close();
    if (err) reject(err);
    else resolve();
  };
  if (!existsSync(path)) settle();
  return promise;
}

/** The first `n` lines a process prints; its stdout is then closed, as interminai's callers do. */
async function firstLines(proc: { stdout: ReadableStream<Uint8Array> }, n: number): Promise<string> {
  const reader = proc.stdout.getReader();
  let text = "";
  while (text.split("\n").length <= n) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return text;
}

/** A python program printing 5000 lines of 1000 columns, line i its number and backslashes, then `end`. */
const WIDE_LINES =
  'import sys\nfor i in range(5000): sys.stdout.write("%06d" % i + "\\\\" * 994 + "\\r\\n")\nsys.stdout.write("end")\nimport time; time.sleep(30)';
const wideLine = (i: number) => String(i).padStart(6, "0") + "\\".repeat(994);

describe("interminai socket dialect", () => {
  test("every example request of the protocol documents gets a reply of the documented shape", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await nativeSession(d, ["cat"]);

    expect(await ask(socket, String.raw`{"type":"INPUT","data":"ihello\u001b:wq\n"}`)).toEqual({ status: "ok", data: {} });
    await seen(c, id, "ihello^[:wq");
    expect(await ask(socket, '{"type":"INPUT","data":"keys to send (may contain escape sequences)"}')).toEqual({
      status: "ok",
      data: {},
    });
    // Its echo must be on the screen before two reads of the screen are compared.
    await seen(c, id, "es)");

    const ascii = await ask(socket, '{"type":"OUTPUT","format":"ascii"}');
    expect(ascii.status).toBe("ok");
    expect(ascii.data).toEqual({
      screen: expect.any(String),
      cursor: { row: expect.any(Number), col: expect.any(Number) },
      size: { rows: 10, cols: 40 },
      from: 1,
      to: null,
      scrollback_available: 0,
      scrollback_capacity: 1000,
      offset: expect.any(Number),
    });
    expect(ascii.data.screen.split("\n")).toHaveLength(11); // ten rows, each ending in \n
    expect(ascii.data.screen).toStartWith("ihello^[:wq\n"); // the terminal's echo shows ESC as ^[
    const ansi = await ask(socket, '{"type":"OUTPUT","format":"ansi"}');
    expect(ansi.data.screen).toBe(ascii.data.screen); // default-styled text carries no codes
    const ranged = await ask(socket, '{"type":"OUTPUT","format":"ascii","from":-5,"to":null}');
    expect(ranged.data).toMatchObject({ from: 1, size: { rows: 10, cols: 40 } });
    expect((await ask(socket, '{"type":"OUTPUT","format":"ascii","from":"-","to":0}')).data.screen).toBe("");

    expect(await ask(socket, '{"type":"STATUS","activity":false}')).toEqual({
      status: "ok",
      data: { running: true, size: { rows: 10, cols: 40 }, scrollback_available: 0, scrollback_capacity: 1000 },
    });
    const st = await ask(socket, '{"type":"STATUS","activity":true}');
    expect(st.data).toMatchObject({ running: true, activity: true });
    expect((await ask(socket, '{"type":"STATUS","activity":true}')).data.activity).toBe(false); // cleared on read
    expect(await ask(socket, '{"type":"STATUS"}')).toMatchObject({ status: "ok", data: { running: true } });

    const waiting = ask(socket, '{"type":"WAIT","activity":true}');
    await ask(socket, '{"type":"INPUT","data":"x\\n"}');
    expect(await waiting).toEqual({ status: "ok", data: { activity: true, exited: false } });

    const dbg = await ask(socket, '{"type":"DEBUG","data":{"clear":false}}');
    expect(dbg.data).toEqual({
      unhandled: expect.any(Array),
      dropped: expect.any(Number),
      termios: {
        mode: "cooked",
        flags: expect.arrayContaining(["ECHO", "ISIG", "ICRNL", "IXON", "OPOST", "ONLCR"]),
        hex: {
          iflag: expect.stringMatching(/^0x[0-9a-f]{4,}$/),
          oflag: expect.any(String),
          lflag: expect.any(String),
          cflag: expect.any(String),
        },
        c_cc: { VINTR: "^C", VEOF: "^D", VERASE: "^?", VKILL: "^U", VSUSP: "^Z", VQUIT: "^\\" },
      },
    });
    expect((await ask(socket, '{"type":"DEBUG","clear":true}')).status).toBe("ok");
    expect(await ask(socket, '{"type":"RESIZE","cols":30,"rows":8}')).toEqual({ status: "ok", data: { cols: 30, rows: 8 } });
    expect((await ask(socket, '{"type":"OUTPUT","format":"ascii"}')).data.size).toEqual({ rows: 8, cols: 30 });

    expect(await ask(socket, '{"type":"KILL","signal":"SIGINT"}')).toEqual({ status: "ok", data: { signal_sent: "SIGINT" } });
    const normalWait = await ask(socket, '{"type":"WAIT","activity":false}');
    expect(normalWait).toEqual({ status: "ok", data: { exit_code: 130 } }); // 128 + SIGINT
    expect(await ask(socket, '{"type":"STATUS","activity":false}')).toMatchObject({ data: { running: false, exit_code: 130 } });

    expect(await ask(socket, '{"type":"STOP"}')).toEqual({ status: "ok", data: { message: "Shutting down" } });
    expect(existsSync(socket)).toBe(false); // the default cleanup of a native socket
    await expect(c.call("session.info", { session: id })).rejects.toThrow(/no session/);
  });

  test("KILL takes the documented names and numbers", async () => {
    await using d = await TestDaemon.start();
    const numbers: Record<string, number> = { SIGTERM: 15, SIGKILL: 9, SIGINT: 2, "9": 9, "15": 15, "2": 2 };
    for (const [sig, n] of Object.entries(numbers)) {
      const { socket } = await nativeSession(d, ["sleep", "30"]);
      expect(await ask(socket, JSON.stringify({ type: "KILL", signal: sig }))).toEqual({ status: "ok", data: { signal_sent: sig } });
      expect(await ask(socket, '{"type":"WAIT"}')).toEqual({ status: "ok", data: { exit_code: 128 + n } }); // death by signal: 128 + n
      await ask(socket, '{"type":"STOP"}');
    }
  });

  test("bad input gets the dialect's error shape, and the connection closes after it", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await nativeSession(d, ["cat"]);
    const invalid = await raw(socket, "INVALID_COMMAND\n"); // read until EOF: the daemon must close
    expect(JSON.parse(invalid)).toEqual({ status: "error", error: expect.stringMatching(/^Invalid JSON: /) });
    expect(invalid).toContain("error");
    expect(await ask(socket, '{"type":"INVALID_COMMAND"}')).toEqual({ status: "error", error: "Unknown command: INVALID_COMMAND" });
    expect(await ask(socket, '{"data":"no type"}')).toEqual({ status: "error", error: expect.stringContaining("type") });
    expect(await ask(socket, "[1,2]")).toMatchObject({ status: "error" });
    expect(await ask(socket, '{"type":"INPUT"}')).toEqual({ status: "error", error: "Missing 'data' field" });
    expect(await ask(socket, '{"type":"KILL"}')).toEqual({ status: "error", error: "Missing 'signal' field" });
    expect(await ask(socket, '{"type":"RESIZE","rows":5}')).toEqual({ status: "error", error: "Missing 'cols' field" });
    expect(await ask(socket, '{"type":"KILL","signal":"NOTASIGNAL"}')).toEqual({ status: "error", error: "Invalid signal: NOTASIGNAL" });
    expect((await ask(socket, '{"type":"KILL","signal":"9999"}')).error).toStartWith("Invalid signal");
    expect((await ask(socket, '{"type":"OUTPUT","from":"top"}')).status).toBe("error");
    expect((await ask(socket, '{"type":"RESIZE","cols":0,"rows":5}')).status).toBe("error");
    // Invalid UTF-8 is not JSON either.
    const bytes = await new Promise<string>((resolve) => {
      const s = connect(socket);
      let buf = "";
      s.on("connect", () => s.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])));
      s.on("data", (x) => (buf += x));
      s.on("close", () => resolve(buf));
    });
    expect(JSON.parse(bytes)).toMatchObject({ status: "error", error: expect.stringMatching(/^Invalid JSON/) });
    expect((await ask(socket, '{"type":"STATUS"}')).data.running).toBe(true); // the daemon is fine
  });

  test("clients that hang up mid-request harm nothing", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await nativeSession(d, ["bash", "-c", "for i in $(seq 1 1000); do echo line $i; done; sleep 30"]);
    // Half a request, then gone.
    await new Promise<void>((resolve) => {
      const s = connect(socket);
      s.on("connect", () => s.end('{"incomplete":', () => resolve()));
    });
    // A request whose client is gone before the reply, while the program floods the terminal.
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const s = connect(socket);
        s.on("connect", () => {
          s.write('{"type":"OUTPUT","format":"ansi","from":"-"}\n');
          s.destroy();
          resolve();
        });
      });
    }
    // A WAIT abandoned by its client: the wait ends with it.
    const w = connect(socket);
    await new Promise<void>((resolve) => w.on("connect", () => resolve()));
    await ask(socket, '{"type":"STATUS","activity":true}'); // clear the flag, so the WAIT below blocks
    w.write('{"type":"WAIT","activity":false}\n');
    w.destroy();
    await seen(c, id, "line 1000");
    expect((await ask(socket, '{"type":"OUTPUT","format":"ascii"}')).data.screen).toContain("line 1000");
    expect((await ask(socket, '{"type":"KILL","signal":"SIGKILL"}')).status).toBe("ok");
    expect((await ask(socket, '{"type":"WAIT"}')).data).toEqual({ exit_code: 137 });
  });

  test("a screen with a long scrollback arrives whole before the connection closes", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await nativeSession(d, ["bash", "-c", "seq -f '%0100g' 1 20000; sleep 30"], {
      scrollback: 30000,
      cols: 120,
    });
    await seen(c, id, "0".repeat(95) + "20000");
    const r = await ask(socket, '{"type":"OUTPUT","format":"ansi","from":"-"}'); // about 2 MB in one reply
    const lines: string[] = r.data.screen.split("\n");
    expect(r.data.from).toBe(-r.data.scrollback_available);
    expect(lines[0]).toBe("0".repeat(99) + "1");
    expect(lines).toContain("0".repeat(95) + "20000");
  });

  test("a scrollback over termd's page bound: the reply gives the newest lines, `from` says where they start, a `to` above them gives the older", async () => {
    await using d = await TestDaemon.start();
    // 5000 lines of 1000 backslashes, each two characters of JSON: about 10 MB of text.
    const { c, id, socket } = await nativeSession(d, ["python3", "-c", WIDE_LINES], { rows: 5, cols: 1000, scrollback: 5000 });
    await seen(c, id, "end");
    const newest = (await ask(socket, '{"type":"OUTPUT","format":"ascii","from":"-"}')).data;
    const given: string[] = newest.screen.split("\n").slice(0, -newest.from);
    expect(newest.from).toBeGreaterThan(-newest.scrollback_available);
    expect(given.at(-1)).toBe(wideLine(4995)); // the screen shows 4996 to 4999 and the end
    const older = (await ask(socket, `{"type":"OUTPUT","format":"ascii","from":"-","to":${newest.from - 1}}`)).data;
    expect(older.from).toBe(-newest.scrollback_available);
    expect([...older.screen.split("\n").slice(0, -1), ...given]).toEqual(Array.from({ length: 4996 }, (_, i) => wideLine(i)));
  });

  test("on the daemon's main socket a request names its session (an extension)", async () => {
    await using d = await TestDaemon.start();
    const { id } = await nativeSession(d, ["cat"]);
    expect(await ask(d.socket, JSON.stringify({ type: "STATUS", session: id }))).toMatchObject({ status: "ok", data: { running: true } });
    expect((await ask(d.socket, '{"type":"STATUS"}')).error).toContain("session");
  });

  test("STOP for a session that is not there is an error, as STATUS's, and the daemon logs nothing", async () => {
    await using d = await TestDaemon.start();
    const status = await ask(d.socket, '{"type":"STATUS","session":"nope"}');
    expect(status).toEqual({ status: "error", error: expect.stringContaining("nope") });
    expect(await ask(d.socket, '{"type":"STOP","session":"nope"}')).toEqual(status);
    // A round trip after it: a removal that failed would have logged by then.
    await (await d.client()).call("system.ping");
    expect(d.log).not.toContain("interminai STOP");
  });
});

describe.each(BINS)("interminai command line (%s)", (_label, bin) => {
  if (bin === DIST && !existsSync(DIST[0]!)) throw new Error("dist/interminai is missing: run `bun run build` first (npm test does)");

  const start = (d: TestDaemon, args: string[]) => startSession(d, bin, args);

  test("start in daemon mode prints PID, Socket, Auto-generated and returns at once; stop removes what it made", async () => {
    await using d = await TestDaemon.start();
    // It returns at all: stdout and stderr reached their end, nothing it started kept them open
    // (bash runs on, so a pipe it held would keep this waiting for good).
    const r = await ia(d, bin, ["start", "--", "bash", "--norc", "--noprofile"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`PID: ${d.proc.pid}`);
    expect(lines[1]).toMatch(/^Socket: \S*\/interminai-[^/\s]+\/socket$/);
    expect(lines[2]).toBe("Auto-generated: true");
    const socket = socketOf(r.stdout);
    expect(statSync(socket).isSocket()).toBe(true);
    const c = await d.client();
    const id = await sessionAt(c, socket);
    // Its log goes in the step that forgets the session (the store's remove): the event waited for below.
    const log = join(d.stateDir, "logs", `${id}.log`);
    expect(existsSync(log)).toBe(true);
    expect((await ia(d, bin, ["status", "--socket", socket])).stdout).toStartWith("Running: true\n");

    expect(await ia(d, bin, ["stop", "--socket", socket])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(socket, ".."))).toBe(false);
    expect((await ia(d, bin, ["status", "--socket", socket])).code).not.toBe(0);
    // Interactive bash ignores SIGTERM: the session goes once the daemon's grace has run out.
    await removed(log);
    expect((await c.call("session.list")).sessions.map((s) => s.id)).not.toContain(id);
    expect((await c.call("system.ping")).pid).toBe(d.proc.pid); // the termd daemon goes on
  });

  test("a socket given with --socket stays after stop, refusing connections, and can be started on again", async () => {
    await using d = await TestDaemon.start();
    const socket = join(d.dir, "user.sock");
    for (let round = 0; round < 2; round++) {
      const r = await ia(d, bin, ["start", "--socket", socket, "--", "cat"]);
      expect(r.stdout).toBe(`PID: ${d.proc.pid}\nSocket: ${socket}\nAuto-generated: false\n`);
      expect((await ia(d, bin, ["input", "--socket", socket, "--text", `round ${round}\n`])).code).toBe(0);
      expect((await ia(d, bin, ["stop", "--socket", socket])).code).toBe(0);
      expect(statSync(socket).isSocket()).toBe(true);
      const after = await ia(d, bin, ["output", "--socket", socket]);
      expect(after.code).not.toBe(0);
      expect(after.stderr).toContain("Connection refused");
    }
  });

  test("start --no-daemon hosts the session itself: three lines at once, then exit 0 after stop", async () => {
    await using d = await TestDaemon.start();
    const socket = join(d.dir, "fg.sock");
    await using proc = foreground(d, bin, ["--socket", socket, "--size", "30x5", "--", "cat"]);
    const text = await firstLines(proc, 3);
    expect(text).toBe(`Socket: ${socket}\nPID: ${proc.pid}\nAuto-generated: false\n`);
    expect((await ia(d, bin, ["input", "--socket", socket, "--text", "hello fg\n"])).code).toBe(0);
    expect((await ia(d, bin, ["wait", "--socket", socket, "--line", "2", "--contains", "hello fg"])).stdout).toMatch(
      /^Condition (already )?met on line 2\n$/,
    );
    const out = await ia(d, bin, ["output", "--socket", socket]);
    expect(out.stdout).toBe("hello fg\nhello fg\n\n\n\n");
    expect((await d.client().then((c) => c.call("session.list"))).sessions).toEqual([]); // not in the termd daemon
    expect((await ia(d, bin, ["stop", "--socket", socket])).code).toBe(0);
    expect(await proc.exited).toBe(0);
    expect(statSync(socket).isSocket()).toBe(true);
  });

  test("start --no-daemon with an auto-generated socket removes it and its folder on stop", async () => {
    await using d = await TestDaemon.start();
    await using proc = foreground(d, bin, ["--", "bash", "--norc", "--noprofile"]);
    const text = await firstLines(proc, 3);
    const lines = text.split("\n");
    expect(lines[1]).toBe(`PID: ${proc.pid}`);
    expect(lines[2]).toBe("Auto-generated: true");
    const socket = socketOf(text);
    expect(socket).toContain("interminai-");
    // interactive bash ignores SIGTERM: stop still returns at once, and the process exits after its grace
    expect((await ia(d, bin, ["stop", "--socket", socket])).code).toBe(0);
    expect(existsSync(join(socket, ".."))).toBe(false);
    expect(await proc.exited).toBe(0);
  });

  test("input sends --text after escape processing, stdin as is, and --text wins over stdin", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--size", "60x10", "--", "cat"]);
    expect(await ia(d, bin, ["input", "--socket", socket, "--text", "a\\zb\\x41\\x42\\x43 tab\\there\\n"], { stdin: "IGNORED\n" })).toEqual(
      { code: 0, stdout: "", stderr: "" },
    );
    await seen(c, id, /^a\\zbABC tab +here$/); // the tab shows as spaces
    expect((await ia(d, bin, ["input", "--socket", socket], { stdin: "from stdin\n" })).code).toBe(0);
    await seen(c, id, "from stdin");
    const screen = (await ia(d, bin, ["output", "--socket", socket, "--no-color"])).stdout;
    expect(screen).not.toContain("IGNORED");
    const bad = await ia(d, bin, ["input", "--socket", socket, "--text", "\\x4"]);
    expect(bad.code).not.toBe(0);
    await ia(d, bin, ["stop", "--socket", socket]);

    // The bytes themselves, through a raw terminal: ESC, a control key, a backslash, \xE9 as UTF-8,
    // then \r \a \b \f \v \E.
    const bytes = await start(d, ["--", "bash", "-c", "stty raw -echo; echo ready; head -c 14 | od -An -tx1; sleep 30"]);
    await seen(bytes.c, bytes.id, "ready");
    expect((await ia(d, bin, ["input", "--socket", bytes.socket, "--text", "\\e[A\\x06 \\\\\\xE9\\r\\a\\b\\f\\v\\E"])).code).toBe(0);
    await seen(bytes.c, bytes.id, "1b 5b 41 06 20 5c c3 a9 0d 07 08 0c 0b 1b");
  });

  test("output renders colour as interminai does, keeps it in scrollback, and --no-color has none", async () => {
    await using d = await TestDaemon.start();
    const script = String.raw`printf '\e[31mred1\nred2\n\e[32mgreen3\ngreen4\e[0m\n\e[1mbold\e[0m \e[38;5;202mx\e[0m \e[38;2;255;128;0my\e[0m \e[41mbg\e[0m \e[1;31mbr\e[0m\n日本語 ├── test\n'; echo done; sleep 30`;
    const { c, id, socket } = await start(d, ["--size", "40x10", "--", "bash", "-c", script]);
    await seen(c, id, "done");
    const out = (await ia(d, bin, ["output", "--socket", socket])).stdout;
    const rows = out.split("\n");
    expect(rows).toHaveLength(11);
    expect(rows[0]).toBe("\x1b[0;31mred1\x1b[0m");
    expect(rows[1]).toBe("\x1b[0;31mred2\x1b[0m"); // each row is self-contained
    expect(rows[2]).toBe("\x1b[0;32mgreen3\x1b[0m");
    expect(rows[3]).toBe("\x1b[0;32mgreen4\x1b[0m");
    expect(rows[4]).toBe(
      "\x1b[0;1mbold\x1b[0m \x1b[0;38;5;202mx\x1b[0m \x1b[0;38;2;255;128;0my\x1b[0m \x1b[0;41mbg\x1b[0m \x1b[0;1;31mbr\x1b[0m",
    );
    expect(rows[5]).toBe("日本語 ├── test");
    expect(rows[6]).toBe("done");
    const numbered = (await ia(d, bin, ["output", "--socket", socket, "-n"])).stdout.split("\n");
    expect(numbered.slice(0, 2)).toEqual([" 01\t\x1b[0;31mred1\x1b[0m", " 02\t\x1b[0;31mred2\x1b[0m"]); // the numbers stay plain
    const plain = (await ia(d, bin, ["output", "--socket", socket, "--no-color"])).stdout;
    expect(plain).not.toContain("\x1b[");
    expect(plain.split("\n").slice(0, 7)).toEqual(["red1", "red2", "green3", "green4", "bold x y bg br", "日本語 ├── test", "done"]);
    // Push the coloured rows into the scrollback: they keep their colours there.
    const more = await start(d, ["--size", "40x3", "--", "bash", "-c", String.raw`printf '\e[31mred1\nred2\e[0m\n'; seq 1 5; sleep 30`]);
    await seen(more.c, more.id, "5");
    const back = (await ia(d, bin, ["output", "--socket", more.socket, "--from", "-5", "--to", "0"])).stdout;
    expect(back).toBe("\x1b[0;31mred1\x1b[0m\n\x1b[0;31mred2\x1b[0m\n1\n2\n3\n");
  });

  test("output numbers lines and takes scrollback ranges with --from and --to", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--size", "80x5", "--", "bash", "-c", "seq 1 50; sleep 30"]);
    await seen(c, id, "50");
    const o = (args: string[]) => ia(d, bin, ["output", "--socket", socket, "--no-color", ...args]).then((r) => r.stdout);
    const screen = await o([]);
    expect(screen).toBe("47\n48\n49\n50\n\n");
    expect(await o(["--from", "0"])).toBe(screen);
    expect(await o(["--from", "1"])).toBe(screen);
    const last10 = (await o(["--from", "-10"])).split("\n");
    expect(last10).toHaveLength(16);
    expect(last10.slice(0, 2)).toEqual(["37", "38"]);
    expect(last10[13]).toBe("50");
    expect((await o(["--from", "-100"])).split("\n")[0]).toBe("1");
    expect((await o(["--from", "-"])).split("\n")[0]).toBe("1");
    expect(await o(["--from", "-5", "--to", "0"])).toBe("42\n43\n44\n45\n46\n");
    expect(await o(["--from", "-5", "--to", "-3"])).toBe("42\n43\n44\n");
    expect(await o(["--to", "2"])).toBe("47\n48\n");
    expect(await o(["-n"])).toBe(" 1\t47\n 2\t48\n 3\t49\n 4\t50\n 5\t\n");
    expect(await o(["-n", "--cursor", "print"])).toBe("Cursor: row 5, col 1\n 1\t47\n 2\t48\n 3\t49\n 4\t50\n 5\t\n");
    expect(await o(["--from", "-5", "-n", "--to", "1"])).toBe("-5\t42\n-4\t43\n-3\t44\n-2\t45\n-1\t46\n 1\t47\n");
    expect((await o(["--from", "-12", "--number"])).split("\n")[0]).toBe("-12\t35");
    expect((await o(["--from", "3", "-n"])).split("\n")[0]).toBe(" 3\t47"); // interminai starts the numbers at N
    const coloured = (await ia(d, bin, ["output", "--socket", socket, "-n"])).stdout;
    expect(coloured.split("\n")[0]).toBe(" 1\t47");
  });

  test("output --from - prints all the scrollback, in as many replies as termd's page bound takes, numbered from the oldest", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--size", "1000x5", "--scrollback", "5000", "--", "python3", "-c", WIDE_LINES]);
    await seen(c, id, "end");
    const out = await ia(d, bin, ["output", "--socket", socket, "--no-color", "--from", "-"]);
    expect(out.stdout.split("\n")).toEqual([...Array.from({ length: 5000 }, (_, i) => wideLine(i)), "end", ""]);
    const numbered = (await ia(d, bin, ["output", "--socket", socket, "--no-color", "--from", "-", "-n"])).stdout.split("\n");
    expect([numbered[0], numbered[4995], numbered[4996]]).toEqual([
      `-4996\t${wideLine(0)}`,
      `-0001\t${wideLine(4995)}`,
      ` 0001\t${wideLine(4996)}`,
    ]);
  });

  test("numbering pads to the widest number: 24 rows give 01 to 24, 100 rows give 001 to 100", async () => {
    await using d = await TestDaemon.start();
    for (const [rows, first, last] of [
      [24, " 01\t", " 24\t"],
      [100, " 001\t", " 100\t"],
      [10, " 01\t", " 10\t"],
    ] as const) {
      const { socket } = await start(d, ["--size", `80x${rows}`, "--", "cat"]);
      const lines = (await ia(d, bin, ["output", "--socket", socket, "-n"])).stdout.split("\n");
      expect(lines).toHaveLength(rows + 1);
      expect(lines[0]).toBe(first);
      expect(lines[rows - 1]).toBe(last);
      await ia(d, bin, ["stop", "--socket", socket]);
    }
  });

  test("--cursor prints the position first and marks the cell under the cursor", async () => {
    await using d = await TestDaemon.start();
    const cursorOf = async (text: string, size = "10x5", extra: string[] = [], shown = "\\S") => {
      const { c, id, socket } = await start(d, ["--size", size, "--", "bash", "-c", `printf '${text}'; echo -n; sleep 30`]);
      // Shown first, then quiet: a settle alone passes before a slow bash has printed anything.
      expect((await c.call("session.wait", { session: id, regex: shown, timeout_ms: 10_000 })).outcome).toBe("matched");
      await c.call("session.wait", { session: id, settle_ms: 50, timeout_ms: 5000 });
      const r = await ia(d, bin, ["output", "--socket", socket, ...extra]);
      await ia(d, bin, ["stop", "--socket", socket]);
      return r.stdout;
    };
    expect((await cursorOf("ABCDEFGHIJ", "10x5", ["--cursor", "print"])).split("\n").slice(0, 2)).toEqual([
      "Cursor: row 1, col 10",
      "ABCDEFGHIJ",
    ]);
    expect((await cursorOf("ABCDEFGHIJK", "10x5", ["--cursor", "print", "--no-color"])).split("\n").slice(0, 3)).toEqual([
      "Cursor: row 2, col 2",
      "ABCDEFGHIJ",
      "K",
    ]);
    // The terminal writes a backspace apart from the text around it: the row as it ends, awaited whole.
    expect((await cursorOf("ABCDEFGHIJ\\bX", "10x5", ["--cursor", "print"], "^ABCDEFGHXJ$")).split("\n").slice(0, 2)).toEqual([
      "Cursor: row 1, col 10",
      "ABCDEFGHXJ",
    ]);
    expect((await cursorOf("ABCDEFGH\\e[4G", "20x5", ["--cursor", "inverse", "--no-color"])).split("\n")[0]).toBe(
      "ABC\x1b[7mD\x1b[27mEFGH",
    );
    // In colour the mark goes by screen cell, not by characters of the rendered row.
    expect((await cursorOf("\\e[31mAB\\e[0mCDEFGH\\e[4G", "20x5", ["--cursor", "both"])).split("\n").slice(0, 2)).toEqual([
      "Cursor: row 1, col 4",
      "\x1b[0;31mAB\x1b[0mC\x1b[7mD\x1b[27mEFGH",
    ]);
    const beyond = await cursorOf("ABC   ", "20x5", ["--cursor", "inverse"]);
    expect(beyond.split("\n")[0]).toBe("ABC"); // past the trimmed row: nothing is inserted
    expect(await cursorOf("x", "20x5", ["--cursor", "none"])).not.toContain("Cursor:");
  });

  test("status reports and clears the activity flag; --quiet gives the exit code", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--size", "40x10", "--scrollback", "500", "--", "bash", "--norc", "--noprofile"]);
    const st = (args: string[] = []) => ia(d, bin, ["status", "--socket", socket, ...args]);
    await ia(d, bin, ["input", "--socket", socket, "--text", "echo hi\n"]);
    await seen(c, id, /^hi$/);
    // And the prompt after it: printed after the first status cleared the flag, it would set it again.
    await seen(c, id, /[$#] $/);
    const first = await st();
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("Running: true\nActivity: true\nSize: 40x10\nScrollback: 0/500\n");
    expect((await st()).stdout).toContain("Activity: false\n");
    expect(await st(["--quiet"])).toEqual({ code: 0, stdout: "", stderr: "" });
    await ia(d, bin, ["input", "--socket", socket, "--text", "echo again\n"]);
    expect((await ia(d, bin, ["wait", "--socket", socket])).stdout).toBe("Terminal activity: true\nApplication exited: false\n");
    await ia(d, bin, ["input", "--socket", socket, "--text", "exit 42\n"]);
    expect(await ia(d, bin, ["wait", "--socket", socket, "--quiet"])).toEqual({ code: 0, stdout: "42\n", stderr: "" });
    expect(await st(["--quiet"])).toEqual({ code: 1, stdout: "42\n", stderr: "" });
    const ended = await st();
    expect(ended.code).toBe(0);
    expect(ended.stdout).toMatch(/^Running: false\nActivity: (true|false)\nSize: 40x10\nScrollback: 0\/500\nExit code: 42\n$/);
    expect((await ia(d, bin, ["output", "--socket", socket, "--no-color"])).stdout).toContain("exit 42"); // the final screen stays
  });

  test("wait returns at once on pending activity or exit, blocks otherwise, and a killed waiter wedges nothing", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await start(d, ["--", "bash", "-c", "echo hello; sleep 30"]);
    const w = await ia(d, bin, ["wait", "--socket", socket]);
    expect(w.stdout).toBe("Terminal activity: true\nApplication exited: false\n");
    // No new output: a second wait blocks. Its WAIT reaches the daemon through a relay; a request
    // on another connection after it is answered once the daemon has settled the WAIT (each reads
    // the session once before it answers or waits), and the WAIT is still unanswered then.
    await using via = await relay(socket, join(d.dir, "relay.sock"));
    const blocked = Bun.spawn([...bin, "wait", "--socket", via.path], { stdout: "pipe", stderr: "pipe", env: d.env });
    await via.forwarded;
    expect((await ask(socket, '{"type":"STATUS"}')).data.running).toBe(true);
    expect(via.answered).toBe(false);
    expect(blocked.exitCode).toBe(null);
    blocked.kill("SIGTERM"); // a client must not ignore SIGTERM
    expect(await blocked.exited).not.toBe(0);
    // timeout(1) kills a blocked wait: it exits 124, and the session still serves.
    const t = Bun.spawn(["timeout", "1", ...bin, "wait", "--socket", socket, "--quiet"], { stdout: "pipe", stderr: "pipe", env: d.env });
    expect(await t.exited).toBe(124);
    const t0 = performance.now();
    expect((await ia(d, bin, ["kill", "--socket", socket, "--signal", "KILL"])).code).toBe(0);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect((await ia(d, bin, ["wait", "--socket", socket])).stdout).toBe("Terminal activity: false\nApplication exited: true\n");

    const quick = await start(d, ["--", "echo", "done"]);
    // Ended first (a native wait leaves interminai's activity flag alone): on a busy machine the
    // wait's process could otherwise come between the output and the exit.
    await quick.c.call("session.wait", { session: quick.id, exit: true, timeout_ms: 10000 });
    expect((await ia(d, bin, ["wait", "--socket", quick.socket])).stdout).toBe("Terminal activity: true\nApplication exited: true\n");
    expect((await ia(d, bin, ["output", "--socket", quick.socket, "--no-color"])).stdout.split("\n")[0]).toBe("done");
    const silent = await start(d, ["--", "sleep", "0.3"]);
    expect((await ia(d, bin, ["wait", "--socket", silent.socket])).stdout).toBe("Terminal activity: false\nApplication exited: true\n");
  });

  test("wait --line waits for a row to contain, lose or change its text", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await start(d, ["--size", "40x5", "--", "cat"]);
    const line = (args: string[]) => ia(d, bin, ["wait", "--socket", socket, ...args]);
    expect((await line(["--line", "1", "--not-contains", "x"])).stdout).toBe("Condition already met on line 1\n");
    // One waiter at a time: the activity flag they poll is the session's, and reading clears it.
    const contains = line(["--line", "2", "--contains", "pong"]);
    await ia(d, bin, ["input", "--socket", socket, "--text", "pong\n"]);
    expect((await contains).stdout).toMatch(/^Condition (already )?met on line 2\n$/);
    expect(await line(["--line", "0"])).toMatchObject({ code: 1, stderr: "Error: line number must be 1 or greater (1-based)\n" });
    expect((await line(["--line", "1", "--contains", "a", "--not-contains", "b"])).stderr).toContain("mutually exclusive");
    const exits = line(["--line", "3", "--contains", "never"]);
    await ia(d, bin, ["kill", "--socket", socket]);
    expect((await exits).stdout).toBe("Application exited\n");

    const ticking = await start(d, [
      "--size",
      "20x3",
      "--",
      "bash",
      "-c",
      `i=0; while true; do printf '
%d' $i; i=$((i+1)); sleep 0.1; done`,
    ]);
    // interminai reads the row twice before it waits: a tick between the two reads (a loaded
    // machine) already counts as the change, as it does in interminai.
    expect(await ia(d, bin, ["wait", "--socket", ticking.socket, "--line", "1"])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Condition (already )?met on line 1\n$/),
      stderr: "",
    });
  });

  test("kill sends names and numbers to the program itself; an invalid one is refused", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--", "bash", "-c", "trap 'exit 99' INT; echo ready; while true; do sleep 1; done"]);
    await seen(c, id, "ready");
    const bad = await ia(d, bin, ["kill", "--socket", socket, "--signal", "NOTASIGNAL"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("Invalid signal");
    expect((await ia(d, bin, ["kill", "--socket", socket, "--signal", "9999"])).stderr).toContain("Invalid signal");
    expect(await ia(d, bin, ["kill", "--socket", socket, "--signal", "SIGINT"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await ia(d, bin, ["wait", "--socket", socket, "--quiet"])).stdout).toBe("99\n");
    const st = (await ia(d, bin, ["status", "--socket", socket])).stdout;
    expect(st).toStartWith("Running: false\n");
    expect(st).toContain("Exit code: 99\n");
    const plain = await start(d, ["--", "sleep", "30"]);
    expect(await ia(d, bin, ["kill", "--socket", plain.socket])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await ia(d, bin, ["wait", "--socket", plain.socket, "--quiet"])).stdout).toBe("143\n"); // SIGTERM by default
    for (const sig of ["term", "15", "SIGKILL", "9"]) {
      const s = await start(d, ["--", "sleep", "30"]);
      expect((await ia(d, bin, ["kill", "--socket", s.socket, "--signal", sig])).code).toBe(0);
      expect((await ia(d, bin, ["wait", "--socket", s.socket, "--quiet"])).stdout).toMatch(/^(143|137)\n$/);
    }
  });

  test("resize changes the PTY and the screen; an invalid size is refused", async () => {
    await using d = await TestDaemon.start();
    const { c, id, socket } = await start(d, ["--size", "40x10", "--", "bash", "--norc", "--noprofile"]);
    const rows = async () => (await ia(d, bin, ["output", "--socket", socket, "--no-color"])).stdout.split("\n").length - 1;
    expect(await rows()).toBe(10);
    await ia(d, bin, ["input", "--socket", socket, "--text", "echo marker\n"]);
    await seen(c, id, "marker");
    for (const size of ["80x30", "40x10", "100x30", "60x20", "120x40"]) {
      const [cols, r] = size.split("x").map(Number) as [number, number];
      expect(await ia(d, bin, ["resize", "--socket", socket, "--size", size])).toEqual({
        code: 0,
        stdout: `Terminal resized to ${size}\n`,
        stderr: "",
      });
      expect(await rows()).toBe(r);
      await ia(d, bin, ["input", "--socket", socket, "--text", "stty size\n"]);
      await seen(c, id, `${r} ${cols}`);
    }
    expect((await ia(d, bin, ["output", "--socket", socket, "--no-color"])).stdout).toContain("marker");
    expect((await ia(d, bin, ["resize", "--socket", socket, "--size", "invalid"])).code).not.toBe(0);
  });

  test("debug prints the unhandled sequences and the termios state", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await start(d, ["--", "cat"]);
    const r = await ia(d, bin, ["debug", "--socket", socket]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^(No unhandled escape sequences|Unhandled escape sequences:)\n/);
    expect(r.stdout).toMatch(
      /\nTermios:\n {2}Mode: cooked\n {2}Flags: ECHO ISIG IEXTEN ICRNL IXON OPOST ONLCR\n {2}Hex: iflag=0x\w+ oflag=0x\w+ lflag=0x\w+ cflag=0x\w+\n {2}c_cc: VINTR=\^C VEOF=\^D VERASE=\^\? VKILL=\^U VSUSP=\^Z VQUIT=\^\\\n$/,
    );
    expect((await ia(d, bin, ["debug", "--socket", socket, "--clear"])).code).toBe(0);
  });

  test("vim draws, moves the cursor, edits and saves through interminai", async () => {
    await using d = await TestDaemon.start();
    // Beside the daemon's own files, removed with them.
    const file = join(d.dir, "f.txt");
    writeFileSync(file, "ABCDEFGH\nABCDEFGH\n");
    const { c, id, socket } = await start(d, ["--size", "40x10", "--", "vim", "--clean", file]);
    await seen(c, id, "ABCDEFGH");
    const cursor = async () => (await ia(d, bin, ["output", "--socket", socket, "--cursor", "print", "--no-color"])).stdout.split("\n")[0];
    // Until vim has moved the cursor there: a settle could pass before a loaded vim read the keys.
    const movedTo = async (row: number, col: number) => {
      let screen = await c.call("session.screen", { session: id });
      while (screen.cursor.row !== row || screen.cursor.col !== col)
        screen = (await c.call("session.wait", { session: id, changed_from: screen.hash, timeout_ms: 5000 })).screen;
    };
    await ia(d, bin, ["input", "--socket", socket, "--text", "lll"]);
    await movedTo(0, 3);
    expect(await cursor()).toBe("Cursor: row 1, col 4");
    await ia(d, bin, ["input", "--socket", socket], { stdin: "j0lllll" });
    await movedTo(1, 5);
    expect(await cursor()).toBe("Cursor: row 2, col 6");
    await ia(d, bin, ["input", "--socket", socket], { stdin: "ggOnew line" });
    await seen(c, id, "-- INSERT --");
    await ia(d, bin, ["input", "--socket", socket], { stdin: "\x1b:wq\n" });
    expect(await ia(d, bin, ["wait", "--socket", socket, "--quiet"])).toMatchObject({ code: 0, stdout: "0\n" });
    expect(readFileSync(file, "utf8")).toBe("new line\nABCDEFGH\nABCDEFGH\n");
  });

  test("input --password reads the secret from its terminal with echo off and sends it with Enter", async () => {
    await using d = await TestDaemon.start();
    const target = await start(d, ["--", "bash", "-c", 'read -s -p "Password: " p; echo; echo "got=$p"; sleep 30']);
    await seen(target.c, target.id, "Password:");
    // The client runs on a terminal of its own: a termd session.
    const outer = await target.c.call("session.create", {
      command: [...bin, "input", "--socket", target.socket, "--password"],
      rows: 10,
      cols: 60,
      env: d.env,
    });
    await seen(target.c, outer.id, "Type your secret or password and press Enter.");
    await seen(target.c, outer.id, "Password: ");
    await target.c.call("session.input", { session: outer.id, text: "s3cret\r" });
    const done = await target.c.call("session.wait", { session: outer.id, exit: true, timeout_ms: 5000 });
    expect(done.exit_code).toBe(0);
    expect(done.screen.lines.join("\n")).not.toContain("s3cret");
    await seen(target.c, target.id, "got=s3cret");
    const noTty = await ia(d, bin, ["input", "--socket", target.socket, "--password"]);
    expect(noTty.code).not.toBe(0);
    expect(noTty.stderr).toMatch(/terminal|password/);
  });

  test("a program that cannot be executed counts as exited with code 1", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await start(d, ["--", "/this/command/does/not/exist"]);
    expect((await ia(d, bin, ["wait", "--socket", socket, "--quiet"])).stdout).toBe("1\n");
    expect((await ia(d, bin, ["status", "--socket", socket])).stdout).toContain("Exit code: 1\n");
    expect(await ia(d, bin, ["status", "--socket", socket, "--quiet"])).toEqual({ code: 1, stdout: "1\n", stderr: "" });
  });

  test("--emulator custom gives TERM=ansi and never colour; --pty-dump appends every byte", async () => {
    await using d = await TestDaemon.start();
    const dump = join(d.dir, "dump.bin");
    writeFileSync(dump, "before\n");
    const { c, id, socket } = await start(d, [
      "--emulator",
      "custom",
      "--pty-dump",
      dump,
      "--",
      "bash",
      "-c",
      String.raw`echo "term=$TERM"; printf '\e[31mred\e[0m\n'; sleep 30`,
    ]);
    await seen(c, id, "red");
    const out = (await ia(d, bin, ["output", "--socket", socket, "--color"])).stdout;
    expect(out.split("\n").slice(0, 2)).toEqual(["term=ansi", "red"]);
    expect((await ia(d, bin, ["stop", "--socket", socket])).code).toBe(0);
    expect(readFileSync(dump, "utf8")).toBe("before\nterm=ansi\r\n\x1b[31mred\x1b[0m\r\n");
    const xterm = await start(d, ["--emulator", "xterm", "--", "bash", "-c", 'echo "term=$TERM"; sleep 30']);
    await seen(xterm.c, xterm.id, "term=xterm-256color");
  });

  test("usage errors, help and unreachable sockets read as interminai's", async () => {
    await using d = await TestDaemon.start();
    for (const sub of ["output", "input", "stop", "status", "wait", "kill", "resize", "debug"]) {
      const r = await ia(d, bin, [sub]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--socket");
    }
    const noProgram = await ia(d, bin, ["start"]);
    expect(noProgram.code).toBe(2);
    expect(noProgram.stderr).toContain("required arguments were not provided");
    const badSize = await ia(d, bin, ["start", "--size", "notasize", "--", "cat"]);
    expect(badSize.code).not.toBe(0);
    expect(badSize.stderr).toContain("Invalid size format, expected WxH like 80x24");
    expect((await d.client().then((c) => c.call("session.list"))).sessions).toEqual([]); // nothing started
    expect((await ia(d, bin, ["wait", "--help"])).stdout).toContain("--quiet");
    const help = await ia(d, bin, ["input", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--password");
    expect(help.stdout).toContain("echo disabled");
    for (const sub of ["output", "input", "stop", "status", "wait", "kill", "debug"]) {
      const r = await ia(d, bin, [sub, "--socket", join(d.dir, "nothing-here")]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("No such file or directory");
    }
    expect((await ia(d, bin, ["--help"])).code).toBe(0);
    expect((await ia(d, bin, [])).code).toBe(2);
  });

  test("output piped into head ends quietly", async () => {
    await using d = await TestDaemon.start();
    const { socket } = await start(d, ["--size", "80x100", "--", "bash", "-c", "seq 1 300; sleep 30"]);
    const p = Bun.spawn(["bash", "-c", `${bin.map((a) => `'${a}'`).join(" ")} output --socket '${socket}' --from - | head -1`], {
      stdout: "pipe",
      stderr: "pipe",
      env: d.env,
    });
    const [out, errText, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(0);
    expect(out).toBe("1\n");
    expect(errText).toBe("");
  });
});
