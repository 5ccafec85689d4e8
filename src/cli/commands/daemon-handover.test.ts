// termd daemon restart without --stop-sessions, through the real entry: the daemon of this file's
// hands itself over in place, or refuses and serves on. (Programs that ride through, input in
// flight, HTTP and every kind of refusal: test/handover.test.ts.)
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";
import { BUILD, describeBuild } from "../../protocol/version.ts";

const s = sharedDaemon();

test("a binary that cannot take over is refused: the command says why (1), and the daemon serves on untouched", async () => {
  const before = await s.c.call("system.ping");
  const r = await s.d.cli(["daemon", "restart", "--binary", "/bin/false"]);
  expect(r).toMatchObject({ code: 1, stdout: "", stderr: expect.stringMatching(/^termd daemon restart: .+\n$/) });
  expect((await s.c.call("system.ping")).started_at).toBe(before.started_at);
});

// Last in the file: the handover ends the shared client s.c (DAEMON_REPLACED), so a test after it
// would need a client of its own.
test("restart hands the daemon over to this build in place: same pid, its running session kept and still typed into", async () => {
  await s.c.call("session.create", { name: "kept", command: ["cat"], cwd: s.dir });
  const before = await s.c.call("system.ping");
  const r = await s.d.cli(["daemon", "restart"]);
  expect(r).toEqual({
    code: 0,
    stdout: `termd daemon restart: ${describeBuild(BUILD)} runs on ${s.d.socket} (pid ${before.pid}, 1 running session kept)\n`,
    stderr: "",
  });
  const c = await s.d.client();
  expect((await c.call("system.ping")).started_at).not.toBe(before.started_at);
  await c.call("session.input", { session: "kept", text: "after\r" });
  expect((await c.call("session.wait", { session: "kept", regex: "^after$" })).outcome).toBe("matched");
});
