// termd signal, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

/** A shell running a foreground job that says which signal reached it, and the shell saying the same for itself. */
async function shellWithJob(name: string): Promise<void> {
  const job = "trap 'echo job-got-INT; exit 0' INT; echo job-ready; while :; do sleep 0.1; done";
  await s.c.call("session.create", { name, command: ["bash", "--norc", "--noprofile", "-i"], cwd: s.dir, env: { PS1: "$ " } });
  await s.c.call("session.wait", { session: name, text: "$ " });
  await s.c.call("session.input", { session: name, text: `trap 'echo shell-got-USR1' USR1; bash -c "${job}"\r` });
  await s.c.call("session.wait", { session: name, regex: "^job-ready$" });
}

test("signal goes to the program by default, to the foreground job with --foreground", async () => {
  await shellWithJob("sh");
  expect(await s.d.cli(["signal", "sh", "INT", "--foreground"])).toEqual({ code: 0, stdout: "", stderr: "" });
  expect((await s.c.call("session.wait", { session: "sh", regex: "^job-got-INT$" })).outcome).toBe("matched");
  await s.c.call("session.wait", { session: "sh", regex: "^\\$ $" });
  expect((await s.d.run(["signal", "sh", "SIGUSR1"])).code).toBe(0);
  await s.c.call("session.input", { session: "sh", text: "\r" });
  expect((await s.c.call("session.wait", { session: "sh", regex: "^shell-got-USR1$" })).outcome).toBe("matched");
});

test("signal by number, and --all reaches every process; --json prints the reply", async () => {
  await s.c.call("session.create", { name: "n", command: ["sleep", "100"], cwd: s.dir });
  const r = await s.d.run(["signal", "n", "15", "--all", "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ signal_sent: "SIGTERM" });
  expect(await s.c.call("session.wait", { session: "n", exit: true })).toMatchObject({ outcome: "exited", signal: "SIGTERM" });
  // An ended session has no program to signal: a failure (1), not a usage error.
  expect(await s.d.run(["signal", "n", "INT"])).toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("termd signal: ") });
});

test("signal: no signal, or --foreground with --all, is a usage error; so is a signal with no name", async () => {
  await s.c.call("session.create", { name: "u", command: ["sleep", "100"], cwd: s.dir });
  expect(await s.d.run(["signal", "u"])).toMatchObject({ code: 2, stderr: expect.stringContaining("name the signal") });
  expect(await s.d.run(["signal", "u", "INT", "--foreground", "--all"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("give --foreground or --all, not both"),
  });
  expect(await s.d.run(["signal", "u", "NOSUCH"])).toMatchObject({ code: 2, stderr: expect.stringContaining("NOSUCH") });
  expect((await s.d.run(["signal", "nope", "INT"])).code).toBe(4);
  expect((await s.c.call("session.info", { session: "u" })).state).toBe("running");
});
