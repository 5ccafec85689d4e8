// Mouse input through a real daemon: session.input's mouse events reach a program in the form
// its mouse mode asked for (exact bytes from a fixture that echoes them; a click that moves vim's
// cursor), a program with no mouse mode gets an error instead of stray bytes, and `termd send`'s
// mouse flags.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcError } from "../src/client/index.ts";
import { sharedDaemon } from "./harness.ts";

const ECHO = join(import.meta.dir, "fixtures", "mouse-echo.py");

const shared = sharedDaemon();

/** Resolves once the session's program has turned on mouse reporting (the tap's mode event). */
async function mouseOn(session: string): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const sub = await shared.c.subscribe({ session, events: ["mode"] }, (e) => {
    if (e.data.mode === "mouse" && e.data.value !== "none") resolve();
  });
  if ((await shared.c.call("session.info", { session })).modes.mouse !== "none") resolve();
  await promise;
  await sub.unsubscribe();
}

/** A session running the echo fixture with these modes, once it has said "ready". */
async function echo(name: string, modes: string[]): Promise<void> {
  await shared.c.call("session.create", { name, command: ["python3", ECHO, ...modes], rows: 10, cols: 200 });
  await shared.c.call("session.wait", { session: name, text: "ready" });
}

/** Waits until the fixture shows exactly `bytes` read, as Python's repr writes them. */
async function expectRead(session: string, repr: string): Promise<void> {
  const w = await shared.c.call("session.wait", { session, text: `read ${repr}`, timeout_ms: 5000 });
  expect(w.screen.lines.find((l) => l.startsWith("read "))?.trimEnd()).toBe(`read ${repr}`);
}

describe("session.input mouse", () => {
  test("a click reaches a program in modes 1000 and 1006 as SGR press and release, 1-based on the wire", async () => {
    await echo("sgr", ["1000", "1006"]);
    expect((await shared.c.call("session.info", { session: "sgr" })).modes).toMatchObject({ mouse: "vt200", mouse_sgr: true });
    const r = await shared.c.call("session.input", { session: "sgr", mouse: { action: "click", row: 2, col: 4, button: "right" } });
    expect(r.bytes).toBe(18);
    await expectRead("sgr", "b'\\x1b[<2;5;3M\\x1b[<2;5;3m'");
    await shared.c.call("session.input", {
      session: "sgr",
      mouse: { action: "scroll", row: 0, col: 0, direction: "down", count: 2, ctrl: true },
    });
    await expectRead("sgr", "b'\\x1b[<2;5;3M\\x1b[<2;5;3m\\x1b[<81;1;1M\\x1b[<81;1;1M'");
  });

  test("without 1006 the legacy encoding is sent: each value + 32 in one byte, releases as button 3", async () => {
    await echo("legacy", ["1002"]);
    await shared.c.call("session.input", {
      session: "legacy",
      mouse: { action: "drag", from: { row: 0, col: 0 }, to: { row: 1, col: 1 } },
    });
    // Press at 1,1; motion (32) at 2,2; release at 2,2.
    await expectRead("legacy", 'b\'\\x1b[M !!\\x1b[M@""\\x1b[M#""\'');
  });

  test("a program that turned on no mouse reporting gets MOUSE_NOT_ENABLED, and no bytes", async () => {
    await echo("plain", []);
    const err = await shared.c.call("session.input", { session: "plain", mouse: { action: "click", row: 0, col: 0 } }).catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).name).toBe("MOUSE_NOT_ENABLED");
    expect((err as RpcError).message).toContain("asked for no mouse reporting");
    // Typed text still arrives, and nothing came before it.
    await shared.c.call("session.input", { session: "plain", text: "x" });
    await expectRead("plain", "b'x'");
  });

  test("a session whose program ended is SESSION_NOT_RUNNING, whatever mouse mode it left on", async () => {
    await echo("ended", ["1000"]);
    await shared.c.call("session.input", { session: "ended", text: "q" });
    await shared.c.call("session.wait", { session: "ended", exit: true });
    const err = (await shared.c
      .call("session.input", { session: "ended", mouse: { action: "click", row: 0, col: 0 } })
      .catch((e) => e)) as RpcError;
    expect(err.name).toBe("SESSION_NOT_RUNNING");
  });

  test("a point off the screen is INVALID_PARAMS naming the screen's size", async () => {
    await echo("off", ["1000", "1006"]);
    const err = (await shared.c
      .call("session.input", { session: "off", mouse: { action: "click", row: 10, col: 0 } })
      .catch((e) => e)) as RpcError;
    expect(err.name).toBe("INVALID_PARAMS");
    expect(err.message).toContain("outside the 10x200 screen");
  });

  test("a click in vim with mouse=a moves its cursor there (0-based, as session.screen's cursor)", async () => {
    const dir = shared.dir;
    const file = join(dir, "lines.txt");
    writeFileSync(file, Array.from({ length: 8 }, (_, i) => `line number ${i + 1}`).join("\n") + "\n");
    await shared.c.call("session.create", {
      name: "vim",
      command: ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "-c", "set mouse=a", file],
      rows: 12,
      cols: 60,
      cwd: dir,
    });
    await shared.c.call("session.wait", { session: "vim", text: "line number 8" });
    await mouseOn("vim");
    // vim redraws everything once its queries are answered: the cursor is at the top once that is done.
    expect((await waitForCursor("vim", 0, 0)).cursor).toMatchObject({ row: 0, col: 0 });
    await shared.c.call("session.input", { session: "vim", mouse: { action: "click", row: 5, col: 7 } });
    const screen = await waitForCursor("vim", 5, 7);
    expect(screen.cursor).toMatchObject({ row: 5, col: 7 });
    // vim agrees: the line and column it reports for the cursor (1-based in vim).
    await shared.c.call("session.input", { session: "vim", keys: ["Escape"] });
    await shared.c.call("session.input", { session: "vim", text: ":echo line('.') . ',' . col('.')\r" });
    await shared.c.call("session.wait", { session: "vim", regex: "^6,8\\s*$" });
    await shared.c.call("session.input", { session: "vim", text: ":q!\r" });
    expect((await shared.c.call("session.wait", { session: "vim", exit: true })).exit_code).toBe(0);
  });
});

/** The screen once the cursor is at row, col (waits on screen changes, never on time). */
async function waitForCursor(session: string, row: number, col: number) {
  let screen = await shared.c.call("session.screen", { session });
  while (screen.cursor.row !== row || screen.cursor.col !== col) {
    const w = await shared.c.call("session.wait", { session, changed_from: screen.hash, timeout_ms: 5000 });
    if (w.outcome === "timeout") break;
    screen = w.screen;
  }
  return screen;
}

describe("termd send's mouse flags", () => {
  test("--click, --scroll, --drag with --button and --modifiers, in the order given with text", async () => {
    await echo("cli", ["1002", "1006"]);
    const sent = await shared.d.cli([
      "send",
      "cli",
      "--click",
      "1,2",
      "--text",
      "t",
      "--scroll",
      "0,0:up:2",
      "--drag",
      "0,0:0,1",
      "--button",
      "middle",
      "--modifiers",
      "shift",
    ]);
    expect(sent).toMatchObject({ code: 0, stderr: "" });
    await expectRead("cli", "b'\\x1b[<5;3;2M\\x1b[<5;3;2mt\\x1b[<68;1;1M\\x1b[<68;1;1M\\x1b[<5;1;1M\\x1b[<37;2;1M\\x1b[<5;2;1m'");
  });

  test("a bad position is a usage error before anything is sent; no mouse mode is an error naming it", async () => {
    await echo("cli2", []);
    const bad = await shared.d.cli(["send", "cli2", "--text", "a", "--click", "1;2"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--click needs ROW,COL");
    const off = await shared.d.cli(["send", "cli2", "--click", "1,2"]);
    expect(off.code).not.toBe(0);
    expect(off.stderr).toContain("asked for no mouse reporting");
    await shared.c.call("session.input", { session: "cli2", text: "z" });
    await expectRead("cli2", "b'z'");
  });
});
