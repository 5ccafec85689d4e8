import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnedSessions } from "../../test/unit-fixtures.ts";
import { ExecRunner } from "./exec-runner.ts";
import { FreshRun, MAX_EXEC_OUTPUT } from "./fresh-exec.ts";
import { logPathOf } from "./log-path.ts";
import { fromRecord } from "./record.ts";
import { Session } from "./session.ts";

// exec.run types into a real interactive shell, so these run sh in a PTY (no daemon); a fresh run
// is a plain child process.
const sessions = spawnedSessions("exec-test");
const { dir } = sessions;

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", PS1: "$ ", HOME: dir };
let n = 0;

/** An interactive sh in a PTY, and an exec runner on it as its session has (`defaultTimeoutMs`: session.create's exec_timeout_ms). */
async function shell(defaultTimeoutMs = 0): Promise<{ s: Session; exec: ExecRunner }> {
  const id = `sh${++n}`;
  const s = await sessions.spawn(id, ["sh"], { size: { rows: 10, cols: 60 }, env: ENV });
  const exec = new ExecRunner(s, s.commands, defaultTimeoutMs);
  exec.env = ENV;
  return { s, exec };
}

describe("exec.run in the session's shell", () => {
  test("captures stdout and stderr apart with the exit status, and leaves the typed line off the screen", async () => {
    const { s, exec } = await shell();
    const r = await exec.run({ session: s.name, command: "printf out; printf err >&2; (exit 3)" });
    expect(r).toMatchObject({ output: "out", stderr: "err", exit_code: 3, timed_out: false, cancelled: false, truncated: false });
    expect(exec.count).toBe(1);
    expect(exec.busy).toBe(false);
    await s.stream.view.sync();
    expect(s.stream.textSnapshot().lines.join("\n")).not.toContain("termd-exec-");
  });

  test("cd and export persist to the next run; a call's env and stdin are its own", async () => {
    const { s, exec } = await shell();
    await exec.run({ session: s.name, command: `mkdir -p sub && cd sub; export KEPT=1` });
    const r = await exec.run({ session: s.name, command: `pwd; echo "$KEPT" "\${ONLY-unset}"` });
    expect(r.output).toBe(`${dir}/sub\n1 unset\n`);
    const own = await exec.run({ session: s.name, command: `echo "$ONLY"; cat`, env: { ONLY: "x" }, stdin: "from stdin" });
    expect(own.output).toBe("x\nfrom stdin");
    expect((await exec.run({ session: s.name, command: `echo "\${ONLY-unset}"` })).output).toBe("unset\n");
  });

  test("one run at a time; a timeout (the session's default here) interrupts it and frees the shell", async () => {
    const { s, exec } = await shell(300);
    const long = exec.run({ session: s.name, command: "sleep 30" });
    await expect(exec.run({ session: s.name, command: "true" })).rejects.toMatchObject({ code: "SESSION_BUSY" });
    const r = await long;
    expect(r).toMatchObject({ timed_out: true, cancelled: false });
    expect(exec.busy).toBe(false);
    expect(await exec.cancel()).toEqual({ cancelled: false, signal_sent: null });
    expect((await exec.run({ session: s.name, command: "echo again" })).output).toBe("again\n");
  });

  test("a cancel while a fresh shell has not shown its first prompt ends the run cancelled, its command never typed", async () => {
    const { s, exec } = await shell();
    const marker = join(dir, `${s.name}-ran`);
    const run = exec.run({ session: s.name, command: `touch ${marker}` });
    expect(await exec.cancel()).toEqual({ cancelled: true, signal_sent: null });
    expect(await run).toMatchObject({ cancelled: true, exit_code: null, output: "" });
    expect(exec.busy).toBe(false);
    expect((await exec.run({ session: s.name, command: "echo next" })).output).toBe("next\n");
    expect(existsSync(marker)).toBe(false);
  });

  test("cancel ends the run in progress and answers once the shell is free", async () => {
    const { s, exec } = await shell();
    const long = exec.run({ session: s.name, command: "sleep 30" });
    // Typed: the shell echoed the line that sources the run's wrapper.
    const typed = await s.waits.wait({ session: s.name, text: "termd-exec-", timeout_ms: 10_000 }, new AbortController().signal);
    expect(typed.outcome).toBe("matched");
    expect(exec.busy).toBe(true);
    expect(await exec.cancel()).toEqual({ cancelled: true, signal_sent: "SIGINT" });
    expect(exec.busy).toBe(false);
    expect(await long).toMatchObject({ cancelled: true, timed_out: false });
    expect((await exec.run({ session: s.name, command: "echo free" })).output).toBe("free\n");
  });

  test("a session that runs no interactive POSIX shell is refused with NOT_A_SHELL", async () => {
    for (const command of [["cat"], ["sh", "-c", "echo"]]) {
      const id = `not-shell-${++n}`;
      writeFileSync(logPathOf(dir, id), "");
      const { base, run } = fromRecord(
        {
          ...{ id, name: id, command, cwd: dir, pid: null, state: "exited", exit_code: 0, signal: null, error: null },
          ...{ created_at: new Date().toISOString(), ended_at: new Date().toISOString(), rows: 4, cols: 20, scrollback: 0, term: "xterm" },
        },
        dir,
      );
      const s = Session.restore({ ...base, logDir: dir, ...sessions.parts }, run);
      sessions.keep(s);
      await expect(new ExecRunner(s, s.commands).run({ session: id, command: "true" })).rejects.toMatchObject({
        code: "NOT_A_SHELL",
        details: { session: id },
      });
    }
  });
});

describe("exec.run with fresh: true", () => {
  test("runs SHELL -c in the session's starting cwd and environment; nothing persists, and the shell is untouched", async () => {
    const { s, exec } = await shell();
    const r = await exec.run({ session: s.name, command: `cd /; export GONE=1; pwd; echo "$PS1"; exit 3`, fresh: true });
    expect(r).toMatchObject({ output: "/\n$ \n", exit_code: 3, timed_out: false });
    expect(s.running).toBe(true);
    expect((await exec.run({ session: s.name, command: `pwd; echo "\${GONE-unset}"`, fresh: true })).output).toBe(`${dir}\nunset\n`);
    expect((await exec.run({ session: s.name, command: `pwd` })).output).toBe(`${dir}\n`);
  });

  const spec = { shell: "sh", cwd: dir, env: ENV };

  test("each stream is cut at MAX_EXEC_OUTPUT, and says so", async () => {
    const run = new FreshRun(spec, { session: "x", command: `head -c ${MAX_EXEC_OUTPUT + 1000} /dev/zero | tr '\\0' a; echo err >&2` }, 0);
    const r = await run.result;
    run.dispose();
    expect(r.output.length).toBe(MAX_EXEC_OUTPUT);
    expect(r).toMatchObject({ stderr: "err\n", truncated: true, exit_code: 0 });
  });

  test("a timeout reaches a command that ignores SIGINT (SIGKILL after the grace); a background job does not hold the reply", async () => {
    const stubborn = new FreshRun(spec, { session: "x", command: `trap '' INT; echo up; sleep 30` }, 100);
    const r = await stubborn.result;
    stubborn.dispose();
    expect(r).toMatchObject({ output: "up\n", exit_code: null, signal: "SIGKILL", timed_out: true });
    const bg = new FreshRun(spec, { session: "x", command: `sleep 30 & echo started` }, 0);
    const b = await bg.result;
    bg.dispose();
    expect(b).toMatchObject({ output: "started\n", exit_code: 0, timed_out: false });
  });

  test("cancel sends its signal to the command's process group", async () => {
    const run = new FreshRun(spec, { session: "x", command: `sleep 30` }, 0);
    await run.interrupt("cancel", "SIGTERM");
    const r = await run.result;
    run.dispose();
    expect(r).toMatchObject({ exit_code: null, signal: "SIGTERM", cancelled: true, timed_out: false });
  });
});
