import { describe, expect, test } from "bun:test";
import type { Size } from "../protocol/schemas.ts";
import { ClientSizes } from "./client-sizes.ts";

function sizes() {
  const applied: Size[] = [];
  const session = { hold: { key: null as object | null }, running: true, resize: (s: Size) => applied.push(s) };
  return { c: new ClientSizes(session), applied, session };
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
    const { c, applied, session } = sizes();
    const holder = {};
    const watcher = {};
    c.set(holder, { rows: 50, cols: 160 });
    c.set(watcher, { rows: 10, cols: 40 });
    expect(applied.at(-1)).toEqual({ rows: 10, cols: 40 });
    session.hold.key = holder;
    c.refit();
    expect(applied.at(-1)).toEqual({ rows: 50, cols: 160 });
    // A holder with no terminal of its own: the smallest again.
    session.hold.key = {};
    expect(c.fit()).toEqual({ rows: 10, cols: 40 });
  });
});

test("an ended session is not resized", () => {
  const { c, applied, session } = sizes();
  session.running = false;
  c.set({}, { rows: 9, cols: 9 });
  expect(applied).toEqual([]);
});
