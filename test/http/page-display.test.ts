// What the attach page shows, in Debian's chromium through playwright-core: wide characters drawn
// in the fonts termd ships, each filling the two cells the daemon gives it. Screenshots go to
// test-results/page/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../harness.ts";
import { keepScreenshot, signIn, startPage, untilShown, type PageRig } from "./browser.ts";

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
  // The fallback faces download once text needs them; the page then measures their glyphs again.
  await page.waitForFunction(() => document.fonts.status === "loaded");
  const wide = ["😀", "日", "本", "語", "🦀"];
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
        if (ch.trim()) out.push({ ch, x: box.left - left, advance: box.width, inkLeft: -m.actualBoundingBoxLeft, inkRight: m.actualBoundingBoxRight });
        i += ch.length;
      }
    }
    return out;
  });
  // The width of "a", the first cell.
  const cellWidth = out[0]!.advance;
  // The daemon's columns for the same line.
  const cells = (await d.rpc("session.screen", { session: "wide", format: "cells" })).cells[0] as { col: number; text: string; cluster?: boolean }[];
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
