// termd rename, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("rename gives a session a new name, keeps its id, and frees the old name at once", async () => {
  const { id } = await s.c.call("session.create", { name: "old", command: ["sleep", "100"], cwd: s.dir });
  expect(await s.d.cli(["rename", "old", "new"])).toEqual({ code: 0, stdout: "", stderr: "" });
  expect((await s.c.call("session.info", { session: "new" })).id).toBe(id);
  expect((await s.d.run(["info", "old"])).code).toBe(4);
  const again = JSON.parse((await s.d.run(["rename", id, "newer", "--json"])).stdout);
  expect(again).toMatchObject({ id, name: "newer" });
});

test("rename: a name another session holds is refused (1); a missing NEW is a usage error (2), a missing session 4", async () => {
  await s.c.call("session.create", { name: "x", command: ["sleep", "100"], cwd: s.dir });
  await s.c.call("session.create", { name: "y", command: ["sleep", "100"], cwd: s.dir });
  const taken = await s.d.run(["rename", "x", "y"]);
  expect(taken).toMatchObject({ code: 1, stderr: expect.stringMatching(/^termd rename: .*"y"/) });
  expect(await s.d.run(["rename", "x"])).toMatchObject({ code: 2, stderr: expect.stringContaining("give the new name") });
  expect(await s.d.run(["rename", "x", "y", "z"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unexpected argument z") });
  expect((await s.d.run(["rename", "nope", "z"])).code).toBe(4);
});
