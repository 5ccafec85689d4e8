// Shell integration: bash (and zsh, fish where installed) started by termd report prompts,
// commands with their status, and the directory; the user's rc files still load and are not
// touched; session.wait's command_done returns a command's status and output.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { DIST_BIN, TestDaemon } from "./harness.ts";

const has = (program: string) => Bun.which(program) !== null;

/** A home of the test's own: the machine's rc files (slow, or absent on CI) play no part. */
function home(d: TestDaemon, files: Record<string, string>): string {
  const dir = join(d.dir, "home");
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function prompt(c: Client, id: string): Promise<void> {
  await c.call("session.wait", { session: id, regex: "^\\$ $", timeout_ms: 15_000 });
}

const BASHRC = 'MY_RC=loaded\nPS1="\\$ "\nmine() { echo "user function"; }\nPROMPT_COMMAND="user_pc=\\$((user_pc+1))"\n';

test("bash: the user's .bashrc loads, untouched; a command's status and output come back with command_done", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": BASHRC });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  expect(s.shell_integration).toBe("bash");
  expect(s.command).toEqual(["bash"]);
  await prompt(c, s.id);

  await c.call("session.input", { session: s.id, text: "echo rc=$MY_RC; mine; (exit 3)\r" });
  const done = await c.call("session.wait", { session: s.id, command_done: true });
  expect(done.outcome).toBe("command_done");
  expect(done.command).toMatchObject({
    command: "echo rc=$MY_RC; mine; (exit 3)",
    exit_code: 3,
    output: "rc=loaded\nuser function\n",
    truncated: false,
  });
  // Asked again with no new input: the same command, at once.
  expect((await c.call("session.wait", { session: s.id, command_done: true, timeout_ms: 0 })).command?.exit_code).toBe(3);

  // The user's PROMPT_COMMAND still runs; the directory is reported.
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: "cd /tmp && echo pc=$user_pc\r" });
  const cd = await c.call("session.wait", { session: s.id, command_done: true });
  expect(cd.command?.output).toMatch(/^pc=\d+\n$/);
  expect(cd.command?.exit_code).toBe(0);
  expect((await c.call("session.info", { session: s.id })).current_cwd).toBe("/tmp");
  expect(readFileSync(join(dir, ".bashrc"), "utf8")).toBe(BASHRC);

  // While a command runs, info names it.
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: "read -r x; echo got $x\r" });
  for (;;) {
    const info = await c.call("session.info", { session: s.id });
    if (info.running_command) {
      expect(info.running_command.command).toBe("read -r x; echo got $x");
      break;
    }
    await c.call("session.wait", { session: s.id, activity: true, timeout_ms: 100 });
  }
  await c.call("session.input", { session: s.id, text: "typed\r" });
  const read = await c.call("session.wait", { session: s.id, command_done: true });
  expect(read.command).toMatchObject({ exit_code: 0 });
  expect(read.command?.output).toContain("got typed\n");
  expect((await c.call("session.info", { session: s.id })).running_command).toBeNull();

  // In one call: the input and a wait for the command it typed (not the one before it).
  await prompt(c, s.id);
  const one = await c.call("session.input", { session: s.id, text: "echo in-one-call; (exit 4)\r", wait: { command_done: true } });
  expect(one.wait?.command).toMatchObject({ command: "echo in-one-call; (exit 4)", exit_code: 4, output: "in-one-call\n" });
  await prompt(c, s.id);
  const submitted = await c.call("session.input", { session: s.id, text: "echo submitted", submit: true, wait: { command_done: true } });
  expect(submitted.wait?.command).toMatchObject({ command: "echo submitted", exit_code: 0, output: "submitted\n" });

  // An empty line is no command: a wait for the next command done gets the one typed after it.
  await prompt(c, s.id);
  const { bytes_out } = await c.call("session.info", { session: s.id });
  const next = c.call("session.wait", { session: s.id, command_done: true, since: bytes_out, timeout_ms: 15_000 });
  await c.call("session.input", { session: s.id, text: "\r", wait: { regex: "^\\$ $", timeout_ms: 15_000 } });
  await c.call("session.input", { session: s.id, text: "echo after-empty\r" });
  expect((await next).command).toMatchObject({ command: "echo after-empty", output: "after-empty\n" });
});

test("bash: a PROMPT_COMMAND that runs a function (pyenv's hook) is never recorded as the user's command", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // As `pyenv virtualenv-init` installs its hook: a function, put first in PROMPT_COMMAND. The
  // prompt shows how often it ran, so each new prompt is known to come after it.
  const rc = "_venv_hook() { hooked=$((hooked+1)); }\nPROMPT_COMMAND=\"_venv_hook;${PROMPT_COMMAND-}\"\nPS1='[$hooked]> '\n";
  const dir = home(d, { ".bashrc": rc });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  let n = 1;
  const promptNo = async (k: number) =>
    expect((await c.call("session.wait", { session: s.id, text: `[${k}]>`, timeout_ms: 15_000 })).outcome).toBe("matched");
  await promptNo(n);
  const emptyEnter = async () => {
    await c.call("session.input", { session: s.id, text: "\r" });
    await promptNo(++n);
  };
  // Two empty lines: nothing runs, and the first command done after them is the next one typed.
  const emptyLinesThen = async (line: string) => {
    const { bytes_out } = await c.call("session.info", { session: s.id });
    const next = c.call("session.wait", { session: s.id, command_done: true, since: bytes_out, timeout_ms: 15_000 });
    await emptyEnter();
    expect((await c.call("session.info", { session: s.id })).running_command).toBeNull();
    await emptyEnter();
    const typed = await c.call("session.input", { session: s.id, text: `${line}\r`, wait: { command_done: true, timeout_ms: 15_000 } });
    expect((await next).command?.command).toBe(line);
    return typed.wait?.command;
  };
  // A hook put before termd's own once the shell runs is no command either.
  await emptyLinesThen('late_hook() { late=1; }; PROMPT_COMMAND="late_hook;$PROMPT_COMMAND"');
  await promptNo(++n);
  // The user's own commands still are, and the hooks still run.
  const done = await emptyLinesThen("echo hooked=$hooked late=$late");
  expect(done).toMatchObject({ command: "echo hooked=$hooked late=$late", exit_code: 0, output: `hooked=${n} late=1\n` });
});

test("bash: a Ctrl+C sent the moment a command is reported running interrupts it (it was lost one time in three)", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": 'PS1="\\$ "\n' });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  await prompt(c, s.id);
  // bash reports the command (OSC 133 C) before it forks it; a Ctrl+C that lands before the fork
  // exec'd went to bash's own handler, and the command ran on.
  for (let i = 0; i < 8; i++) {
    await c.call("session.input", { session: s.id, text: "sleep 30\r" });
    while (!(await c.call("session.info", { session: s.id })).running_command)
      await c.call("session.wait", { session: s.id, activity: true, timeout_ms: 50 });
    await c.call("session.input", { session: s.id, keys: ["Ctrl+C"] });
    const done = await c.call("session.wait", { session: s.id, command_done: true, timeout_ms: 60_000 });
    expect(done.command).toMatchObject({ command: "sleep 30", exit_code: 130 });
    await prompt(c, s.id);
  }
}, 120_000);

test("termd wait --command-done prints the status and the output; --no-shell-integration leaves bash alone", async () => {
  await using d = await TestDaemon.start();
  const dir = home(d, { ".bashrc": BASHRC });
  expect((await d.cli(["start", "--name", "sh", "--cwd", dir, "--env", `HOME=${dir}`, "--", "bash"])).code).toBe(0);
  await d.cli(["wait", "sh", "--regex", "^\\$ $"]);
  await d.cli(["send", "sh", "--submit", "ls /nonexistent-dir; echo after"]);
  const w = await d.cli(["wait", "sh", "--command-done"]);
  expect(w.code).toBe(0);
  expect(w.stdout).toStartWith("command_done (code 0): ls /nonexistent-dir; echo after\n");
  expect(w.stdout).toContain("No such file or directory");
  expect(w.stdout).toEndWith("after\n");

  expect((await d.cli(["start", "--name", "plain", "--no-shell-integration", "--env", `HOME=${dir}`, "--", "bash"])).code).toBe(0);
  await d.cli(["wait", "plain", "--regex", "^\\$ $"]);
  const info = JSON.parse((await d.cli(["info", "plain", "--json"])).stdout);
  expect(info.shell_integration).toBeNull();
  const none = await d.cli(["wait", "plain", "--command-done"]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("shell integration");
});

test("a script, -c or a login bash gets no hooks; other programs none either", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  for (const command of [["bash", "-c", "sleep 5"], ["bash", "-l"], ["bash", "/dev/null"], ["cat"]]) {
    const s = await c.call("session.create", { command });
    expect(s.shell_integration).toBeNull();
  }
});

test("bash --norc: no rc file loads (not even /etc/bash.bashrc), the prompt is the environment's, and the hooks still work", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": "MY_RC=loaded\n" });
  const s = await c.call("session.create", {
    command: ["bash", "--norc", "--noprofile"],
    env: { HOME: dir, PS1: "$ ", PROMPT_COMMAND: "pc=yes" },
  });
  expect(s.shell_integration).toBe("bash");
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: 'echo "[${MY_RC-none}] [$pc] [${TERMD_BASH_LOADER-gone}]"\r' });
  const done = await c.call("session.wait", { session: s.id, command_done: true });
  expect(done.command).toMatchObject({ exit_code: 0, output: "[none] [yes] [gone]\n" });
  expect(done.screen.lines[0]).toBe('$ echo "[${MY_RC-none}] [$pc] [${TERMD_BASH_LOADER-gone}]"');
});

test.skipIf(!has("zsh"))("zsh: ZDOTDIR is the user's again, .zshrc loads, and command_done works", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".zshrc": "MY_RC=loaded\nPS1='$ '\n" });
  const s = await c.call("session.create", { command: ["zsh"], env: { HOME: dir }, cwd: dir });
  expect(s.shell_integration).toBe("zsh");
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: 'echo "$MY_RC ${ZDOTDIR-unset}"; false\r' });
  const done = await c.call("session.wait", { session: s.id, command_done: true });
  expect(done.command).toMatchObject({ command: 'echo "$MY_RC ${ZDOTDIR-unset}"; false', exit_code: 1, output: "loaded unset\n" });
});

test.skipIf(!has("fish"))("fish: the hooks come after the user's config, and command_done works", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, {});
  mkdirSync(join(dir, ".config", "fish"), { recursive: true });
  writeFileSync(
    join(dir, ".config", "fish", "config.fish"),
    "set -g MY_RC loaded\nfunction fish_prompt; echo -n '$ '; end\nfunction fish_greeting; end\n",
  );
  const s = await c.call("session.create", { command: ["fish"], env: { HOME: dir, XDG_CONFIG_HOME: join(dir, ".config") }, cwd: dir });
  expect(s.shell_integration).toBe("fish");
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: "echo $MY_RC; false\r" });
  const done = await c.call("session.wait", { session: s.id, command_done: true });
  expect(done.command).toMatchObject({ command: "echo $MY_RC; false", exit_code: 1, output: "loaded\n" });
});

test.skipIf(!existsSync(DIST_BIN[0]!))("the compiled binary carries the hook files", async () => {
  await using d = await TestDaemon.start({ bin: DIST_BIN });
  const c = await d.client();
  const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await prompt(c, s.id);
  await c.call("session.input", { session: s.id, text: "echo compiled; false\r" });
  expect((await c.call("session.wait", { session: s.id, command_done: true })).command).toMatchObject({
    exit_code: 1,
    output: "compiled\n",
  });
});

/** exec.run in `shell`: what the screen, the log, the recording and the history show of it is the command as typed and its output. */
async function typedAsItself(shell: "bash" | "zsh", rc: Record<string, string>, history: string): Promise<void> {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, rc);
  const record = join(d.dir, "cast");
  const s = await c.call("session.create", { command: [shell], env: { HOME: dir, HISTFILE: join(dir, "hist") }, cwd: dir, record });
  expect(s.shell_integration).toBe(shell);
  await prompt(c, s.id);

  const r = await c.call("exec.run", { session: s.id, command: "echo plumbing-check" });
  expect(r).toMatchObject({ output: "plumbing-check\n", stderr: "", exit_code: 0 });
  // stdout and stderr apart, the status, the call's env and stdin, as ever.
  const apart = await c.call("exec.run", {
    session: s.id,
    command: 'echo "out $ONLY"; cat; echo err >&2; (exit 3)',
    env: { ONLY: "mine" },
    stdin: "in\n",
  });
  expect(apart).toMatchObject({ output: "out mine\nin\n", stderr: "err\n", exit_code: 3 });
  expect((await c.call("exec.run", { session: s.id, command: 'echo "${ONLY-unset}"' })).output).toBe("unset\n");

  // trimEnd: zsh pads a line it ends (PROMPT_SP).
  const screen = (await c.call("session.wait", { session: s.id, prompt: true })).screen.lines.map((l) => l.trimEnd());
  expect(screen.slice(0, 6)).toEqual([
    "$ echo plumbing-check",
    "plumbing-check",
    `$ echo "out $ONLY"; cat; echo err >&2; (exit 3)`,
    "out mine",
    "in",
    "err",
  ]);
  const logs = await d.cli(["logs", s.id]);
  expect(logs.stdout).toContain("echo plumbing-check");
  // The log and the recording hold OSC marks (invisible on a terminal), but no typed line of the mechanism.
  expect(`${screen.join("\n")}\n${logs.stdout}\n${readFileSync(record, "utf8")}`).not.toMatch(/termd-exec|__termd|\. '/);
  const h = await c.call("exec.run", { session: s.id, command: history });
  expect(h.output).toContain("echo plumbing-check");
  expect(h.output).not.toContain("termd-exec");
}

test("bash started with the user's rc files: exec.run types the command itself; screen, log, recording and history show it and its output, nothing of the mechanism", async () => {
  await typedAsItself("bash", { ".bashrc": BASHRC }, "history");
});

test.skipIf(!has("zsh"))("zsh: exec.run types the command itself, and only it shows", async () => {
  await typedAsItself("zsh", { ".zshrc": "PS1='$ '\nSAVEHIST=100\nHISTSIZE=100\n" }, "fc -l 1");
});

test("bash with a DEBUG trap of the user's: exec.run's command still runs as typed, its output read from the terminal between its marks", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": `${BASHRC}trap ':' DEBUG\n` });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  await prompt(c, s.id);
  const r = await c.call("exec.run", { session: s.id, command: "echo plumbing-check; echo err >&2; (exit 4)" });
  expect(r).toMatchObject({ output: "plumbing-check\nerr\n", stderr: "", exit_code: 4 });
  const after = await c.call("exec.run", { session: s.id, command: "echo next" });
  expect(after).toMatchObject({ output: "next\n", exit_code: 0 });
  const screen = (await c.call("session.wait", { session: s.id, prompt: true })).screen.lines;
  expect(screen.slice(0, 4)).toEqual(["$ echo plumbing-check; echo err >&2; (exit 4)", "plumbing-check", "err", "$ echo next"]);
});

test("bash: exec.run typed as itself is interrupted by its timeout and the shell is whole again", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": BASHRC });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  await prompt(c, s.id);
  expect(await c.call("exec.run", { session: s.id, command: "echo before; sleep 30", timeout_ms: 300 })).toMatchObject({
    timed_out: true,
    output: "before\n",
  });
  expect(await c.call("exec.run", { session: s.id, command: "echo after" })).toMatchObject({ output: "after\n", exit_code: 0 });
  // The terminal is the shell's own again: a command typed by a person shows its output.
  await c.call("session.input", { session: s.id, text: "echo by-hand\r" });
  expect((await c.call("session.wait", { session: s.id, regex: "^by-hand$" })).outcome).toBe("matched");
});

test("bash: a command that typed would read differently (history expansion's !, a trailing backslash, several lines) is sourced, and runs as written", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const dir = home(d, { ".bashrc": BASHRC });
  const s = await c.call("session.create", { command: ["bash"], env: { HOME: dir }, cwd: dir });
  await prompt(c, s.id);
  expect((await c.call("exec.run", { session: s.id, command: 'echo "hi!there"' })).output).toBe("hi!there\n");
  expect((await c.call("exec.run", { session: s.id, command: "echo a \\" })).output).toBe("a\n");
  expect((await c.call("exec.run", { session: s.id, command: "echo one\necho two" })).output).toBe("one\ntwo\n");
  expect((await c.call("exec.run", { session: s.id, command: "echo 'open" })).stderr).toContain("unexpected EOF");
});
