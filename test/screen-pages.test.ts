// session.screen's scrollback comes in pages: a reply holds the newest lines that fit under
// MAX_PAGE_REPLY with the screen (src/protocol/framing.ts), says how many (scrollback_lines) and
// where they end (scrollback_end), and a client walks back from there; every line comes once, in
// order. The client's screen() and `termd screen --scrollback` do the walking.
import { expect, test } from "bun:test";
import { MAX_PAGE_REPLY } from "../src/protocol/framing.ts";
import type { ScreenSnapshot } from "../src/protocol/schemas.ts";
import { Screen } from "../src/terminal/screen.ts";
import { sharedDaemon } from "./harness.ts";

const shared = sharedDaemon();
const replySize = (result: unknown) => Buffer.byteLength(JSON.stringify(result));
const ALL = 1_000_000_000;

/** A session whose python prints `lines` lines (`line` makes line i from its number, as python) and ends. */
async function printed(name: string, size: { rows: number; cols: number }, lines: number, line: string): Promise<void> {
  const py = `import sys\nw = sys.stdout.write\nfor i in range(${lines}):\n    w(${line} + "\\r\\n")\n`;
  await shared.c.call("session.create", { name, command: ["python3", "-c", py], ...size, scrollback: lines });
  await shared.c.call("session.wait", { session: name, exit: true, timeout_ms: 60_000 });
}

/** The pages of `format` from the newest back, each reply checked against the bound, newest first. */
async function walk(session: string, format: "text" | "ansi" | "cells"): Promise<ScreenSnapshot[]> {
  const pages: ScreenSnapshot[] = [];
  for (let end = 0; ; ) {
    const page = await shared.c.call("session.screen", { session, format, scrollback: ALL, scrollback_end: end });
    expect(replySize(page)).toBeLessThanOrEqual(MAX_PAGE_REPLY);
    expect(page.scrollback_end).toBe(end);
    pages.push(page);
    end += page.scrollback_lines;
    if (page.scrollback_lines === 0 || end >= page.scrollback_total) return pages;
  }
}

/** The scrollback lines of pages walked newest first, oldest first. */
const above = <T>(pages: ScreenSnapshot[], of: (p: ScreenSnapshot) => T[]) =>
  pages.toReversed().flatMap((p) => of(p).slice(0, p.scrollback_lines));

// Before, the whole scrollback was one reply: of 4000 lines of 160 cells each in its own colour,
// 24 MB of cells and 10 MB of ANSI.
test("a scrollback in colour over the bound: the first page is the newest lines that fit, walking back gives the rest once, in order, as the text has them", async () => {
  const size = { rows: 10, cols: 160 };
  await printed(
    "colour",
    size,
    4000,
    `"%05d" % i + "".join("\\x1b[38;5;%dm%s" % ((i + j) % 256, chr(97 + j % 26)) for j in range(155)) + "\\x1b[0m"`,
  );
  // The text of the same screen fits one reply: what the pages are compared with.
  const whole = await shared.c.call("session.screen", { session: "colour", scrollback: ALL });
  expect(replySize(whole)).toBeLessThanOrEqual(MAX_PAGE_REPLY);
  expect(whole.scrollback_lines).toBe(whole.scrollback_total);
  expect(whole.lines.slice(0, 4000).map((l) => Number(l.slice(0, 5)))).toEqual([...Array(4000).keys()]);

  const cells = await walk("colour", "cells");
  expect(cells.length).toBeGreaterThan(1);
  const [newest] = cells;
  expect(newest!.scrollback_lines).toBeLessThan(newest!.scrollback_total);
  expect(newest!.lines).toEqual(whole.lines.slice(-newest!.lines.length));
  expect([...above(cells, (p) => p.lines), ...newest!.lines.slice(newest!.scrollback_lines)]).toEqual(whole.lines);
  const rowText = (runs: { text: string }[]) => runs.map((r) => r.text).join("");
  expect(above(cells, (p) => p.cells!).map(rowText)).toEqual(whole.lines.slice(0, whole.scrollback_lines));

  // ANSI pages written oldest first, the newest last, redraw the whole history.
  const ansi = await walk("colour", "ansi");
  expect(ansi.length).toBeGreaterThan(1);
  const redrawn = new Screen({ ...size, scrollback: 4000, onReply: () => {} });
  redrawn.writeSync(
    new TextEncoder().encode(
      ansi
        .toReversed()
        .map((p) => p.ansi)
        .join(""),
    ),
  );
  expect(redrawn.snapshot("text", ALL).lines).toEqual(whole.lines);
  redrawn.dispose();
}, 120_000);

test("termd screen --scrollback prints every line, reading the pages the text takes; the client's screen() gives them all", async () => {
  // 1000 columns of backslashes, each two characters of JSON: 5000 lines are about 10 MB of text.
  await printed("wide", { rows: 5, cols: 1000 }, 5000, `"%06d" % i + "\\\\" * 994`);
  const lines = Array.from({ length: 5000 }, (_, i) => String(i).padStart(6, "0") + "\\".repeat(994));
  const first = await shared.c.call("session.screen", { session: "wide", scrollback: ALL });
  expect(replySize(first)).toBeLessThanOrEqual(MAX_PAGE_REPLY);
  expect(first.scrollback_lines).toBeLessThan(first.scrollback_total);
  const all = await shared.c.screen({ session: "wide", scrollback: ALL });
  expect(all.lines.slice(0, 5000)).toEqual(lines);
  expect(all.scrollback_lines).toBe(all.scrollback_total);
  const out = await shared.d.run(["screen", "wide", "--scrollback", String(ALL)]);
  expect(out.code).toBe(0);
  expect(out.stdout.split("\n").slice(0, 5000)).toEqual(lines);
  // As many as asked, the newest of them (the screen shows the last 4 and a blank row), across pages too.
  const some = await shared.c.screen({ session: "wide", scrollback: 4500 });
  expect(some.scrollback_lines).toBe(4500);
  expect(some.lines.slice(0, 4500)).toEqual(lines.slice(496, 4996));
}, 120_000);

test("scrollback_end: the page ends that many lines above the screen, past the oldest it is empty; since_seq takes none", async () => {
  await printed("short", { rows: 3, cols: 20 }, 10, `"line %d" % i`);
  const page = await shared.c.call("session.screen", { session: "short", scrollback: 3, scrollback_end: 2 });
  expect(page).toMatchObject({ scrollback_lines: 3, scrollback_end: 2, scrollback_total: 8 });
  expect(page.lines.slice(0, 3)).toEqual(["line 3", "line 4", "line 5"]);
  expect(await shared.c.call("session.screen", { session: "short", scrollback: 3, scrollback_end: 99 })).toMatchObject({
    scrollback_lines: 0,
    scrollback_end: 8,
  });
  await expect(shared.c.call("session.screen", { session: "short", since_seq: 0, scrollback_end: 1 })).rejects.toThrow(/since_seq/);
});
