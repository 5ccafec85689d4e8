// What one connection may make the daemon hold (connection-limits.ts): pending waits and
// subscriptions. Past each, LIMIT_REACHED says what to do; what ends gives its place back; other
// connections are served all along.
import { expect, test } from "bun:test";
import type { EventMessage } from "../src/client/index.ts";
import { MAX_WAITS_PER_CONNECTION } from "../src/daemon/connection-limits.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";

test("pending waits per connection stop at MAX_WAITS_PER_CONNECTION; once they are answered, new ones are taken", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const other = await d.client();
  const s = await c.call("session.create", { command: ["cat"] });
  const waits = Array.from({ length: MAX_WAITS_PER_CONNECTION }, () =>
    c.call("session.wait", { session: s.id, text: "release-now", timeout_ms: 60_000 }),
  );
  // Requests on a connection are taken in order: this one comes after every wait above.
  await expect(c.call("session.wait", { session: s.id, text: "release-now" })).rejects.toMatchObject({
    name: "LIMIT_REACHED",
    details: { max_waits: MAX_WAITS_PER_CONNECTION },
    message: expect.stringContaining("--max-waits"),
  });
  // The full connection still answers anything else, and another connection waits as usual.
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
  const seen = other.call("session.wait", { session: s.id, text: "release-now", timeout_ms: 10_000 });
  await other.call("session.input", { session: s.id, text: "release-now\r" });
  expect((await seen).outcome).toBe("matched");
  const outcomes = new Set((await Promise.all(waits)).map((r) => r.outcome));
  expect([...outcomes]).toEqual(["matched"]);
  expect((await c.call("session.wait", { session: s.id, text: "release-now" })).outcome).toBe("matched");
});

test("waits that time out or fail give their place back; a connection's limit is its own (--max-waits)", async () => {
  await using d = await TestDaemon.start({ args: ["--max-waits", "2"] });
  const c = await d.client();
  const other = await d.client();
  const s = await c.call("session.create", { command: ["cat"] });
  const held = await c.call("session.create", { command: ["cat"] });
  const never = { session: s.id, text: "never shown" };
  // Two waits that end when told, not by a timeout that could run out before the refusals below.
  const release = { session: held.id, text: "release-now" };
  const pending = [c.call("session.wait", { ...release, timeout_ms: 60_000 }), c.call("session.wait", { ...release, timeout_ms: 60_000 })];
  await expect(c.call("session.wait", { ...never, timeout_ms: 200 })).rejects.toMatchObject({
    name: "LIMIT_REACHED",
    details: { max_waits: 2 },
  });
  // session.input's own wait counts too, and is refused before anything is typed.
  await expect(c.call("session.input", { session: s.id, text: "typed-first\r", wait: { text: "typed-first" } })).rejects.toMatchObject({
    name: "LIMIT_REACHED",
  });
  // The other connection has both of its own.
  const theirs = [other.call("session.wait", { ...never, timeout_ms: 200 }), other.call("session.wait", { ...never, timeout_ms: 200 })];
  await other.call("session.input", { session: held.id, text: "release-now\r" });
  expect((await Promise.all(pending)).map((r) => r.outcome)).toEqual(["matched", "matched"]);
  // Two that time out: were their places kept, the input's wait below would be refused.
  const short = [c.call("session.wait", { ...never, timeout_ms: 200 }), c.call("session.wait", { ...never, timeout_ms: 200 })];
  expect((await Promise.all([...short, ...theirs])).map((r) => r.outcome)).toEqual(["timeout", "timeout", "timeout", "timeout"]);
  const typed = await c.call("session.input", { session: s.id, text: "typed-second\r", wait: { text: "typed-second" } });
  expect(typed.wait?.outcome).toBe("matched");
  expect(typed.wait?.screen.lines.join("\n")).not.toContain("typed-first");
  // A wait refused for its params never held a place.
  await expect(c.call("session.wait", { session: s.id, regex: "(" })).rejects.toMatchObject({ name: "INVALID_PARAMS" });
  await expect(c.call("session.wait", { session: "no-such-session", text: "x" })).rejects.toMatchObject({ name: "SESSION_NOT_FOUND" });
  const again = [c.call("session.wait", { ...never, timeout_ms: 60_000 }), c.call("session.wait", { ...never, timeout_ms: 60_000 })];
  // A connection that closes with its waits pending frees the daemon of them: a new one starts afresh.
  c.close();
  await Promise.allSettled(again);
  const fresh = await d.client();
  const w = [fresh.call("session.wait", { ...never, timeout_ms: 100 }), fresh.call("session.wait", { ...never, timeout_ms: 100 })];
  expect((await Promise.all(w)).map((r) => r.outcome)).toEqual(["timeout", "timeout"]);
});

test("subscriptions per connection are bounded (--max-subscriptions); unsubscribe and removed sessions give places back", async () => {
  await using d = await TestDaemon.start({ args: ["--max-subscriptions", "2"] });
  const c = await d.client();
  const other = await d.client();
  const [a, b, x] = [
    await c.call("session.create", { command: ["cat"] }),
    await c.call("session.create", { command: ["cat"] }),
    await c.call("session.create", { command: ["cat"] }),
  ];
  await c.call("session.subscribe", { session: a.id, events: ["output"] });
  await c.call("session.subscribe", { session: b.id, events: ["output"] });
  // More events on a session already subscribed to take no new place.
  await c.call("session.subscribe", { session: a.id, events: ["exit"] });
  await expect(c.call("session.subscribe", { session: x.id, events: ["output"] })).rejects.toMatchObject({
    name: "LIMIT_REACHED",
    details: { max_subscriptions: 2, subscribed: 2 },
    message: expect.stringContaining("--max-subscriptions"),
  });
  // "Every session" past the limit is refused whole: x was not subscribed to on the way.
  await expect(c.call("session.subscribe", { events: ["output", "exit"] })).rejects.toMatchObject({ name: "LIMIT_REACHED" });
  expect((await c.call("session.unsubscribe", { session: x.id, events: ["exit"] })).subscribed).toEqual([]);

  // Meanwhile another connection subscribes and gets its events.
  const got = Promise.withResolvers<EventMessage>();
  await other.subscribe({ session: x.id, events: ["output"] }, (e) => got.resolve(e));
  await other.call("session.input", { session: x.id, text: "hi\r" });
  expect((await got.promise).type).toBe("output");

  await c.call("session.unsubscribe", { session: a.id, events: ["*"] });
  await c.call("session.subscribe", { session: x.id, events: ["output"] });
  await c.call("session.remove", { session: b.id, force: true });
  expect((await c.call("session.subscribe", { session: a.id, events: ["output"] })).subscribed).toEqual(["output"]);
});

test("termd daemon refuses a limit that is not a whole number of at least 1", async () => {
  const p = Bun.spawn([...SOURCE_BIN, "daemon", "--socket", "/nonexistent/termd.sock", "--max-waits", "0"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await p.exited).toBe(2);
  expect(await new Response(p.stderr).text()).toContain("--max-waits is a whole number, at least 1");
});
