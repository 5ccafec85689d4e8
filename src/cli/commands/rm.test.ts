// termd rm, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("rm forgets an ended session; a running one only with --force (-f), which stops it first", async () => {
  await s.c.call("session.create", { name: "done", command: ["true"], cwd: s.dir });
  await s.c.call("session.wait", { session: "done", exit: true });
  expect(await s.d.cli(["rm", "done"])).toEqual({ code: 0, stdout: "", stderr: "" });
  expect((await s.d.run(["info", "done"])).code).toBe(4);
  const { id } = await s.c.call("session.create", { name: "live", command: ["sleep", "100"], cwd: s.dir });
  const refused = await s.d.run(["rm", "live"]);
  expect(refused).toEqual({
    code: 2,
    stdout: "",
    stderr: "termd rm: session live is still running: stop it first, or remove it with force (termd rm --force)\n",
  });
  expect((await s.c.call("session.info", { session: "live" })).state).toBe("running");
  const forced = await s.d.run(["rm", "live", "-f", "--json"]);
  expect(forced.code).toBe(0);
  expect(JSON.parse(forced.stdout)).toEqual({ removed: id });
  expect((await s.c.call("session.list")).sessions).toEqual([]);
});

test("rm: no session named is a usage error (2), an unknown one not found (4)", async () => {
  expect((await s.d.run(["rm"])).code).toBe(2);
  expect(await s.d.run(["rm", "nope"])).toMatchObject({ code: 4, stderr: 'termd rm: no session "nope"\n' });
});
