// Integration tests of the vt tap and the queries the daemon answers: a real daemon on a temp
// socket, real programs (vim, less, bash, python3). Nothing sleeps to wait: every step waits for a
// screen text, a file a program wrote, an event or the session's end.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { Subscription } from "../src/daemon/subscription.ts";
import type { EventMessage } from "../src/protocol/schemas.ts";
import { VERSION } from "../src/protocol/version.ts";
import { TestDaemon } from "./harness.ts";
import { shell as bashAtPrompt, run } from "./shell-session.ts";
import { spawnedSessions } from "./unit-fixtures.ts";

const VIM = ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE"];

const tmp = mkdtempSync(join(tmpdir(), "termd-modes-debug-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * A terminal program in python3: raw mode, writes argv[1] (hex) followed by DA1 as a sentinel,
 * reads until xterm's DA1 reply has come, and saves what came before it (hex) in argv[2]. Any
 * second answer to the query would arrive before the sentinel's, since replies keep query order.
 */
const PROBE = join(tmp, "probe.py");
writeFileSync(
  PROBE,
  `import os, sys, termios, tty, select
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
sentinel = b"\\x1b[?1;2c"
buf = b""
try:
    os.write(1, bytes.fromhex(sys.argv[1]) + b"\\x1b[c")
    while sentinel not in buf:
        r, _, _ = select.select([fd], [], [], 10)
        if not r:
            break
        buf += os.read(fd, 1024)
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
with open(sys.argv[2], "w") as f:
    f.write(buf.split(sentinel)[0].hex() if sentinel in buf else "no-sentinel:" + buf.hex())
print("probe done")
input()
`,
);

/** Reads what a key press sends: pushes kitty flags 1, reads one burst, saves it (hex) in argv[1]. */
const KEYREAD = join(tmp, "keyread.py");
writeFileSync(
  KEYREAD,
  `import os, sys, termios, tty
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(1, b"\\x1b[>1ukitty on\\r\\n")
data = os.read(fd, 64)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
os.write(1, b"\\x1b[<u")
with open(sys.argv[1], "w") as f:
    f.write(data.hex())
print("key read")
`,
);

const hex = (s: string) => Buffer.from(s).toString("hex");

/** Runs the probe with `query` in a fresh session; returns the replies that came before DA1's. */
async function probe(c: Client, name: string, query: string): Promise<string> {
  const out = join(tmp, `${name}.out`);
  await c.call("session.create", { name, command: ["python3", PROBE, hex(query), out] });
  expect((await c.call("session.wait", { session: name, text: "probe done" })).outcome).toBe("matched");
  return Buffer.from(readFileSync(out, "utf8"), "hex").toString();
}

/** A bash session at its prompt, without termd's own hooks: these tests are about what the program prints. */
const shell = (c: Client, name: string) => bashAtPrompt(c, name, { shell_integration: false });

/** The name of the process group leading the terminal of `pid` (tpgid, /proc/PID/stat's 8th field). */
function foregroundName(pid: number): string {
  try {
    const tpgid = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[5]!;
    return readFileSync(`/proc/${tpgid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

// Command lines here end in `echo print''ed`: the wait for "printed" then matches the output and
// never the echoed command line, however it wraps.

/** Events of `type` collected from a subscription, with a way to wait for one matching `pred`. */
async function collect(c: Client, session: string, type: "title" | "bell" | "mode") {
  const seen: EventMessage[] = [];
  const waiters: { pred: (e: EventMessage) => boolean; resolve: (e: EventMessage) => void }[] = [];
  await c.subscribe({ session, events: [type] }, (e) => {
    if (e.type !== type) return;
    seen.push(e);
    for (const w of waiters.splice(0))
      if (w.pred(e)) w.resolve(e);
      else waiters.push(w);
  });
  return {
    seen,
    next(pred: (e: EventMessage) => boolean): Promise<EventMessage> {
      const found = seen.find(pred);
      if (found) return Promise.resolve(found);
      const { promise, resolve } = Promise.withResolvers<EventMessage>();
      waiters.push({ pred, resolve });
      return promise;
    },
  };
}

describe("modes from the tap", () => {
  test("vim turns on application cursor keys and the alternate screen, Up moves its cursor, and :q leaves both", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const file = join(tmp, "lines.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    await c.call("session.create", { name: "vim", command: [...VIM, file] });
    expect((await c.call("session.wait", { session: "vim", regex: "^three$" })).outcome).toBe("matched");
    const modes = await collect(c, "vim", "mode");
    const info = await c.call("session.info", { session: "vim" });
    expect(info.modes).toMatchObject({ application_cursor: true, alternate: true });

    await c.call("session.input", { session: "vim", keys: ["Down", "Down"] });
    let w = await c.call("session.wait", { session: "vim", settle_ms: 50 });
    while (w.screen.cursor.row !== 2) w = await c.call("session.wait", { session: "vim", changed_from: w.screen.hash });
    await c.call("session.input", { session: "vim", keys: ["Up"] });
    while (w.screen.cursor.row !== 1) w = await c.call("session.wait", { session: "vim", changed_from: w.screen.hash });
    expect(w.screen.modes.application_cursor).toBe(true);

    await c.call("session.input", { session: "vim", keys: ["Escape", ":", "q", "!", "Enter"] });
    expect((await c.call("session.wait", { session: "vim", exit: true })).exit_code).toBe(0);
    await modes.next((e) => e.data.mode === "alternate" && e.data.value === false);
    expect((await c.call("session.info", { session: "vim" })).modes).toMatchObject({ alternate: false, application_cursor: false });
  });

  test("less enters the alternate screen and leaves it on q", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const file = join(tmp, "less.txt");
    writeFileSync(file, Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
    await c.call("session.create", { name: "less", command: ["less", file], env: { LESSHISTFILE: "-" } });
    const w = await c.call("session.wait", { session: "less", text: "line 0" });
    expect(w.screen.modes.alternate).toBe(true);
    expect(w.screen.alternate).toBe(true);
    await c.call("session.input", { session: "less", text: "q" });
    expect((await c.call("session.wait", { session: "less", exit: true })).screen.modes.alternate).toBe(false);
  });
});

describe("title, cwd, marks, bell", () => {
  test("printf '\\e]2;hello\\a' sets the title: info and screen show it, and subscribers get a title event", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const titles = await collect(c, "sh", "title");
    await run(c, "sh", "printf '\\033]2;hello\\007'; echo print''ed");
    expect((await c.call("session.wait", { session: "sh", regex: "^printed" })).screen.title).toBe("hello");
    expect((await c.call("session.info", { session: "sh" })).title).toBe("hello");
    expect((await titles.next((e) => e.data.title === "hello")).data).toEqual({ title: "hello" });
  });

  test("OSC 7 sets the current directory, OSC 133 D;3 the last exit status, and BEL counts", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    const bells = await collect(c, "sh", "bell");
    await run(c, "sh", "printf '\\033]7;file://host/srv/my%%20dir\\033\\\\\\033]133;D;3\\007\\007\\007'; echo print''ed");
    const w = await c.call("session.wait", { session: "sh", regex: "^printed" });
    expect(w.screen.current_cwd).toBe("/srv/my dir");
    const info = await c.call("session.info", { session: "sh" });
    expect(info).toMatchObject({ current_cwd: "/srv/my dir", last_exit_code: 3, bells: 2 });
    expect((await bells.next((e) => e.data.count === 2)).data).toEqual({ count: 2 });
    const debug = await c.call("session.debug", { session: "sh" });
    expect(debug.marks.map((m) => [m.kind, m.exit_code])).toEqual([["D", 3]]);
  });
});

describe("session.debug", () => {
  test("an unknown sequence shows up readably with its hex, SGR does not, and clear empties the log", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "printf '\\033[1;31mred\\033[0m\\033[?9999h\\033]9999;x\\007\\n'; echo print''ed");
    await c.call("session.wait", { session: "sh", regex: "^printed" });
    const first = await c.call("session.debug", { session: "sh", clear: true });
    expect(first.unhandled).toEqual([
      { sequence: "\\e[?9999h", raw_hex: "1b5b3f3939393968" },
      { sequence: "\\e]9999;x\\a", raw_hex: "1b5d393939393b7807" },
    ]);
    expect(first.dropped).toBe(0);
    expect(await c.call("session.debug", { session: "sh" })).toMatchObject({ unhandled: [], dropped: 0 });
  });

  test("--debug-buffer bounds the log and counts what fell out", async () => {
    await using d = await TestDaemon.start({ args: ["--debug-buffer", "2"] });
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "printf '\\033[?9001h\\033[?9002h\\033[?9003h'; echo print''ed");
    await c.call("session.wait", { session: "sh", regex: "^printed" });
    const r = await c.call("session.debug", { session: "sh" });
    expect(r.unhandled.map((u) => u.sequence)).toEqual(["\\e[?9002h", "\\e[?9003h"]);
    expect(r.dropped).toBe(1);
  });

  test("termios reads cooked, then raw after stty raw, with the control characters", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    // At the prompt readline has the terminal in its own (non-canonical) mode; it gives back the
    // cooked one before it runs a command, so by the time echo has printed, cat reads cooked.
    const atPrompt = (await c.call("session.debug", { session: "sh" })).termios;
    expect(atPrompt?.mode).toBe("raw");
    await run(c, "sh", "echo cooked-''now; cat");
    await c.call("session.wait", { session: "sh", regex: "^cooked-now" });
    const t = (await c.call("session.debug", { session: "sh" })).termios;
    expect(t).toMatchObject({ mode: "cooked" });
    expect(t!.flags).toEqual(expect.arrayContaining(["ICANON", "ECHO", "ISIG", "ICRNL", "OPOST", "ONLCR"]));
    expect(t!.c_cc).toMatchObject({ VINTR: "^C", VEOF: "^D", VERASE: "^?", VSUSP: "^Z" });

    // Ctrl+C reaches cat only once cat has the terminal; before that it goes to bash, which
    // ignores it and would go on to start cat anyway.
    const pid = (await c.call("session.info", { session: "sh" })).pid!;
    for (let i = 0; foregroundName(pid) !== "cat"; i++) {
      expect(i).toBeLessThan(400);
      await c.call("session.wait", { session: "sh", exit: true, timeout_ms: 25 });
    }
    await c.call("session.input", { session: "sh", keys: ["C-c"] });
    expect((await c.call("session.wait", { session: "sh", regex: "^\\$ $" })).outcome).toBe("matched");
    await run(c, "sh", "stty raw -echo; echo; echo is-''raw; cat");
    expect((await c.call("session.wait", { session: "sh", regex: "^is-raw" })).outcome).toBe("matched");
    const raw = (await c.call("session.debug", { session: "sh" })).termios!;
    expect(raw.mode).toBe("raw");
    expect(raw.flags).not.toContain("ICANON");
    expect(raw.flags).not.toContain("ECHO");
  });

  test("termd debug prints the log, termios and modes, and --clear empties the log", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "printf '\\033[?9999h\\033[?2004h'; echo print''ed");
    await c.call("session.wait", { session: "sh", regex: "^printed" });
    const r = await d.cli(["debug", "sh", "--clear"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\\e[?9999h");
    expect(r.stdout).toContain("1b5b3f3939393968");
    expect(r.stdout).toMatch(/termios: +(cooked|raw)/);
    expect(r.stdout).toContain("bracketed_paste");
    const j = await d.cli(["debug", "sh", "--json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ unhandled: [], dropped: 0 });
  });
});

describe("queries answered with no client attached", () => {
  test("a program that writes \\e[6n reads the right cursor position", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    // "abc" on row 1, then CR LF and "xy": the cursor is at row 2, column 3.
    expect(await probe(c, "cpr", "abc\r\nxy\x1b[6n")).toBe("\x1b[2;3R");
  });

  test.each([
    ["XTVERSION", "\x1b[>q", `\x1bP>|termd(${VERSION})\x1b\\`],
    ["DECRQM of a tracked mode", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"],
    ["DECRQM of an unknown mode", "\x1b[?9999$p", "\x1b[?9999;0$y"],
    ["OSC 11", "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x1b\\"],
    ["OSC 10", "\x1b]10;?\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"],
    ["the kitty keyboard query", "\x1b[>5u\x1b[?u", "\x1b[?5u"],
  ])("%s is answered exactly once", async (name, query, reply) => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    expect(await probe(c, name.replace(/\W+/g, "-"), query)).toBe(reply);
  });
});

describe("input that follows the app's modes", () => {
  test("once the app pushed kitty keyboard flags, Shift+Enter arrives as CSI 13;2u", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const out = join(tmp, "kitty.out");
    await c.call("session.create", { name: "keys", command: ["python3", KEYREAD, out] });
    await c.call("session.wait", { session: "keys", text: "kitty on" });
    expect((await c.call("session.info", { session: "keys" })).modes.kitty_keyboard).toBe(1);
    await c.call("session.input", { session: "keys", keys: ["Shift+Enter"] });
    expect((await c.call("session.wait", { session: "keys", exit: true })).exit_code).toBe(0);
    expect(Buffer.from(readFileSync(out, "utf8"), "hex").toString()).toBe("\x1b[13;2u");
    expect((await c.call("session.info", { session: "keys" })).modes.kitty_keyboard).toBe(0);
  });

  test("a paste is bracketed once the app turned 2004 on", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const out = join(tmp, "paste.out");
    await c.call("session.create", {
      name: "paste",
      command: [
        "python3",
        "-c",
        `import os,sys,tty;tty.setraw(0);os.write(1,b"\\x1b[?2004hready\\r\\n");d=b""\nwhile not d.endswith(b"\\x1b[201~"): d+=os.read(0,64)\nopen(${JSON.stringify(out)},"w").write(d.hex())`,
      ],
    });
    await c.call("session.wait", { session: "paste", text: "ready" });
    await c.call("session.input", { session: "paste", paste: "hi" });
    await c.call("session.wait", { session: "paste", exit: true });
    expect(Buffer.from(readFileSync(out, "utf8"), "hex").toString()).toBe("\x1b[200~hi\x1b[201~");
  });
});

describe("session.wait settle and synchronized output", () => {
  test("a frame inside ?2026h … ?2026l is never settled; the end of the frame is", async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    await shell(c, "sh");
    await run(c, "sh", "printf '\\033[?2026h%s' 'half a frame'; read x; printf '\\033[?2026l%s\\n' whole");
    const mid = await c.call("session.wait", { session: "sh", regex: "^half a frame" });
    expect(mid.screen.modes.synchronized_output).toBe(true);
    // Quiet for far longer than settle_ms, but mid-frame: the wait ends by its timeout.
    expect((await c.call("session.wait", { session: "sh", settle_ms: 50, timeout_ms: 500 })).outcome).toBe("timeout");
    await c.call("session.input", { session: "sh", keys: ["Enter"] });
    const done = await c.call("session.wait", { session: "sh", settle_ms: 50, timeout_ms: 5000 });
    expect(done.outcome).toBe("settled");
    expect(done.screen.modes.synchronized_output).toBe(false);
    expect(done.screen.lines.join("\n")).toContain("whole");
  });
});

describe("the attach stream", () => {
  const sessions = spawnedSessions("modes-debug-attach");

  test("a subscriber with stripQueries gets the output without the queries the daemon answered", async () => {
    // Raw mode, so the replies the daemon writes back are not echoed into the output.
    const command = [
      "python3",
      "-c",
      `import os, tty\ntty.setraw(0)\nfor part in [b"a\\x1b[6", b"n\\x1b[1mb\\x1b]11;?", b"\\x07\\x1b[>qc\\x1b[?9999h"]: os.write(1, part)`,
    ];
    const s = await sessions.spawn("strip", command, {
      size: { rows: 24, cols: 80 },
      scrollback: 100,
      env: process.env as Record<string, string>,
    });
    const out: Buffer[] = [];
    const exited = Promise.withResolvers<void>();
    const sub = new Subscription(
      s,
      {
        writable: true,
        sendEvent: (e) => {
          if (e.type === "output") out.push(Buffer.from(String(e.data.base64), "base64"));
          if (e.type === "exit") exited.resolve();
        },
      },
      0,
    );
    sub.add(["output", "exit"], { stripQueries: true });
    await exited.promise;
    sub.dispose();
    s.dispose();
    expect(Buffer.concat(out).toString()).toBe("a\x1b[1mbc\x1b[?9999h");
    // The session's own record of the output keeps every byte.
    expect(Buffer.from(s.stream.readOutput(0, 1000)).toString()).toBe("a\x1b[6n\x1b[1mb\x1b]11;?\x07\x1b[>qc\x1b[?9999h");
  });
});
