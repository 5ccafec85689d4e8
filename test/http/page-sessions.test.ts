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
    const rows: string[] = await page.evaluate(() =>
      [...document.querySelectorAll(".xterm-rows > div")].map((r: any) => r.textContent.replace(/\u00a0/g, " ").trimEnd()),
    );
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

const untilVisible = (selector: string) => rig.page.locator(selector).waitFor({ state: "visible" });
const untilHidden = (selector: string) => rig.page.locator(selector).waitFor({ state: "hidden" });

test("a session created from the page runs its command, named, in its directory", async () => {
  const { d, page } = rig;
  await page.click("#new-session");
  await untilVisible("#create");
  // A command line that does not split says why, and the form stays open.
  await page.fill("#create input[name=command]", "bash 'unclosed");
  await page.click("#create button[type=submit]");
  await untilVisible("#create-error");
  expect(await page.innerText("#create-error")).toBe("command: a ' is not closed");
  // So does the daemon's refusal.
  await page.fill("#create input[name=command]", "bash --norc --noprofile");
  await page.fill("#create input[name=name]", "long");
  await page.click("#create button[type=submit]");
  await page.waitForFunction(() => document.getElementById("create-error").textContent.includes("long"));
  expect(await page.innerText("#create-error")).toContain("already");
  await page.fill("#create input[name=name]", "made");
  await page.fill("#create input[name=cwd]", dir);
  await keepScreenshot(page, "create-dialog");
  await page.click("#create button[type=submit]");
  await untilHidden("#create");
  await page.waitForFunction(() => document.getElementById("current").textContent === "made");
  expect(await page.evaluate(() => location.hash)).toBe("#made");
  const info = await d.rpc("session.info", { session: "made" });
  expect(info.command).toEqual(["bash", "--norc", "--noprofile"]);
  expect(info.cwd).toBe(dir);
  await d.rpc("session.wait", { session: "made", settle_ms: 100 });
  await page.keyboard.type("pwd");
  await page.keyboard.press("Enter");
  expect((await d.rpc("session.wait", { session: "made", regex: `^${dir}$` })).outcome).toBe("matched");
});

test("stop and remove ask first, and do nothing when cancelled", async () => {
  const { d, page } = rig;
  await page.click("#stop");
  await untilVisible("#confirm");
  expect(await page.innerText("#confirm-text")).toStartWith("Stop made?");
  await keepScreenshot(page, "confirm-stop");
  await page.click("#confirm button[value=cancel]");
  await untilHidden("#confirm");
  await page.click("#remove");
  await untilVisible("#confirm");
  expect(await page.innerText("#confirm-text")).toStartWith("Stop made and remove it?");
  await page.keyboard.press("Escape");
  await untilHidden("#confirm");
  expect((await d.rpc("session.info", { session: "made" })).state).toBe("running");

  await page.click("#stop");
  await page.click("#confirm-yes");
  expect((await d.rpc("session.wait", { session: "made", exit: true })).outcome).toBe("exited");
  // Ended: no Stop any more, and Remove forgets it.
  await untilHidden("#stop");
  await page.click("#remove");
  expect(await page.innerText("#confirm-text")).toStartWith("Remove made?");
  await page.click("#confirm-yes");
  await untilHidden("#toolbar");
  await page.locator('tr[data-session="made"]').waitFor({ state: "detached" });
  expect((await d.rpc("session.list")).sessions.map((s: { name: string }) => s.name)).not.toContain("made");
  expect(await page.evaluate(() => location.hash)).toBe("");
});

test("editing #name in an open page switches sessions", async () => {
  const { d, page } = rig;
  await d.rpc("session.create", { name: "other", command: ["sh", "-c", "echo other-session; exec cat"] });
  await d.rpc("session.wait", { session: "other", text: "other-session" });
  await page.evaluate(() => (location.hash = "#long"));
  await untilShown(page, "254");
  await page.evaluate(() => (location.hash = "#other"));
  await untilShown(page, "other-session");
  expect(await page.innerText("#current")).toBe("other");
  expect(await page.getAttribute('tr[data-session="other"]', "class")).toBe("chosen");
  await page.evaluate(() => (location.hash = "#nope"));
  await untilHidden("#toolbar");
  expect(await page.innerText("#pick")).toStartWith("No session is named nope.");
  // A lone % is a name as typed, not broken percent-encoding.
  await page.evaluate(() => (location.hash = "#50%"));
  await page.waitForFunction(() => document.getElementById("pick").textContent.startsWith("No session is named 50%."));
  await page.evaluate(() => (location.hash = "#long"));
  await untilShown(page, "254");
});
