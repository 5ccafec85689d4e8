import { afterEach, expect, test } from "bun:test";
import { LARGE_PNG_PIXELS, Rasterizer } from "./rasterizer.ts";

const svg = (w: number, h: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#123"/></svg>`;
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47];

let r: Rasterizer;
afterEach(() => r.close());

test("the worker is kept after a small picture, for the next screenshot", async () => {
  r = new Rasterizer();
  const png = await r.png(svg(720, 432), 1, 720 * 432);
  expect([...png.subarray(0, 4)]).toEqual(PNG_MAGIC);
  expect(r.running).toBe(true);
});

test("the worker that drew a large picture is ended once it has nothing more to draw (its WebAssembly memory never shrinks)", async () => {
  r = new Rasterizer();
  const side = Math.ceil(Math.sqrt(LARGE_PNG_PIXELS));
  const [large, small] = await Promise.all([r.png(svg(side, side), 1, side * side), r.png(svg(10, 10), 1, 100)]);
  expect([...large.subarray(0, 4)]).toEqual(PNG_MAGIC);
  expect([...small.subarray(0, 4)]).toEqual(PNG_MAGIC);
  expect(r.running).toBe(false);
  // The next screenshot starts a new worker.
  expect([...(await r.png(svg(10, 10), 1, 100)).subarray(0, 4)]).toEqual(PNG_MAGIC);
  expect(r.running).toBe(true);
});

test("a picture whose client went away before its turn is never drawn", async () => {
  r = new Rasterizer();
  const gone = new AbortController();
  const first = r.png(svg(300, 300), 1, 300 * 300);
  const dropped = r.png(svg(300, 300), 1, 300 * 300, gone.signal);
  gone.abort();
  await expect(dropped).rejects.toMatchObject({ name: "AbortError" });
  expect([...(await first).subarray(0, 4)]).toEqual(PNG_MAGIC);
});
