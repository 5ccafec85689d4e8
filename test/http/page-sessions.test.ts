// The attach page's sessions, in Debian's chromium through playwright-core: a session's history
// loaded into the terminal's scrollback (bounded, `?scrollback=N`), sessions created, stopped and
// removed from the page with confirmation, and switching by editing #name in the address.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepScreenshot, signIn, startPage, untilShown, type PageRig } from "./browser.ts";

let rig: PageRig;
let dir: string;

// These run in the page (the suite compiles without DOM types).
declare const document: any;
declare const location: any;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "termd-page-sessions-")));
  rig = await startPage();
  // 254 numbered lines, more than any screen here holds.
  await rig.d.rpc("session.create", { name: "long", command: ["sh", "-c", "seq 1 254; exec cat"] });
  await rig.d.rpc("session.wait", { session: "long", text: "254" });
  await signIn(rig);
});

afterAll(async () => {
  await rig?.[Symbol.asyncDispose]();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The terminal's rows as the page shows them, after scrolling its history to the top. */
async function rowsFromTop(): Promise<string[]> {
  const { page } = rig;
  await page.hover(".xterm-screen");
  // A wheel far beyond the history, then wait until the first row stops moving.
  let first = "";
  for (;;) {
    await page.mouse.wheel(0, -1_000_000);
    const rows: string[] = await page.evaluate(() => [...document.querySelectorAll(".xterm-rows > div")].map((r: any) => r.textContent.replace(/\u00a0/g, " ").trimEnd()));
    if (rows[0] === first) return rows;
    first = rows[0]!;
  }
}

test("attaching loads the session's history into the terminal's scrollback", async () => {
  const { page } = rig;
  await page.click('tr[data-session="long"]');
  await untilShown(page, "254");
  const rows = await rowsFromTop();
  expect(rows.slice(0, 3)).toEqual(["1", "2", "3"]);
  await keepScreenshot(page, "scrollback-top");
});

test("?scrollback=N bounds the history loaded", async () => {
  const { d, page } = rig;
  await page.goto(`${d.url}/?scrollback=100#long`);
  await untilShown(page, "254");
  const rows = await rowsFromTop();
  // The daemon's own 100 lines above its screen are what the page starts with.
  const snap = await d.rpc("session.screen", { session: "long", scrollback: 100 });
  expect(snap.scrollback_lines).toBe(100);
  expect(rows[0]).toBe(snap.lines[0]);
  expect(Number(rows[0])).toBeGreaterThan(1);
  await page.goto(`${d.url}/#long`);
});
