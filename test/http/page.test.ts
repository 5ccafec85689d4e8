// The attach page in a real browser: Debian's chromium driven by playwright-core against the
// compiled dist/termd (the page is bundled into it). It signs in with the token, lists the
// sessions, paints vim's screen, sends typed keys, holds them back when read-only, lets a person
// take over an agent's session (the agent's typing refused meanwhile) and give it back, follows the window's size, and links the
// recording. A screenshot goes to test-results/page/attach-page.png.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { keepScreenshot, untilShown, startPage, type PageRig } from "./browser.ts";
import type { HttpDaemon } from "./http-daemon.ts";

let rig: PageRig;
let d: HttpDaemon;
let page: Page;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "termd-page-"));
  writeFileSync(join(dir, "poem.txt"), "roses are red\nviolets are blue\n");
  rig = await startPage();
  ({ d, page } = rig);
  await d.rpc("session.create", {
    name: "poem",
    command: ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "poem.txt"],
    cwd: dir,
    meta: { owner: "agent-7" },
  });
  await d.rpc("session.wait", { session: "poem", text: "violets are blue" });
  await d.rpc("session.create", { name: "shell", command: ["bash", "--norc", "--noprofile"], env: { PS1: "web$ " } });
  await d.rpc("session.wait", { session: "shell", text: "web$" });
});

afterAll(async () => {
  await rig?.[Symbol.asyncDispose]();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The terminal's text as the page shows it, one line per row. */
const terminalText = () =>
  page
    .locator(".xterm-rows")
    .innerText()
    .then((t) => t.replace(/\u00a0/g, " "));

// These run in the page (the suite compiles without DOM types); strings would be eval, which the
// page's Content-Security-Policy forbids.
declare const document: any;
declare const window: any;
declare const MutationObserver: any;
declare const localStorage: Record<string, string>;

/** Waits until the take-over button says `text`. */
const untilButtonSays = (text: string) => page.waitForFunction((t) => document.getElementById("take-over")?.textContent === t, text);

/** Waits (bounded) until the session has left `size`: no event tells of a resize. */
async function untilSizeChanges(session: string, from: { rows: number; cols: number }): Promise<{ rows: number; cols: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const size = (await d.rpc("session.info", { session })).size;
    if (size.rows !== from.rows || size.cols !== from.cols || Date.now() > deadline) return size;
    await d.rpc("session.wait", { session, activity: true, timeout_ms: 50 });
  }
}

test("asks for the token once, then lists the sessions with state, title and owner", async () => {
  await page.goto(d.url);
  await page.fill("#token", d.token);
  await page.click("button[type=submit]");
  const poem = page.locator('tr[data-session="poem"]');
  await poem.waitFor();
  expect(await poem.locator("td").allInnerTexts()).toEqual(["poem", "running", "vim -u NONE -N -n -i NONE poem.txt", "agent-7"]);
  expect(await page.locator('tr[data-session="shell"] td').nth(1).innerText()).toBe("running");
  // The cookie is HttpOnly: no script on the page can read the token back.
  expect(await page.evaluate(() => document.cookie)).toBe("");
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).toBe("{}");
});

test("shows vim's screen at once, painted from the daemon's screen", async () => {
  await page.click('tr[data-session="poem"]');
  await untilShown(page, "violets are blue");
  expect(await terminalText()).toContain("roses are red");
  // An agent's session opens read-only, with the switch to take it over; watching it leaves its
  // size alone (an attachment with a size would have resized it before the screen was painted).
  expect(await page.isChecked("#read-only")).toBe(true);
  expect(await page.innerText("#take-over")).toBe("Take over from agent-7");
  expect((await d.rpc("session.info", { session: "poem" })).size).toEqual({ rows: 24, cols: 80 });
});

test("typed keys reach the session, and its output comes back", async () => {
  await page.click('tr[data-session="shell"]');
  await untilShown(page, "web$");
  expect(await page.isChecked("#read-only")).toBe(false);
  await page.keyboard.type("echo typed-$((20+22))");
  await page.keyboard.press("Enter");
  expect((await d.rpc("session.wait", { session: "shell", regex: "^typed-42$" })).outcome).toBe("matched");
  await untilShown(page, "typed-42\n");
});

test("read-only holds typing back; unticked, typing goes through again", async () => {
  await page.check("#read-only");
  await page.keyboard.type("echo held-back");
  await page.keyboard.press("Enter");
  await page.uncheck("#read-only");
  await page.keyboard.type("echo after-$((1+1))");
  await page.keyboard.press("Enter");
  const w = await d.rpc("session.wait", { session: "shell", regex: "^after-2$" });
  expect(w.outcome).toBe("matched");
  expect(w.screen.lines.join("\n")).not.toContain("held-back");
});

test("take over an agent's session, type into it, and give it back", async () => {
  await page.click('tr[data-session="poem"]');
  await untilShown(page, "violets are blue");
  await page.keyboard.type("Oignored");
  await page.click("#take-over");
  await untilButtonSays("Give back to agent-7");
  expect(await page.isVisible("#control")).toBe(true);
  // Typing, the page is an attached terminal: the session takes the window's size.
  expect((await untilSizeChanges("poem", { rows: 24, cols: 80 })).cols).toBeGreaterThan(80);
  // The page holds the session: the agent's typing is refused until it is given back.
  expect((await d.rpc("session.info", { session: "poem" })).held_by).toBe("a person at the browser page");
  const refused = await d.rpc("session.input", { session: "poem", text: "Oagent was here" }).catch((e: Error) => e);
  expect(refused).toBeInstanceOf(Error);
  expect((refused as Error).message).toContain("is held by a person at the browser page since");
  await page.click(".xterm");
  await page.keyboard.type("Odaisies are white");
  await page.keyboard.press("Escape");
  expect((await d.rpc("session.wait", { session: "poem", text: "daisies are white" })).outcome).toBe("matched");
  await page.click("#take-over");
  await untilButtonSays("Take over from agent-7");
  expect(await page.isChecked("#read-only")).toBe(true);
  const screen = (await d.rpc("session.screen", { session: "poem" })).lines.join("\n");
  expect(screen).not.toContain("ignored");
  expect(screen).not.toContain("agent was here");
  // Given back: the agent types again.
  expect((await d.rpc("session.info", { session: "poem" })).held_by).toBeNull();
  await d.rpc("session.input", { session: "poem", keys: ["Escape"] });
});

test("a take-over someone else holds leaves the page watching, and says who holds it", async () => {
  const bob = await d.daemon.client();
  await bob.call("session.subscribe", { session: "poem", events: ["state"], take_over: true, holder: "bob" });
  await page.click("#take-over");
  await page.waitForFunction(() => String(document.getElementById("status")?.textContent).includes("held by bob"));
  await untilButtonSays("Take over from agent-7");
  expect(await page.isChecked("#read-only")).toBe(true);
  expect((await d.rpc("session.info", { session: "poem" })).held_by).toBe("bob");
  bob.close();
  // The page is told when bob gives it back.
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
});

test("the session follows the window's size, and the recording downloads", async () => {
  await page.click('tr[data-session="shell"]');
  await untilShown(page, "typed-42");
  const before = (await d.rpc("session.info", { session: "shell" })).size;
  await page.setViewportSize({ width: 900, height: 600 });
  const after = await untilSizeChanges("shell", before);
  expect(after.cols).toBeLessThan(before.cols);
  expect(after.rows).toBeLessThan(before.rows);
  const href = await page.getAttribute("#download", "href");
  expect(href).toMatch(/^\/sessions\/[^/]+\.cast$/);
  const cast = await page.evaluate((h) => fetch(h!).then((r) => r.text()), href);
  const [header, ...events] = cast
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(header.version).toBe(2);
  expect(
    events
      .filter((e: unknown[]) => e[1] === "o")
      .map((e: unknown[]) => e[2])
      .join(""),
  ).toContain("typed-42");
  await keepScreenshot(page, "attach-page");
});

// Regression: the page ignored the restart's exit flag and state events, so after `termd
// restart` it said "ended by SIGHUP" while the new run worked.
test("termd restart: the page says the session restarts, then is live on the new run, typing included", async () => {
  await page.click('tr[data-session="shell"]');
  await untilShown(page, "web$");
  await page.evaluate(() => {
    const status = document.getElementById("status");
    const seen: string[] = [];
    window.statusesSeen = seen;
    new MutationObserver((records: any[]) => {
      for (const r of records) for (const n of r.addedNodes) seen.push(n.textContent);
    }).observe(status, { childList: true, subtree: true, characterData: true });
  });
  await d.rpc("session.restart", { session: "shell", grace_ms: 2000 });
  await untilShown(page, "restarted at");
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
  expect(await page.evaluate(() => window.statusesSeen)).toContain("ended by SIGHUP: restarting");
  await page.click(".xterm");
  await page.keyboard.type("echo new-run-$((3*3))");
  await page.keyboard.press("Enter");
  expect((await d.rpc("session.wait", { session: "shell", regex: "^new-run-9$" })).outcome).toBe("matched");
  await untilShown(page, "new-run-9\n");
});
