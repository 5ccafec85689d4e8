import { expect, test } from "bun:test";
import { TestDaemon } from "./harness.ts";

test("a shell session answers arithmetic and reports its exit", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await c.call("session.input", { session: "sh", text: "echo $((6*7))\r" });
  const w = await c.call("session.wait", { session: "sh", regex: "^42$" });
  expect(w.outcome).toBe("matched");
  await c.call("session.input", { session: "sh", text: "exit 3\r" });
  const e = await c.call("session.wait", { session: "sh", exit: true });
  expect(e).toMatchObject({ outcome: "exited", exit_code: 3 });
});

test("the library's subscribe hands each listener only its own session's events", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "a", command: ["bash", "-c", "read x; echo from-a"] });
  await c.call("session.create", { name: "b", command: ["bash", "-c", "read x; echo from-b"] });
  const seen: Record<string, string[]> = { a: [], b: [] };
  const done = { a: Promise.withResolvers<void>(), b: Promise.withResolvers<void>() };
  for (const name of ["a", "b"] as const) {
    await c.subscribe({ session: name, events: ["output", "exit"] }, (e) => {
      seen[name]!.push(e.session);
      if (e.type === "exit") done[name].resolve();
    });
  }
  await c.call("session.input", { session: "a", text: "\r" });
  await c.call("session.input", { session: "b", text: "\r" });
  await Promise.all([done.a.promise, done.b.promise]);
  expect(new Set(seen.a)).toEqual(new Set(["a"]));
  expect(new Set(seen.b)).toEqual(new Set(["b"]));
});
