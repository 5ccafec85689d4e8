// One connection's pile of waits on one session, through a real daemon: identical waits are
// answered together with the same match, distinct ones each by the line that names it and only
// then (src/session/waits.ts checks identical waits once as a group, and text waits by the new rows).
import { expect, test } from "bun:test";
import { TestDaemon } from "./harness.ts";

test("2,000 identical waits and 100 distinct ones on one connection: each answered by what it asked for", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "cat", command: ["cat"], rows: 10, cols: 40 });
  const wait = (w: { text?: string; regex?: string }) => c.call("session.wait", { session: "cat", timeout_ms: 30_000, ...w });
  const answered = new Set<string>();
  const track = (name: string, p: ReturnType<typeof wait>) => {
    const t = p.then((r) => (answered.add(name), r));
    t.catch(() => {}); // those still pending fail when the connection closes
    return t;
  };
  const same = Array.from({ length: 2000 }, () => wait({ text: "all go" }));
  const distinct = Array.from({ length: 100 }, (_, i) => track(`w${i}`, wait({ text: `w${i}!` })));
  const regex = track("regex", wait({ regex: "w4\\d!" }));
  // Requests on a connection are read in order: the ping's answer means every wait is registered.
  await c.call("system.ping");
  for (const i of [7, 42, 99]) {
    await c.call("session.input", { session: "cat", text: `w${i}!\r` });
    const r = await distinct[i]!;
    expect(r.outcome).toBe("matched");
    expect(r.match?.text).toBe(`w${i}!`);
  }
  expect((await regex).match?.text).toBe("w42!");
  // Nothing else was answered: not w4 by w42, nor w9 by w99.
  expect([...answered].sort()).toEqual(["regex", "w42", "w7", "w99"]);
  await c.call("session.input", { session: "cat", text: "all go\r" });
  const results = await Promise.all(same);
  expect(new Set(results.map((r) => `${r.outcome} ${JSON.stringify(r.match)}`)).size).toBe(1);
  expect(results[0]!.match?.text).toBe("all go");
  expect(answered.size).toBe(4);
  c.close();
});
