// termd send, run as a user runs it, against a daemon of this file's: mouse events, submits and the
// errors that must leave nothing typed. (Text, keys, pastes, --file and standard input: test/cli.test.ts.)
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

/** A program that turned SGR mouse reporting on and shows every byte it reads (cat -v, raw). */
const MOUSE_ECHO = ["sh", "-c", "stty raw -echo; printf '\\033[?1000h\\033[?1006hready\\r\\n'; exec cat -v"];

test("send's mouse events are encoded for the program's mouse mode, ROW,COL counted from 0", async () => {
  await s.c.call("session.create", { name: "m", command: MOUSE_ECHO, cwd: s.dir });
  await s.c.call("session.wait", { session: "m", text: "ready" });
  const sent = await s.d.cli(["send", "m", "--click", "1,2", "--button", "right", "--modifiers", "ctrl", "--json"]);
  expect(sent).toMatchObject({ code: 0, stderr: "" });
  // Right is button 2, ctrl adds 16; SGR counts from 1.
  expect(JSON.parse(sent.stdout)).toEqual({ bytes: 20 });
  expect((await s.c.call("session.wait", { session: "m", text: "^[[<18;3;2M^[[<18;3;2m" })).outcome).toBe("matched");
  expect((await s.d.run(["send", "m", "--scroll", "0,0:down:2"])).code).toBe(0);
  expect((await s.c.call("session.wait", { session: "m", text: "^[[<65;1;1M^[[<65;1;1M" })).outcome).toBe("matched");
});

test("send: a mouse event for a program that asked for none fails (1) and says why", async () => {
  await s.c.call("session.create", { name: "plain", command: ["cat"], cwd: s.dir });
  const r = await s.d.run(["send", "plain", "--click", "0,0"]);
  expect(r).toMatchObject({ code: 1, stderr: expect.stringContaining("termd send: the program asked for no mouse reporting") });
});

test("send: a bad mouse flag, or nothing to send, is a usage error and types nothing", async () => {
  await s.c.call("session.create", { name: "c", command: ["cat"], cwd: s.dir });
  const bad: [string[], string][] = [
    [["--click", "1"], '--click needs ROW,COL (counting from 0), not "1"'],
    [["--click", "1,1", "--button", "huge"], '--button is left, middle or right, not "huge"'],
    [["--click", "1,1", "--modifiers", "shift,super"], '--modifiers takes shift, alt and ctrl separated by commas, not "super"'],
    [["--drag", "1,1"], '--drag needs ROW,COL:ROW,COL, not "1,1"'],
    [["--scroll", "1,1:sideways"], '--scroll needs ROW,COL:up|down|left|right[:N], not "1,1:sideways"'],
    [["--scroll", "1,1:up:0"], `--scroll's N is a whole number of notches, in "1,1:up:0"`],
  ];
  for (const [flags, message] of bad) {
    const r = await s.d.run(["send", "c", "--text", "typed", ...flags]);
    expect({ flags, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ flags, code: 2, line: `termd send: ${message}` });
  }
  expect((await s.d.run(["send", "c"])).stderr).toStartWith("termd send: nothing to send: give --text, --keys");
  expect((await s.d.run(["send", "--text", "x"])).code).toBe(2);
  expect((await s.d.run(["send", "nope", "--text", "x"])).code).toBe(4);
  // What does arrive comes after anything the refused commands might have typed.
  await s.d.run(["send", "c", "--text", "end"]);
  expect(await s.c.call("session.wait", { session: "c", text: "end" })).toMatchObject({ match: { row: 0, col: 0 } });
});

test("send --submit types the text, then Enter once it shows", async () => {
  await s.c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], cwd: s.dir, env: { PS1: "$ " } });
  await s.c.call("session.wait", { session: "sh", text: "$ " });
  expect(await s.d.run(["send", "sh", "--submit", "echo sub-$((6*7))"])).toEqual({ code: 0, stdout: "", stderr: "" });
  expect((await s.c.call("session.wait", { session: "sh", regex: "^sub-42$" })).outcome).toBe("matched");
});

test("send --submit right after wait --command-done types once the shell drew its next prompt, not before it", async () => {
  // A prompt that takes a while to come (a slow PROMPT_COMMAND, as version-control prompts are).
  const env = { PS1: "$ ", PROMPT_COMMAND: "sleep 0.3" };
  await s.c.call("session.create", { name: "slow", command: ["bash", "--norc", "--noprofile"], cwd: s.dir, env });
  expect((await s.d.run(["wait", "slow", "--prompt"])).code).toBe(0);
  for (const word of ["one", "two"]) {
    expect((await s.d.run(["send", "slow", "--submit", `echo ${word}`])).code).toBe(0);
    expect((await s.d.run(["wait", "slow", "--command-done"])).stdout).toBe(`command_done (code 0): echo ${word}\n${word}\n`);
  }
  const { screen } = await s.c.call("session.wait", { session: "slow", prompt: true });
  // Not `echo two$ echo two`: the line typed before the prompt, then again after it.
  expect(screen.lines.filter((l) => l.trim() !== "")).toEqual(["$ echo one", "one", "$ echo two", "two", "$ "]);
});
