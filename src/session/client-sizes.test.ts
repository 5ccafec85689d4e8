import { describe, expect, test } from "bun:test";
import type { Size } from "../protocol/schemas.ts";
import { ClientSizes } from "./client-sizes.ts";

function sizes(holder: object | null = null) {
  const applied: Size[] = [];
  const h = { holder };
  const c = new ClientSizes(
    () => h.holder,
    (s) => applied.push(s),
  );
  return { c, applied, h };
}

describe("the sizes of attached terminals", () => {
  test("the session takes the smallest rows and the smallest columns, each from whichever client has them", () => {
    const { c, applied } = sizes();
    const a = {};
    const b = {};
    c.set(a, { rows: 40, cols: 100 });
    c.set(b, { rows: 30, cols: 120 });
    expect(applied).toEqual([
      { rows: 40, cols: 100 },
      { rows: 30, cols: 100 },
    ]);
  });

  test("one that leaves no longer counts; the last to leave leaves the size as it was", () => {
    const { c, applied } = sizes();
    const a = {};
    const b = {};
    c.set(a, { rows: 40, cols: 100 });
    c.set(b, { rows: 20, cols: 50 });
    c.set(b, null);
    expect(applied.at(-1)).toEqual({ rows: 40, cols: 100 });
    const before = applied.length;
    c.set(a, null);
    expect(c.fit()).toBeNull();
    expect(applied.length).toBe(before);
    // Forgetting one that never came changes nothing.
    c.set({}, null);
    expect(applied.length).toBe(before);
  });

  test("while the holder has a size, the session takes the holder's: a watcher does not shrink it", () => {
    const { c, applied, h } = sizes();
    const holder = {};
    const watcher = {};
    c.set(holder, { rows: 50, cols: 160 });
    c.set(watcher, { rows: 10, cols: 40 });
    expect(applied.at(-1)).toEqual({ rows: 10, cols: 40 });
    h.holder = holder;
    c.refit();
    expect(applied.at(-1)).toEqual({ rows: 50, cols: 160 });
    // A holder with no terminal of its own: the smallest again.
    h.holder = {};
    expect(c.fit()).toEqual({ rows: 10, cols: 40 });
  });
});
