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
