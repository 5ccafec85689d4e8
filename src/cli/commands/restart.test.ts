// termd restart, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("restart runs an ended session's command again in the same session and prints NAME: STATE", async () => {
  const { id } = await s.c.call("session.create", { name: "again", command: ["sh", "-c", "echo run; exec sleep 100"], cwd: s.dir });
  await s.c.call("session.stop", { session: "again", grace_ms: 100 });
  expect(await s.d.cli(["restart", "again"])).toEqual({ code: 0, stdout: "again: running\n", stderr: "" });
  const info = JSON.parse((await s.d.run(["restart", id, "--grace", "100", "--json"])).stdout);
  expect(info).toMatchObject({ id, name: "again", state: "running" });
});

test("restart --all-lost restarts none when none is lost, and goes without a session", async () => {
  expect(await s.d.run(["restart", "--all-lost"])).toEqual({ code: 0, stdout: "", stderr: "" });
  expect(JSON.parse((await s.d.run(["restart", "--all-lost", "--json"])).stdout)).toEqual([]);
  expect(await s.d.run(["restart", "again", "--all-lost"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("--all-lost goes without a session"),
  });
  expect((await s.d.run(["restart"])).code).toBe(2);
  expect((await s.d.run(["restart", "nope"])).code).toBe(4);
});
