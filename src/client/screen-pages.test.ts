import { expect, test } from "bun:test";
import type { ParamsOf } from "../protocol/methods.ts";
import type { ScreenSnapshot } from "../protocol/schemas.ts";
import { wholeScreen } from "./screen-pages.ts";

/**
 * A daemon's session.screen over `held` lines of scrollback ("0" … ) under a screen of one row,
 * giving at most `page` of them a reply; `offset()` is the output offset each reply reports.
 */
function daemon(held: number, page: number, offset: () => number = () => 7) {
  const calls: ParamsOf<"session.screen">[] = [];
  const call = async (p: ParamsOf<"session.screen">): Promise<ScreenSnapshot> => {
    calls.push(p);
    const end = Math.min(p.scrollback_end ?? 0, held);
    const n = Math.min(p.scrollback ?? 0, page, held - end);
    const lines = Array.from({ length: n }, (_, i) => String(held - end - n + i));
    return {
      ...({} as ScreenSnapshot),
      lines: [...lines, "screen"],
      scrollback_lines: n,
      scrollback_total: held,
      scrollback_end: end,
      size: { rows: 1, cols: 10 },
      offset: offset(),
      ansi: lines.map((l) => `${l}\r\n`).join("") + (end === 0 ? "screen" : ""), // a page above the screen is its lines only
    };
  };
  return { call, calls };
}

test("the pages are read back from the newest, each ending where the last began, and joined oldest first", async () => {
  const { call, calls } = daemon(10, 4);
  const snap = await wholeScreen(call, { session: "s", format: "ansi", scrollback: 100 });
  expect(snap.lines).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "screen"]);
  expect(snap.scrollback_lines).toBe(10);
  expect(snap.ansi).toBe("0\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\nscreen");
  expect(calls.map((c) => [c.scrollback, c.scrollback_end])).toEqual([
    [100, undefined],
    [96, 4],
    [92, 8],
  ]);
  expect((await wholeScreen(call, { session: "s", scrollback: 6 })).lines).toEqual(["4", "5", "6", "7", "8", "9", "screen"]);
});

test("output between two pages starts the walk again; after three walks the last is taken as it is", async () => {
  let offset = 0;
  const moving = daemon(10, 4, () => offset++);
  const snap = await wholeScreen(moving.call, { session: "s", scrollback: 100 });
  expect(moving.calls.filter((c) => c.scrollback_end === undefined)).toHaveLength(3);
  expect(snap.scrollback_lines).toBe(10);
  let calls = 0;
  const once = daemon(10, 4, () => (++calls === 2 ? 1 : 0));
  expect((await wholeScreen(once.call, { session: "s", scrollback: 100 })).lines).toHaveLength(11);
  expect(once.calls.filter((c) => c.scrollback_end === undefined)).toHaveLength(2);
});
