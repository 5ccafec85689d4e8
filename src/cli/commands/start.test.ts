// termd start, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("start prints the new session's name (its id when unnamed); the program gets the flags' cwd, env, size and TERM", async () => {
  const named = await s.d.cli([
    "start",
    "-n",
    "one",
    "--cwd",
    s.dir,
    "--env",
    "GREET=a=b",
    "--rows",
    "7",
    "--cols",
    "33",
    "--term",
    "vt100",
    "--",
    "sh",
    "-c",
    'printf "%s\\n" "$PWD" "$GREET $TERM $(stty size)"; exec sleep 100',
  ]);
  expect(named).toEqual({ code: 0, stdout: "one\n", stderr: "" });
  expect((await s.c.call("session.wait", { session: "one", text: "a=b vt100 7 33" })).outcome).toBe("matched");
  expect((await s.c.call("session.screen", { session: "one" })).lines[0]).toBe(s.dir.slice(0, 33));
  const unnamed = await s.d.run(["start", "sleep", "100"]);
  const id = unnamed.stdout.trim();
  expect(await s.c.call("session.info", { session: id })).toMatchObject({ id, name: id, command: ["sleep", "100"] });
});

test("start --json prints the session's record; --log-path and --record write their files", async () => {
  const log = join(s.dir, "out.log");
  const cast = join(s.dir, "out.cast");
  const r = await s.d.run([
    "start",
    "--json",
    "--name",
    "j",
    "--log-path",
    log,
    "--record",
    cast,
    "--scrollback",
    "5",
    "--",
    "echo",
    "logged",
  ]);
  const info = JSON.parse(r.stdout);
  expect(info).toMatchObject({ name: "j", command: ["echo", "logged"], size: { rows: 24, cols: 80 } });
  await s.c.call("session.wait", { session: "j", exit: true });
  expect(readFileSync(log, "utf8")).toBe("logged\r\n");
  expect(JSON.parse(readFileSync(cast, "utf8").split("\n")[0]!)).toMatchObject({ version: 2, width: 80, height: 24 });
});

test("start: a bad --env, --replace without --name, words before -- and bad sizes are usage errors; so is a taken name, named", async () => {
  const cases: [string[], string][] = [
    [["--env", "NOEQUALS"], '--env needs KEY=VALUE, not "NOEQUALS"'],
    [["--replace"], "--replace goes with --name"],
    [["sh"], "unexpected sh before --"],
    [["--rows", "0"], "--rows must be at least 1 (got 0)"],
    [["--name", "-x"], "--name must not start with '-' (a command line would read it as a flag) (got \"-x\")"],
  ];
  for (const [flags, message] of cases) {
    const r = await s.d.run(["start", ...flags, "--", "true"]);
    expect({ flags, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ flags, code: 2, line: `termd start: ${message}` });
  }
  const taken = await s.d.run(["start", "--name", "one", "--", "true"]);
  expect(taken).toEqual({ code: 1, stdout: "", stderr: 'termd start: a session named "one" exists already\n' });
});

test("start: a program that cannot start, or a cwd that is not a folder, fails (1) saying so", async () => {
  expect(await s.d.run(["start", "--", "/nonexistent/prog"])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining("cannot start /nonexistent/prog"),
  });
  expect(await s.d.run(["start", "--cwd", join(s.dir, "none"), "--", "true"])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining("is not a directory"),
  });
});
