// termd resize, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("resize takes ROWS COLS or ROWSxCOLS; the program sees the new size; --json prints the result", async () => {
  // The program says its size at each SIGWINCH: whenever the resize reaches the terminal, it shows.
  const program = "trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done";
  await s.c.call("session.create", { name: "r", command: ["sh", "-c", program], cwd: s.dir });
  await s.c.call("session.wait", { session: "r", text: "ready" });
  expect(await s.d.cli(["resize", "r", "30", "100"])).toEqual({ code: 0, stdout: "", stderr: "" });
  const r = await s.d.run(["resize", "r", "33X101", "--json"]);
  expect(JSON.parse(r.stdout)).toEqual(await s.c.call("session.resize", { session: "r", rows: 33, cols: 101 }));
  expect((await s.c.call("session.wait", { session: "r", text: "33 101" })).outcome).toBe("matched");
  expect((await s.c.call("session.info", { session: "r" })).size).toEqual({ rows: 33, cols: 101 });
});

test("resize: a size that is not two whole numbers of at least 1 is a usage error, and nothing is resized", async () => {
  await s.c.call("session.create", { name: "q", command: ["sleep", "100"], cwd: s.dir, rows: 10, cols: 20 });
  for (const args of [["q"], ["q", "24"], ["q", "0", "80"], ["q", "2.5", "80"], ["q", "x", "y"], ["q", "0x80"], ["q", "24x80", "1"]]) {
    const r = await s.d.run(["resize", ...args]);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
  }
  expect((await s.d.run(["resize", "q", "24"])).stderr).toContain("give the size as ROWS COLS or ROWSxCOLS");
  expect((await s.c.call("session.info", { session: "q" })).size).toEqual({ rows: 10, cols: 20 });
  expect((await s.d.run(["resize", "nope", "24x80"])).code).toBe(4);
});
