// session.screen { since_seq }: only the rows that changed since an earlier snapshot's seq.
import { expect, test } from "bun:test";
import { TestDaemon } from "./harness.ts";

test("since_seq returns the changed rows with their indexes and the new seq; nothing when nothing changed", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // Its answer differs from the echo, so a wait for the answer sees the whole exchange.
  const s = await c.call("session.create", {
    command: ["bash", "--norc", "--noprofile", "-c", 'while read l; do echo "got $l"; done'],
    rows: 10,
    cols: 40,
  });
  await c.call("session.input", { session: s.id, text: "one\r" });
  await c.call("session.wait", { session: s.id, text: "got one" });
  const first = await c.call("session.screen", { session: s.id });
  expect(first.lines.slice(0, 2)).toEqual(["one", "got one"]);

  const none = await c.call("session.screen", { session: s.id, since_seq: first.seq });
  expect(none.changed).toEqual([]);
  expect(none.seq).toBe(first.seq);
  expect(none.lines).toEqual([]);

  await c.call("session.input", { session: s.id, text: "two\r" });
  await c.call("session.wait", { session: s.id, text: "got two" });
  const delta = await c.call("session.screen", { session: s.id, since_seq: first.seq });
  expect(delta.seq).toBeGreaterThan(first.seq);
  expect(delta.changed).toEqual([
    { row: 2, text: "two" },
    { row: 3, text: "got two" },
  ]);
  expect(delta.cursor).toMatchObject({ row: 4, col: 0 });
  // From the seq just handed out: nothing again.
  expect((await c.call("session.screen", { session: s.id, since_seq: delta.seq })).changed).toEqual([]);
  // A seq this screen never reached (an earlier daemon's): every row, flagged full.
  const full = await c.call("session.screen", { session: s.id, since_seq: delta.seq + 1000 });
  expect(full.full).toBe(true);
  expect(full.changed!.map((r) => r.row)).toEqual([...Array(10).keys()]);
  // Styled formats do not mix with it.
  await expect(c.call("session.screen", { session: s.id, since_seq: 0, format: "ansi" })).rejects.toMatchObject({ name: "INVALID_PARAMS" });
});

test("a resize marks every row changed", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", { command: ["cat"], rows: 5, cols: 40 });
  await c.call("session.input", { session: s.id, text: "x\r" });
  await c.call("session.wait", { session: s.id, regex: "^x$" });
  const before = await c.call("session.screen", { session: s.id });
  await c.call("session.resize", { session: s.id, rows: 6, cols: 30 });
  const after = await c.call("session.screen", { session: s.id, since_seq: before.seq });
  expect(after.changed!.map((r) => r.row)).toEqual([0, 1, 2, 3, 4, 5]);
});
