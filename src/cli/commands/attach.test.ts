// termd attach through the real entry: with no terminal, and on one (a session of the daemon's
// running it): its arguments, and a session that has ended. Attaching to a live one, typing,
// detaching and taking over: test/attach.test.ts.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("attach needs a terminal on stdin and stdout: a usage error (2) without one", async () => {
  await s.c.call("session.create", { name: "a", command: ["sleep", "100"], cwd: s.dir });
  expect(await s.d.cli(["attach", "a"])).toMatchObject({
    code: 2,
    stdout: "",
    stderr: expect.stringContaining("termd attach: attach needs a terminal on stdin and stdout\n"),
  });
});

test("on a terminal: --read-only with --take-over and a bad --detach-key are usage errors; an unknown session is not found", async () => {
  const cases: [string[], number, string][] = [
    [["a", "--read-only", "--take-over"], 2, "--read-only and --take-over together: taking a session over is for typing into it"],
    [["a", "--detach-key", "Nope"], 2, '"Nope"'],
    [["nope"], 4, 'no session "nope"'],
  ];
  for (const [args, code, message] of cases) {
    const r = await s.d.cliOnTerminal(["attach", ...args]);
    expect({ args, code: r.code, said: r.screen.includes(message) }).toEqual({ args, code, said: true });
  }
  expect((await s.c.call("session.info", { session: "a" })).state).toBe("running");
});

test("attached to a session that has ended, it says how it ended and leaves the terminal as it was (0)", async () => {
  await s.c.call("session.create", { name: "done", command: ["sh", "-c", "echo bye; exit 3"], cwd: s.dir });
  await s.c.call("session.wait", { session: "done", exit: true });
  // The session's screen was painted on the alternate screen, which the restore leaves.
  expect(await s.d.cliOnTerminal(["attach", "done"])).toEqual({ code: 0, screen: "[done exited (code 3)]" });
});
