// The attach page's browser tests share this: Debian's chromium through playwright-core, against a
// private daemon running the compiled dist/termd (the page is bundled into it), signed in once.
// Screenshots are kept in test-results/page/ (git-ignored), named by test and window width.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { DIST_BIN, ROOT } from "../harness.ts";
import { startHttpDaemon, type HttpDaemon } from "./http-daemon.ts";

const CHROMIUM = Bun.which("chromium") ?? Bun.which("chromium-browser");

/** Where the browser tests keep their screenshots. */
export const SHOTS = join(ROOT, "test-results", "page");

/** The window widths each layout is checked at: a phone, a small laptop window, a wide screen. */
export const WIDTHS = [390, 900, 1600] as const;

// These run in the page (the suites compile without DOM types); strings would be eval, which the
// page's Content-Security-Policy forbids.
declare const document: any;

export interface PageRig extends AsyncDisposable {
  d: HttpDaemon;
  browser: Browser;
  page: Page;
}

export async function startPage(viewport = { width: 1280, height: 800 }): Promise<PageRig> {
  if (!CHROMIUM) throw new Error("the attach page is tested in Debian's chromium: apt-get install chromium (.ci/run does)");
  const d = await startHttpDaemon({ bin: DIST_BIN });
  // Root in a container: chromium's own sandbox cannot start there.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] }).catch(async (err) => {
    await d.daemon[Symbol.asyncDispose]();
    throw err;
  });
  const page = await browser.newPage({ viewport });
  return {
    d,
    browser,
    page,
    async [Symbol.asyncDispose]() {
      await browser.close();
      await d.daemon[Symbol.asyncDispose]();
    },
  };
}

/** Signs the page in with the daemon's token (at `path`, e.g. `/#name`). */
export async function signIn(rig: PageRig, path = "/"): Promise<void> {
  await rig.page.goto(rig.d.url + path);
  await rig.page.fill("#token", rig.d.token);
  await rig.page.click("button[type=submit]");
  await rig.page.locator("#sessions").waitFor({ state: "attached" });
}

/** Waits until the page's terminal shows `text`. */
export const untilShown = (page: Page, text: string) =>
  page.waitForFunction(
    (t) =>
      String(document.querySelector(".xterm-rows")?.innerText ?? "")
        .replace(/\u00a0/g, " ")
        .includes(t),
    text,
  );

/** Keeps a screenshot of the whole window as test-results/page/NAME.png. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}
