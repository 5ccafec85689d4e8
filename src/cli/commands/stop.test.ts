// termd stop, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("stop hangs the session up and prints how it ended; --json prints its record", async () => {
  await s.c.call("session.create", { name: "s", command: ["sleep", "100"], cwd: s.dir });
  expect(await s.d.cli(["stop", "s"])).toEqual({ code: 0, stdout: "stopped (SIGHUP)\n", stderr: "" });
  await s.c.call("session.create", { name: "j", command: ["sleep", "100"], cwd: s.dir });
  const r = JSON.parse((await s.d.run(["stop", "j", "--json"])).stdout);
  expect(r).toMatchObject({ name: "j", state: "stopped", signal: "SIGHUP" });
});

test("stop --grace: a program that ignores SIGHUP and SIGTERM is killed once the grace is over", async () => {
  await s.c.call("session.create", {
    name: "stubborn",
    command: ["sh", "-c", "trap '' HUP TERM; echo ready; while :; do sleep 1; done"],
    cwd: s.dir,
  });
  await s.c.call("session.wait", { session: "stubborn", text: "ready" });
  expect(await s.d.run(["stop", "stubborn", "--grace", "100"])).toMatchObject({ code: 0, stdout: "stopped (SIGKILL)\n" });
});

test("stop: bad flags are usage errors (2), an unknown session not found (4)", async () => {
  expect((await s.d.run(["stop"])).code).toBe(2);
  expect(await s.d.run(["stop", "x", "--grace", "soon"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--grace") });
  expect((await s.d.run(["stop", "nope"])).code).toBe(4);
});
