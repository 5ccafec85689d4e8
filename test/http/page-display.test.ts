// What the attach page shows, in Debian's chromium through playwright-core: wide characters drawn
// in the fonts termd ships, each filling the two cells the daemon gives it, and the layout at a
// phone's, a small window's and a wide screen's width (WIDTHS). Screenshots go to test-results/page/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../harness.ts";
import { readPng } from "../png-reader.ts";
import { keepScreenshot, signIn, startPage, untilShown, WIDTHS, type PageRig } from "./browser.ts";

let rig: PageRig;

// These run in the page (the suite compiles without DOM types).
declare const document: any;
declare const getComputedStyle: any;

beforeAll(async () => {
  rig = await startPage();
  await signIn(rig);
});

afterAll(async () => {
  await rig?.[Symbol.asyncDispose]();
});

test("the fonts the binary embeds are served to the page", async () => {
  for (const name of ["DejaVuSansMono.ttf", "DroidSansFallbackFull.ttf", "Symbola.ttf"]) {
    const r = await fetch(`${rig.d.url}/fonts/${name}`, { headers: rig.d.auth });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("font/ttf");
    expect((await r.arrayBuffer()).byteLength).toBe(statSync(join(ROOT, "assets/fonts", name)).size);
  }
});

test("emoji and CJK fill exactly their two cells, in the shipped fonts", async () => {
  const { d, page } = rig;
  const line = "a😀b日本語c🦀x";
  await d.rpc("session.create", { name: "wide", command: ["sh", "-c", `printf '%s\\n' '${line}'; exec cat`] });
  await d.rpc("session.wait", { session: "wide", text: "x" });
  await page.click('tr[data-session="wide"]');
  await untilShown(page, line);
  const wide = ["😀", "日", "本", "語", "🦀"];
  // The fallback faces download once text needs them, and the page then measures their glyphs
  // again: wait until the line spans its 14 cells (its first cell's width is the grid's).
  await page.waitForFunction((cells: number) => {
    const row = document.querySelector(".xterm-rows > div");
    const range = document.createRange();
    range.setStart(row.firstChild.firstChild, 0);
    range.setEnd(row.firstChild.firstChild, 1);
    const cell = range.getBoundingClientRect().width;
    range.selectNodeContents(row);
    const text = range.getBoundingClientRect().width - (row.textContent.length - row.textContent.trimEnd().length) * cell;
    return document.fonts.status === "loaded" && Math.abs(text - cells * cell) < 1;
  }, 14);
  // Where each character starts and how wide it is drawn, against the grid: a span per character
  // of the first row, measured with the page's own font.
  const out = await page.evaluate(() => {
    const row = document.querySelector(".xterm-rows > div");
    const ctx = document.createElement("canvas").getContext("2d");
    const left = row.getBoundingClientRect().left;
    const out: { ch: string; x: number; advance: number; inkLeft: number; inkRight: number }[] = [];
    for (const span of row.querySelectorAll("span")) {
      const s = getComputedStyle(span);
      ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const range = document.createRange();
      for (let i = 0; i < span.firstChild.length; ) {
        const ch = String.fromCodePoint(span.firstChild.data.codePointAt(i));
        range.setStart(span.firstChild, i);
        range.setEnd(span.firstChild, i + ch.length);
        const box = range.getBoundingClientRect();
        const m = ctx.measureText(ch);
        if (ch.trim())
          out.push({ ch, x: box.left - left, advance: box.width, inkLeft: -m.actualBoundingBoxLeft, inkRight: m.actualBoundingBoxRight });
        i += ch.length;
      }
    }
    return out;
  });
  // The width of "a", the first cell.
  const cellWidth = out[0]!.advance;
  // The daemon's columns for the same line.
  const cells = (await d.rpc("session.screen", { session: "wide", format: "cells" })).cells[0] as {
    col: number;
    text: string;
    cluster?: boolean;
  }[];
  const colOf = new Map<string, number>();
  for (const run of cells) for (const [i, ch] of [...run.text].entries()) colOf.set(ch, run.cluster ? run.col : run.col + i);
  expect(out.map((c) => c.ch).join("")).toBe(line);
  for (const c of out) {
    const cellsWide = wide.includes(c.ch) ? 2 : 1;
    // Placed at the daemon's column, advancing exactly its cells …
    expect(Math.abs(c.x - colOf.get(c.ch)! * cellWidth)).toBeLessThan(1);
    expect(Math.abs(c.advance - cellsWide * cellWidth)).toBeLessThan(1);
    // … and drawn inside them.
    expect(c.inkLeft).toBeGreaterThanOrEqual(-0.5);
    expect(c.inkRight).toBeLessThanOrEqual(cellsWide * cellWidth + 0.5);
  }
  // Drawn by the served faces: Droid Sans Fallback for CJK, Symbola for emoji, no system font.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("DOM.enable");
  await cdp.send("CSS.enable");
  const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
  const { nodeIds } = await cdp.send("DOM.querySelectorAll", { nodeId: root.nodeId, selector: ".xterm-rows > div:first-child span" });
  const used = new Set<string>();
  for (const nodeId of nodeIds) {
    for (const f of (await cdp.send("CSS.getPlatformFontsForNode", { nodeId })).fonts) {
      expect(f.isCustomFont).toBe(true);
      used.add(f.familyName);
    }
  }
  expect([...used].sort()).toEqual(["DejaVu Sans Mono", "Droid Sans Fallback", "Symbola"]);
  await keepScreenshot(page, "wide-glyphs");
});

/** The window at `width`, with a height that suits it. */
const windowOf = (width: number) => ({ width, height: width < 600 ? 844 : width < 1200 ? 700 : 900 });

/** Whether the element is drawn inside the window, horizontally and vertically. */
const insideWindow = (selector: string) =>
  rig.page.evaluate((sel: string) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return (
      r.width > 0 &&
      r.left >= 0 &&
      r.top >= 0 &&
      r.right <= document.documentElement.clientWidth + 0.5 &&
      r.bottom <= document.documentElement.clientHeight + 0.5
    );
  }, selector);

test("before a session is chosen, the page shows no toolbar", async () => {
  const { d, page } = rig;
  for (const width of WIDTHS) {
    await page.setViewportSize(windowOf(width));
    await page.goto(`${d.url}/`);
    await page.locator('tr[data-session="wide"]').waitFor();
    expect(await page.isVisible("#toolbar")).toBe(false);
    expect(await page.isVisible("#pick")).toBe(true);
    expect(await insideWindow("#new-session")).toBe(true);
    await keepScreenshot(page, `nothing-chosen-${width}`);
  }
});

test("a held session's row keeps its name whole, and says who holds it on a line of its own", async () => {
  const { d, page } = rig;
  await d.rpc("session.create", { name: "agent-shell", command: ["sh", "-c", "exec cat"], meta: { owner: "agent-7" } });
  const holder = await d.daemon.client();
  try {
    await holder.call("session.subscribe", {
      session: "agent-shell",
      events: ["state"],
      take_over: true,
      holder: "a person at the browser page",
    });
    for (const width of WIDTHS) {
      await page.setViewportSize(windowOf(width));
      await page.goto(`${d.url}/`);
      const row = page.locator('tr[data-session="agent-shell"]');
      await row.locator("td.held").waitFor();
      expect(await row.locator("td.held").innerText()).toStartWith("held by a person at the browser page since ");
      const name = await row.locator("td.name").evaluate((td: any) => ({ text: td.innerText, clipped: td.scrollWidth > td.clientWidth }));
      expect(name).toEqual({ text: "agent-shell", clipped: false });
      await keepScreenshot(page, `held-row-${width}`);
    }
  } finally {
    holder.close();
  }
});

test("attached, the page fits the window at each width: nothing off-screen, a terminal of usable size", async () => {
  const { d, page } = rig;
  await d.rpc("session.create", { name: "shell", command: ["bash", "--norc", "--noprofile"], env: { PS1: "web$ " } });
  await d.rpc("session.wait", { session: "shell", text: "web$" });
  for (const width of WIDTHS) {
    await page.setViewportSize(windowOf(width));
    await page.goto(`${d.url}/#shell`);
    await untilShown(page, "web$");
    // The page is the only terminal attached: the session takes its size.
    const size = await page
      .waitForFunction(
        async () => {
          const r = await fetch("/rpc", {
            method: "POST",
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session.info", params: { session: "shell" } }),
          });
          const s = ((await r.json()) as any).result.size;
          const screen = document.querySelector(".xterm-rows").children.length;
          return s.rows === screen ? s : null;
        },
        undefined,
        { polling: 100 },
      )
      .then((h) => h.jsonValue());
    expect(size.cols).toBeGreaterThanOrEqual(40);
    expect(size.rows).toBeGreaterThanOrEqual(10);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    for (const sel of [
      "#current",
      "label:has(#read-only)",
      "#download",
      "#stop",
      "#remove",
      ".xterm-screen",
      'tr[data-session="shell"]',
      "#new-session",
    ]) {
      expect({ sel, inside: await insideWindow(sel) }).toEqual({ sel, inside: true });
    }
    await page.keyboard.type(`echo at-${width}`);
    await page.keyboard.press("Enter");
    await untilShown(page, `at-${width}\n`);
    await keepScreenshot(page, `attached-${width}`);
  }
});

test("a smaller terminal attached elsewhere is shown to limit the session's size", async () => {
  const { d, page } = rig;
  const small = await d.daemon.client();
  try {
    await small.call("session.subscribe", { session: "shell", events: ["state"], size: { rows: 8, cols: 30 } });
    for (const width of WIDTHS) {
      await page.setViewportSize(windowOf(width));
      await page.reload();
      await untilShown(page, "web$");
      await page.locator("#limited").waitFor();
      expect(await page.innerText("#limited")).toStartWith(
        "30×8: a smaller terminal attached to this session limits its size (this window fits ",
      );
      expect(await page.evaluate(() => document.querySelector(".xterm-rows").children.length)).toBe(8);
      expect(await insideWindow("#limited")).toBe(true);
      await keepScreenshot(page, `limited-${width}`);
    }
  } finally {
    small.close();
  }
  // The smaller terminal gone, the session grows to the window, and the note goes.
  await page.locator("#limited").waitFor({ state: "hidden" });
});

test("the page has a favicon", async () => {
  const { page } = rig;
  const href = await page.getAttribute("link[rel=icon]", "href");
  const icon = await page.evaluate(
    (h) => fetch(h!).then(async (r) => ({ status: r.status, type: r.headers.get("content-type"), body: await r.text() })),
    href,
  );
  expect(icon.status).toBe(200);
  expect(icon.type).toStartWith("image/svg+xml");
  expect(icon.body).toStartWith("<svg");
});

test("underscores and the glyphs that reach below the baseline are drawn whole at 1200x800: none is cut off by its row", async () => {
  const { d, page } = rig;
  await page.setViewportSize({ width: 1200, height: 800 });
  const line = "container_info.json _gy|";
  // The cursor ends rows below, out of the pictures compared (it blinks).
  await d.rpc("session.create", { name: "low", command: ["sh", "-c", `printf '%s\\n\\n\\n\\n' '${line}'; exec cat`] });
  await d.rpc("session.wait", { session: "low", text: "|" });
  await page.click('tr[data-session="low"]');
  await untilShown(page, line);
  await page.waitForFunction(() => document.fonts.status === "loaded");
  const row = page.locator(".xterm-rows > div").first();
  const box = (await row.boundingBox())!;
  // The row and the one below it, as the page draws them (a row clips what leaves its box) and
  // with the row clipping nothing: the same pixels when every glyph fits its row.
  const clip = { x: box.x, y: box.y, width: box.width, height: box.height * 2 };
  const drawn = await page.screenshot({ clip });
  await row.evaluate((el: any) => (el.style.overflow = "visible"));
  const whole = await page.screenshot({ clip });
  await row.evaluate((el: any) => (el.style.overflow = "hidden"));
  await keepScreenshot(page, "descenders-1200");
  // The underscores are there, as are the others: ink (not the background) in the lower half of their cells.
  const png = readPng(drawn);
  // The grid's cell width: the first character's advance.
  const cell = await page.evaluate(() => {
    const text = document.querySelector(".xterm-rows > div").firstChild.firstChild;
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    return range.getBoundingClientRect().width;
  });
  const background = png.pixel(0, 0);
  const inkIn = (col: number) => {
    let n = 0;
    for (let x = Math.ceil(col * cell); x < Math.floor((col + 1) * cell); x++)
      for (let y = Math.floor(box.height / 2); y < Math.ceil(box.height); y++) if (png.pixel(x, y) !== background) n++;
    return n;
  };
  for (const [i, ch] of [...line].entries())
    if ("_gy|".includes(ch)) expect({ ch, col: i, ink: inkIn(i) > 2 }).toEqual({ ch, col: i, ink: true });
  // And whole: not a pixel more when the row clips nothing.
  expect(Buffer.from(drawn).equals(Buffer.from(whole))).toBe(true);
}, 60_000);
