// TRL (docs/dialects.md, as claw-core and its clients have it): its API document's example request as
// written; every method; exec.run as a fresh `SHELL -c` per call over pipes (nothing persists,
// stderr apart, exit codes, stdin, env, timeouts that SIGKILL, SESSION_BUSY, cancel); the fields
// claw-core reports; free names; TRL sees only its own sessions; TRL's error shape for bad input; a
// client that goes away mid-command; TRL_SOCKET_PATH, TRL_DEFAULT_TIMEOUT_S. Also the native
// exec.run underneath: NOT_A_SHELL, `fresh`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RpcError } from "../../src/protocol/errors.ts";
import { defaultSocketPath } from "../../src/protocol/paths.ts";
import { sharedDaemon, TestDaemon } from "../harness.ts";
import { Lines, type Msg } from "../lines.ts";

const shared = sharedDaemon();
let c: Lines;
let nextId = 1;

beforeAll(async () => {
  c = await Lines.open(shared.d.socket);
});
afterAll(() => c.close());

/** One TRL request on the shared connection; resolves with its reply (matched by id). */
function call(method: string, params?: unknown, on: Lines = c): Promise<Msg> {
  const id = `req-${nextId++}`;
  return on.ask({ id, method, ...(params !== undefined ? { params } : {}) }, (m) => m.id === id);
}

async function shell(params: Record<string, unknown> = {}): Promise<string> {
  const r = await call("session.create", { working_dir: shared.dir, ...params });
  expect(r.ok).toBe(true);
  return r.data.session_id;
}

/** A FIFO a command can block on until the test opens it for writing; no sleeping involved. */
function fifo(name: string): string {
  const path = join(shared.dir, name);
  Bun.spawnSync(["mkfifo", path]);
  return path;
}

describe("the document's examples", () => {
  test("the request format example, as written", async () => {
    const r = await c.ask(
      { id: "req-001", method: "session.create", params: { shell: "/bin/zsh", env: { MY_VAR: "value" }, working_dir: "/tmp/sandbox" } },
      (m) => m.id === "req-001",
    );
    if (existsSync("/bin/zsh") && existsSync("/tmp/sandbox")) {
      expect(r).toMatchObject({ id: "req-001", ok: true, data: { session_id: expect.any(String), created_at: expect.any(String) } });
      await call("session.destroy", { session_id: r.data.session_id, force: true });
    } else {
      // No zsh or no /tmp/sandbox here: the documented error shape, as TRL answers a bad shell or directory.
      expect(r).toEqual({ id: "req-001", ok: false, error: { code: "INVALID_PARAMS", message: expect.any(String) } });
    }
  });

  test("the same request with a shell and a folder this machine has: the success shape", async () => {
    const r = await c.ask(
      { id: "req-001b", method: "session.create", params: { shell: "/bin/sh", env: { MY_VAR: "value" }, working_dir: shared.dir } },
      (m) => m.id === "req-001b",
    );
    expect(r).toEqual({
      id: "req-001b",
      ok: true,
      data: {
        session_id: expect.any(String),
        shell: "/bin/sh",
        working_dir: shared.dir,
        state: "idle",
        created_at: expect.any(String),
        name: null,
      },
    });
    const run = await call("exec.run", { session_id: r.data.session_id, command: 'echo "$MY_VAR"' });
    expect(run.data.stdout).toBe("value\n");
    expect((await call("session.destroy", { session_id: r.data.session_id })).data).toEqual({
      session_id: r.data.session_id,
      state: "terminated",
    });
  });

  test("the error example: SESSION_NOT_FOUND", async () => {
    const r = await call("session.info", { session_id: "s-xyz" });
    expect(r).toEqual({ id: r.id, ok: false, error: { code: "SESSION_NOT_FOUND", message: expect.stringContaining("s-xyz") } });
  });
});

describe("methods", () => {
  test("system.ping and system.stats (with open_fds)", async () => {
    const ping = await call("system.ping");
    expect(ping).toEqual({ id: ping.id, ok: true, data: { uptime_s: expect.any(Number), version: expect.any(String) } });
    const before = (await call("system.stats")).data;
    expect(before).toEqual({
      active_sessions: expect.any(Number),
      total_commands_run: expect.any(Number),
      uptime_s: expect.any(Number),
      memory_rss_bytes: expect.any(Number),
      open_fds: expect.any(Number),
    });
    expect(before.open_fds).toBeGreaterThan(0);
    const id = await shell({ name: "stats-shell" });
    await call("exec.run", { session_id: id, command: "true" });
    const after = (await call("system.stats")).data;
    expect(after.total_commands_run).toBe(before.total_commands_run + 1);
    expect(after.active_sessions).toBe(before.active_sessions + 1);
    await call("session.destroy", { session_id: id });
  });

  test("session.create, list, info (env_keys, last_activity, command_count, timeout_s), destroy leaves the list", async () => {
    const id = await shell({ name: "lister", env: { A: "1", B: "2" }, timeout_s: 30 });
    const list = await call("session.list");
    expect(list.ok).toBe(true);
    const fields = {
      session_id: id,
      name: "lister",
      shell: "/bin/sh",
      working_dir: shared.dir,
      state: "idle",
      env_keys: expect.arrayContaining(["A", "B"]),
      created_at: expect.any(String),
      last_activity: expect.any(String),
      command_count: 0,
      timeout_s: 30,
    };
    expect(list.data.sessions).toContainEqual(expect.objectContaining(fields));
    const info = await call("session.info", { session_id: id });
    // Read before toMatchObject, which leaves its matchers in the object it checked.
    const { env_keys, last_activity } = info.data;
    expect([...env_keys].sort()).toEqual(["A", "B"]);
    expect(info.data).toMatchObject({ ...fields, pid: expect.any(Number) });
    await call("exec.run", { session_id: id, command: "true" });
    await call("exec.run", { session_id: id, command: "false" });
    const later = (await call("session.info", { session_id: id })).data;
    expect(later.command_count).toBe(2);
    expect(Date.parse(later.last_activity)).toBeGreaterThanOrEqual(Date.parse(last_activity));
    expect((await call("session.destroy", { session_id: id })).data).toEqual({ session_id: id, state: "terminated" });
    expect((await call("session.info", { session_id: id })).error.code).toBe("SESSION_NOT_FOUND");
    expect((await call("session.list")).data.sessions.map((s: Msg) => s.session_id)).not.toContain(id);
  });

  test("session.list entries carry env as claw-core shapes it (name → value), with the values withheld", async () => {
    const id = await shell({ env: { API_KEY: "s3cret-value", EMPTY: "" } });
    const list = await call("session.list");
    const entry = list.data.sessions.find((s: Msg) => s.session_id === id);
    expect(entry.env).toEqual({ API_KEY: "<hidden>", EMPTY: "<hidden>" });
    expect(JSON.stringify(list)).not.toContain("s3cret-value");
    // The session's commands still get the values.
    expect((await call("exec.run", { session_id: id, command: 'printf %s "$API_KEY"' })).data.stdout).toBe("s3cret-value");
    await call("session.destroy", { session_id: id });
  });

  test("name is a free label: any text, duplicates allowed (sessions are addressed by id)", async () => {
    const a = await shell({ name: "Build Bot #2" });
    const b = await shell({ name: "build-bot" });
    const c2 = await shell({ name: "build-bot" });
    expect(new Set([a, b, c2]).size).toBe(3);
    const names = (await call("session.list")).data.sessions.filter((s: Msg) => [a, b, c2].includes(s.session_id)).map((s: Msg) => s.name);
    expect(names.sort()).toEqual(["Build Bot #2", "build-bot", "build-bot"]);
    expect((await call("session.info", { session_id: a })).data.name).toBe("Build Bot #2");
    for (const id of [a, b, c2]) await call("session.destroy", { session_id: id });
  });

  test("a session without timeout_s has the 60 s default", async () => {
    const id = await shell();
    expect((await call("session.info", { session_id: id })).data.timeout_s).toBe(60);
    await call("session.destroy", { session_id: id });
  });

  test("TRL sees only the sessions it created", async () => {
    const other = await shared.c.call("session.create", { name: "not-trls", command: ["sh"], cwd: shared.dir });
    const ids = (await call("session.list")).data.sessions.map((s: Msg) => s.session_id);
    expect(ids).not.toContain(other.id);
    for (const ref of [other.id, "not-trls"]) {
      expect((await call("session.info", { session_id: ref })).error.code).toBe("SESSION_NOT_FOUND");
      expect((await call("exec.run", { session_id: ref, command: "true" })).error.code).toBe("SESSION_NOT_FOUND");
      expect((await call("session.destroy", { session_id: ref, force: true })).error.code).toBe("SESSION_NOT_FOUND");
    }
    expect((await shared.c.call("session.info", { session: other.id })).state).toBe("running");
    await shared.c.call("session.remove", { session: other.id, force: true });
  });
});

describe("exec.run: a fresh SHELL -c per call, over pipes", () => {
  for (const sh of ["/bin/sh", "/bin/bash"]) {
    test(`${sh}: nothing persists between calls; stdout and stderr apart; exit codes; exit 3 leaves the session usable`, async () => {
      const id = await shell({ shell: sh });
      const first = await call("exec.run", {
        session_id: id,
        command: `mkdir -p sub && cd sub; export GREETING=hello; set -eu; trap 'echo trapped' EXIT; alias ll=ls`,
      });
      expect(first).toEqual({
        id: first.id,
        ok: true,
        data: { stdout: "trapped\n", stderr: "", exit_code: 0, duration_ms: expect.any(Number), timed_out: false, cancelled: false },
      });
      // The next call starts afresh in working_dir: no cd, no variable, no set -u, no trap.
      const second = await call("exec.run", {
        session_id: id,
        command: 'pwd; echo "[${GREETING-unset}] $UNDEFINED_X"; echo oops >&2; printf "no newline"; false',
      });
      expect(second.data).toMatchObject({ stdout: `${shared.dir}\n[unset] \nno newline`, stderr: "oops\n", exit_code: 1 });
      expect((await call("exec.run", { session_id: id, command: "(exit 7)" })).data.exit_code).toBe(7);
      const bye = await call("exec.run", { session_id: id, command: "echo bye; exit 3" });
      expect(bye.data).toMatchObject({ stdout: "bye\n", exit_code: 3 });
      expect((await call("session.info", { session_id: id })).data.state).toBe("idle");
      // A syntax error is the command's stderr and status.
      const broken = await call("exec.run", { session_id: id, command: "echo 'unbalanced" });
      expect(broken.data.exit_code).not.toBe(0);
      expect(broken.data.stderr).not.toBe("");
      const multi = await call("exec.run", { session_id: id, command: 'for i in 1 2 3; do\n  printf \'%s|\' "$i"\ndone\necho "it\'s"' });
      expect(multi.data.stdout).toBe("1|2|3|it's\n");
      // Not a terminal: the command's output is a pipe.
      expect((await call("exec.run", { session_id: id, command: "[ -t 1 ] && echo tty || echo pipe" })).data.stdout).toBe("pipe\n");
      await call("session.destroy", { session_id: id });
    });
  }

  test("stdin, the session's env and the call's env", async () => {
    const id = await shell({ env: { FROM_SESSION: "s", BOTH: "session" } });
    expect((await call("exec.run", { session_id: id, command: "tr a-z A-Z", stdin: "shout\n" })).data.stdout).toBe("SHOUT\n");
    const r = await call("exec.run", {
      session_id: id,
      command: 'echo "$FROM_SESSION $BOTH $ONLY"; sh -c \'echo "$ONLY"\'',
      env: { BOTH: "cmd", ONLY: "once" },
    });
    expect(r.data.stdout).toBe("s cmd once\nonce\n");
    expect((await call("exec.run", { session_id: id, command: 'echo "$BOTH [${ONLY-unset}]"' })).data.stdout).toBe("session [unset]\n");
    // Without stdin the command reads end of file at once.
    expect((await call("exec.run", { session_id: id, command: "cat; echo end" })).data.stdout).toBe("end\n");
    await call("session.destroy", { session_id: id });
  });

  test("a timeout stops the command within the timeout even if it ignores SIGINT: COMMAND_TIMEOUT with the output so far", async () => {
    const id = await shell();
    const t0 = performance.now();
    const r = await call("exec.run", { session_id: id, command: "trap '' INT; echo started; sleep 30", timeout_s: 1 });
    const took = performance.now() - t0;
    expect(r).toEqual({
      id: r.id,
      ok: false,
      data: { stdout: "started\n", stderr: "", exit_code: -1, duration_ms: expect.any(Number), timed_out: true, cancelled: false },
      error: { code: "COMMAND_TIMEOUT", message: "command timed out" },
    });
    expect(r.data.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(1800);
    expect((await call("exec.run", { session_id: id, command: "echo free" })).data.stdout).toBe("free\n");
    await call("session.destroy", { session_id: id });
  });

  test("the session's timeout_s is the default; a call's own timeout_s wins", async () => {
    const id = await shell({ timeout_s: 1 });
    expect((await call("exec.run", { session_id: id, command: "sleep 30" })).error.code).toBe("COMMAND_TIMEOUT");
    expect((await call("exec.run", { session_id: id, command: "sleep 1.2; echo slow", timeout_s: 5 })).data.stdout).toBe("slow\n");
    await call("session.destroy", { session_id: id });
  });

  test("a command killed by a signal reports exit_code -1", async () => {
    const id = await shell();
    const r = await call("exec.run", { session_id: id, command: "echo before; kill -9 $$" });
    expect(r.data).toMatchObject({ stdout: "before\n", exit_code: -1, timed_out: false });
    await call("session.destroy", { session_id: id });
  });

  test("a non-POSIX shell: python3 runs python3 -c COMMAND", async () => {
    const id = await shell({ shell: "python3" });
    const r = await call("exec.run", { session_id: id, command: "import os, sys\nprint(6 * 7)\nprint(os.getcwd())\nsys.exit(5)" });
    expect(r.data).toMatchObject({ stdout: `42\n${shared.dir}\n`, exit_code: 5 });
    await call("session.destroy", { session_id: id });
  });

  test("SESSION_BUSY for a second exec.run (and destroy) while one runs; exec.cancel stops it", async () => {
    const id = await shell();
    const ready = fifo("busy-ready");
    const gate = fifo("busy-gate");
    // The command says it runs through one FIFO, and waits on the other.
    const first = call("exec.run", { session_id: id, command: `echo ready >${ready}; cat ${gate}` });
    expect(await readFile(ready, "utf8")).toBe("ready\n");
    const second = await call("exec.run", { session_id: id, command: "echo no" });
    expect(second).toEqual({ id: second.id, ok: false, error: { code: "SESSION_BUSY", message: expect.any(String) } });
    expect((await call("session.info", { session_id: id })).data.state).toBe("running");
    expect((await call("session.destroy", { session_id: id })).error.code).toBe("SESSION_BUSY");
    const cancel = await call("exec.cancel", { session_id: id });
    expect(cancel).toEqual({ id: cancel.id, ok: true, data: { session_id: id, cancelled: true, signal: "SIGINT" } });
    const r = await first;
    expect(r.ok).toBe(true);
    expect(r.data).toMatchObject({ exit_code: -1, timed_out: false, cancelled: true });
    // Nothing left to cancel; the session takes the next command.
    expect((await call("exec.cancel", { session_id: id })).data.cancelled).toBe(false);
    expect((await call("session.info", { session_id: id })).data.state).toBe("idle");
    expect((await call("exec.run", { session_id: id, command: "echo next" })).data.stdout).toBe("next\n");
    await call("session.destroy", { session_id: id });
  });

  test("exec.cancel with another signal; destroy with force during a command", async () => {
    const id = await shell({ shell: "/bin/bash" });
    const ready = fifo("term-ready");
    const gate = fifo("term-gate");
    const first = call("exec.run", { session_id: id, command: `echo ready >${ready}; exec cat ${gate}` });
    await readFile(ready, "utf8");
    const cancel = await call("exec.cancel", { session_id: id, signal: "TERM" });
    expect(cancel.data).toEqual({ session_id: id, cancelled: true, signal: "SIGTERM" });
    expect((await first).data).toMatchObject({ exit_code: -1, cancelled: true });

    const running = call("exec.run", { session_id: id, command: `echo ready >${ready}; cat ${gate}` });
    await readFile(ready, "utf8");
    expect((await call("session.destroy", { session_id: id, force: true })).data).toEqual({ session_id: id, state: "terminated" });
    // The command ended with its session; its caller hears how.
    const r = await running;
    expect(r.ok).toBe(true);
    expect(r.data.timed_out).toBe(false);
  });
});

describe("bad input gets TRL's error shape", () => {
  test("invalid JSON, unknown and planned methods, missing and malformed fields", async () => {
    const own = await Lines.open(shared.d.socket);
    expect((await call("system.ping", undefined, own)).ok).toBe(true);
    own.write("{nope\n");
    expect(await own.next()).toEqual({
      id: "unknown",
      ok: false,
      error: { code: "INVALID_PARAMS", message: expect.stringMatching(/^invalid JSON request/) },
    });
    for (const method of ["nope.nothing", "exec.stream"]) {
      const r = await call(method, {}, own);
      expect(r).toEqual({ id: r.id, ok: false, error: { code: "INVALID_PARAMS", message: `unsupported method: ${method}` } });
    }
    const noCommand = await call("exec.run", { session_id: "x" }, own);
    expect(noCommand.error).toEqual({ code: "INVALID_PARAMS", message: "missing field `command`" });
    expect((await call("session.info", {}, own)).error).toEqual({ code: "INVALID_PARAMS", message: "missing field `session_id`" });
    expect((await call("session.create", { timeout_s: "soon" }, own)).error.code).toBe("INVALID_PARAMS");
    expect((await call("session.create", { working_dir: join(shared.dir, "no-such-dir") }, own)).error.code).toBe("INVALID_PARAMS");
    expect((await call("session.info", [1, 2], own)).error).toEqual({ code: "INVALID_PARAMS", message: "params must be an object" });
    expect((await call("exec.run", { session_id: "nope", command: "true" }, own)).error.code).toBe("SESSION_NOT_FOUND");
    own.send({ id: 5, method: 42 });
    expect(await own.next()).toEqual({ id: 5, ok: false, error: { code: "INVALID_PARAMS", message: expect.any(String) } });
    expect((await call("system.ping", undefined, own)).ok).toBe(true);
    own.close();
  });
});

test("a client that disconnects mid-command: the command runs on, the session stays busy until it ends or is cancelled", async () => {
  const id = await shell();
  const ready = fifo("gone-ready");
  const gate = fifo("gone-gate");
  const gone = await Lines.open(shared.d.socket);
  gone.send({ id: "lost", method: "exec.run", params: { session_id: id, command: `echo ready >${ready}; cat ${gate}; echo done` } });
  await readFile(ready, "utf8");
  gone.socket.destroy();
  await gone.closed;
  expect((await call("exec.run", { session_id: id, command: "echo no" })).error.code).toBe("SESSION_BUSY");
  expect((await call("exec.cancel", { session_id: id })).data.cancelled).toBe(true);
  expect((await call("exec.run", { session_id: id, command: "echo again" })).data.stdout).toBe("again\n");
  await call("session.destroy", { session_id: id });
});

describe("native exec.run underneath", () => {
  test("NOT_A_SHELL for a program that is no shell; output as `output`", async () => {
    await shared.c.call("session.create", { name: "not-shell", command: ["cat"] });
    const err = (await shared.c.call("exec.run", { session: "not-shell", command: "true" }).catch((e) => e)) as RpcError;
    expect(err.name).toBe("NOT_A_SHELL");
    await shared.c.call("session.remove", { session: "not-shell", force: true });
    await shared.c.call("session.create", { name: "native-sh", command: ["sh"], cwd: shared.dir });
    const r = await shared.c.call("exec.run", { session: "native-sh", command: "echo out; echo err >&2; exit_code=4; (exit $exit_code)" });
    expect(r).toEqual({
      output: "out\n",
      stderr: "err\n",
      exit_code: 4,
      duration_ms: expect.any(Number),
      timed_out: false,
      cancelled: false,
      truncated: false,
    });
    expect((await shared.c.call("session.info", { session: "native-sh" })).busy).toBe(false);
    const timed = await shared.c.call("exec.run", { session: "native-sh", command: "sleep 30", timeout_ms: 200 });
    expect(timed).toMatchObject({ timed_out: true, exit_code: 130 });
    await shared.c.call("session.remove", { session: "native-sh", force: true });
  });

  test("fresh: a new SHELL -c in the session's cwd and env over pipes; the live shell is untouched", async () => {
    await shared.c.call("session.create", { name: "fresh-sh", command: ["bash"], cwd: shared.dir, env: { FROM_CREATE: "yes" } });
    await shared.c.call("session.wait", { session: "fresh-sh", regex: "[#$] $", timeout_ms: 10_000 });
    await shared.c.call("exec.run", { session: "fresh-sh", command: "cd /; export LIVE=1" });
    const r = await shared.c.call("exec.run", {
      session: "fresh-sh",
      command: 'pwd; echo "$FROM_CREATE [${LIVE-unset}]"; exit 3',
      fresh: true,
    });
    expect(r).toEqual({
      output: `${shared.dir}\nyes [unset]\n`,
      stderr: "",
      exit_code: 3,
      duration_ms: expect.any(Number),
      timed_out: false,
      cancelled: false,
      truncated: false,
    });
    // The live shell kept its own state and is still there.
    expect((await shared.c.call("exec.run", { session: "fresh-sh", command: 'pwd; echo "$LIVE"' })).output).toBe("/\n1\n");
    const killed = await shared.c.call("exec.run", { session: "fresh-sh", command: "kill -TERM $$", fresh: true });
    expect(killed).toMatchObject({ exit_code: null, signal: "SIGTERM" });
    const info = await shared.c.call("session.info", { session: "fresh-sh" });
    expect(info).toMatchObject({ state: "running", commands_run: 4, last_command_at: expect.any(String) });
    await shared.c.call("session.remove", { session: "fresh-sh", force: true });
  });

  test("TRL_DEFAULT_TIMEOUT_S is the timeout of a session created without timeout_s", async () => {
    process.env.TRL_DEFAULT_TIMEOUT_S = "1";
    let d2: TestDaemon;
    try {
      d2 = await TestDaemon.start();
    } finally {
      delete process.env.TRL_DEFAULT_TIMEOUT_S;
    }
    await using _ = d2;
    const own = await Lines.open(d2.socket);
    const id = (await call("session.create", { working_dir: shared.dir }, own)).data.session_id;
    expect((await call("session.info", { session_id: id }, own)).data.timeout_s).toBe(1);
    const r = await call("exec.run", { session_id: id, command: "sleep 30" }, own);
    expect(r.error.code).toBe("COMMAND_TIMEOUT");
    expect(r.data.duration_ms).toBeLessThan(5000);
    own.close();
  });

  test("TRL_SOCKET_PATH stands for TERMD_SOCKET", async () => {
    expect(defaultSocketPath({ TRL_SOCKET_PATH: "/x/trl.sock" })).toBe("/x/trl.sock");
    expect(defaultSocketPath({ TRL_SOCKET_PATH: "/x/trl.sock", TERMD_SOCKET: "/y/t.sock" })).toBe("/y/t.sock");
    // TERMD_SOCKET empty, so the alias is what finds the daemon.
    const r = await shared.d.cli(["daemon", "status"], { env: { TRL_SOCKET_PATH: shared.d.socket, TERMD_SOCKET: "" } });
    expect(r.stdout).toContain(`socket ${shared.d.socket}`);
    expect(r.code).toBe(0);
  });
});
