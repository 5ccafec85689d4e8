// What the vt tap reads in a session's output, as the daemon shows it (session.info, session.debug,
// the screen's modes, an attached terminal's stream without the answered queries), is what the tap
// itself reads in the same bytes: wherever the daemon runs its tap, the facts stay the same. The
// streams are real sessions recorded through termd (their logs): bash with termd's shell
// integration (OSC 133 marks, OSC 7, a title, a bell, unhandled sequences, a query and its
// reply, modes, a failing command), vim (alternate screen, title, queries, syntax colours) and
// less. A program replays each into a raw terminal (no output processing), so the session's bytes
// are the fixture's.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import type { Mark } from "../src/terminal/tap-facts.ts";
import { VtTap } from "../src/terminal/vt-tap.ts";
import { TestDaemon } from "./harness.ts";

const FIXTURES = join(import.meta.dir, "fixtures/tap");

let daemon: TestDaemon | null = null;
afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]();
});

async function client(): Promise<Client> {
  daemon ??= await TestDaemon.start();
  return daemon.client();
}

/** A mark without its time (taken when it was read). */
const timeless = (marks: readonly Mark[]) => marks.map(({ time: _, ...m }) => m);

/** What the tap reads in `bytes` fed in pieces of `piece` bytes, as the daemon's replies show it. */
function expected(bytes: Uint8Array, piece: number) {
  const tap = new VtTap();
  for (let at = 0; at < bytes.length; at += piece) tap.feed(bytes.subarray(at, at + piece));
  const hold = tap.queryHold;
  return {
    title: tap.title,
    cwd: tap.cwd,
    modes: tap.modes,
    bells: tap.bells,
    lastExitCode: tap.lastExitCode,
    running: tap.running?.command ?? null,
    marks: timeless(tap.marks),
    unhandled: tap.unhandled().unhandled,
    // Output past a sequence that may still become a query waits, while the program runs.
    stripped: Buffer.from(tap.queries.cut(bytes.subarray(0, hold ?? bytes.length), 0)),
  };
}

/** Replays `file` into a session and reads back what the daemon made of it; `stripped`: how many bytes the attach stream should carry. */
async function actual(c: Client, watcher: Client, file: string, length: number, stripped: number) {
  // Raw: no \n to \r\n, no echo of the replies the daemon writes back for the queries.
  const info = await c.call("session.create", {
    command: ["sh", "-c", 'stty raw -echo; cat "$0"; exec sleep 600', file],
    shell_integration: false,
  });
  const session = info.id;
  // Every byte is in once a plain subscriber has them; the attach stream may stop short at a held query.
  const all = Promise.withResolvers<void>();
  const whole = await watcher.subscribe({ session, events: ["output"], replay: true }, (e) => {
    if (e.type === "output" && Number(e.data.to) >= length) all.resolve();
  });
  const out: Buffer[] = [];
  let got = 0;
  const cut = Promise.withResolvers<void>();
  const sub = await c.subscribe({ session, events: ["output"], replay: true, strip_queries: true }, (e) => {
    if (e.type !== "output") return;
    const bytes = Buffer.from(String(e.data.base64), "base64");
    out.push(bytes);
    got += bytes.length;
    if (got >= stripped) cut.resolve();
  });
  await all.promise;
  await cut.promise;
  const s = await c.call("session.info", { session });
  expect(s.bytes_out).toBe(length);
  const debug = await c.call("session.debug", { session });
  const screen = await c.call("session.screen", { session });
  await sub.unsubscribe();
  await whole.unsubscribe();
  await c.call("session.remove", { session, force: true });
  expect(screen.modes).toEqual(s.modes);
  expect(debug.modes).toEqual(s.modes);
  return {
    title: s.title,
    cwd: s.current_cwd,
    modes: s.modes,
    bells: s.bells,
    lastExitCode: s.last_exit_code,
    running: s.running_command?.command ?? null,
    marks: timeless(debug.marks as Mark[]),
    unhandled: debug.unhandled,
    stripped: Buffer.concat(out),
  };
}

describe("the tap's facts, as the daemon shows them, are the tap's own reading of the same bytes", () => {
  for (const name of ["bash", "vim", "less"]) {
    test(`a recorded ${name} session`, async () => {
      const file = join(FIXTURES, `${name}.bin`);
      const bytes = readFileSync(file);
      const want = expected(bytes, bytes.length);
      // However the stream is cut, the tap reads the same: a byte at a time is the hardest cut.
      expect(expected(bytes, 1)).toEqual(want);
      expect(expected(bytes, 4096)).toEqual(want);
      const got = await actual(await client(), await client(), file, bytes.length, want.stripped.length);
      expect(got).toEqual(want);
    });
  }

  test("the recordings hold what the comparison is about", () => {
    const bash = expected(readFileSync(join(FIXTURES, "bash.bin")), 1 << 20);
    expect(bash.title).toBe("pushed");
    expect(bash.cwd).toStartWith("/tmp/");
    expect(bash.bells).toBe(1);
    expect(bash.lastExitCode).toBe(0);
    expect(bash.marks.filter((m) => m.kind === "D").map((m) => m.exit_code)).toContain(1);
    expect(bash.unhandled.length).toBeGreaterThan(0);
    expect(bash.modes).toMatchObject({ application_cursor: true, application_keypad: true, bracketed_paste: true });
    const vim = readFileSync(join(FIXTURES, "vim.bin"));
    // vim's queries (cursor position, device attributes, colours) are cut from the attach stream.
    expect(expected(vim, 1 << 20).stripped.length).toBeLessThan(vim.length);
    expect(expected(vim, 1 << 20).modes.alternate).toBe(false);
  });
});

test("a restarted program's tap goes on from where the last run's ended: a mode it turns off again is off", async () => {
  const c = await client();
  const flag = join(daemon!.dir, "second-run");
  // The first run turns application cursor keys on and sets a title; the second turns the mode off.
  const script = `if [ -e "$0" ]; then printf '\\033[?1lsecond\\n'; else touch "$0"; printf '\\033[?1h\\033]2;first\\007first\\n'; fi`;
  const info = await c.call("session.create", { command: ["sh", "-c", script, flag], shell_integration: false });
  await c.call("session.wait", { session: info.id, exit: true });
  expect(await c.call("session.info", { session: info.id })).toMatchObject({ title: "first", modes: { application_cursor: true } });
  await c.call("session.restart", { session: info.id });
  expect((await c.call("session.wait", { session: info.id, regex: "^second$" })).outcome).toBe("matched");
  await c.call("session.wait", { session: info.id, exit: true });
  expect(await c.call("session.info", { session: info.id })).toMatchObject({ title: "first", modes: { application_cursor: false } });
  await c.call("session.remove", { session: info.id, force: true });
});
