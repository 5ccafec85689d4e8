// session.input's `wait`: a wait registered before the input is written, answered from the screen
// as it was before it, so a text already on the screen does not answer it, and nothing the
// program writes in answer can slip between the input and the wait.
import { expect, test } from "bun:test";
import { RpcError } from "../src/protocol/errors.ts";
import { TestDaemon } from "./harness.ts";

test("a wait tied to Enter matches the next prompt, not the one on the screen before it", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " }, rows: 6, cols: 40 });
  await c.call("session.wait", { session: "sh", text: "$ " });
  await c.call("session.input", { session: "sh", text: "echo hi" });
  const r = await c.call("session.input", { session: "sh", keys: ["Enter"], wait: { text: "$ " } });
  expect(r.wait?.outcome).toBe("matched");
  expect(r.wait?.match).toEqual({ row: 2, col: 0, text: "$ " });
  expect(r.wait?.screen.lines.slice(0, 3).map((l) => l.trimEnd())).toEqual(["$ echo hi", "hi", "$"]);
  // The same text again, with the screen scrolled: the place counts in the whole buffer.
  for (let i = 0; i < 4; i++) {
    const again = await c.call("session.input", { session: "sh", text: `echo n${i}\r`, wait: { regex: "^\\$ $" } });
    expect(again.wait?.outcome).toBe("matched");
    expect(again.wait?.screen.lines.map((l) => l.trimEnd()).join("\n")).toContain(`n${i}\n$`);
  }
  // `changed`: any change from the screen before the input, here the echo of one character.
  const echo = await c.call("session.input", { session: "sh", text: "x", wait: { changed: true } });
  expect(echo.wait?.outcome).toBe("changed");
  expect(echo.wait?.screen.lines.at(echo.wait.screen.cursor.row)?.trimEnd()).toBe("$ x");
  // A condition that never comes times out with the screen, like session.wait.
  const none = await c.call("session.input", { session: "sh", keys: ["BSpace"], wait: { text: "never", timeout_ms: 100 } });
  expect(none.wait?.outcome).toBe("timeout");
  // An exit after the input is seen too.
  const exit = await c.call("session.input", { session: "sh", text: "exit 4\r", wait: { exit: true } });
  expect(exit.wait).toMatchObject({ outcome: "exited", exit_code: 4 });
});

test("a wait with no condition is INVALID_PARAMS", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "cat", command: ["cat"] });
  const err = await c.call("session.input", { session: "cat", text: "a", wait: { timeout_ms: 100 } }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RpcError);
  expect((err as RpcError).name).toBe("INVALID_PARAMS");
  expect((err as RpcError).message).toContain(
    "give at least one of text, regex, gone, exit, activity, settle_ms, command_done, prompt, changed",
  );
});
