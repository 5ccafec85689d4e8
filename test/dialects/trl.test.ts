// TRL (seeds/trl-api.md): the document's example request as written; every method; exec.run in
// the session's own shell (cd and exports persist, stderr apart, exit codes, stdin, per-command
// env, timeouts, SESSION_BUSY, cancel); TRL's error shape for bad input; a client that goes away
// mid-command; TRL_SOCKET_PATH. Also the native exec.run underneath: NOT_A_SHELL, a clean screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "../../src/client/index.ts";
import type { RpcError } from "../../src/protocol/errors.ts";
import { defaultSocketPath } from "../../src/protocol/paths.ts";
import { TestDaemon } from "../harness.ts";
import { Lines, type Msg } from "./lines.ts";

let d: TestDaemon;
let native: Client;
let dir: string;
let c: Lines;
let nextId = 1;

beforeAll(async () => {
  d = await TestDaemon.start();
  native = await d.client();
  dir = mkdtempSync(join(tmpdir(), "termd-trl-"));
  c = await Lines.open(d.socket);
});

afterAll(async () => {
  c.close();
  await d[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

/** One TRL request on the shared connection; resolves with its reply (matched by id). */
function call(method: string, params?: unknown, on: Lines = c): Promise<Msg> {
  const id = `req-${nextId++}`;
  return on.ask({ id, method, ...(params !== undefined ? { params } : {}) }, (m) => m.id === id);
}

async function shell(params: Record<string, unknown> = {}): Promise<string> {
  const r = await call("session.create", { working_dir: dir, ...params });
  expect(r.ok).toBe(true);
  return r.data.session_id;
}

/** A FIFO a command can block on until the test opens it for writing; no sleeping involved. */
function fifo(name: string): string {
  const path = join(dir, name);
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
      { id: "req-001b", method: "session.create", params: { shell: "/bin/sh", env: { MY_VAR: "value" }, working_dir: dir } },
      (m) => m.id === "req-001b",
    );
    expect(r).toEqual({
      id: "req-001b",
      ok: true,
      data: { session_id: expect.any(String), shell: "/bin/sh", working_dir: dir, state: "idle", created_at: expect.any(String), name: null },
    });
    const run = await call("exec.run", { session_id: r.data.session_id, command: 'echo "$MY_VAR"' });
    expect(run.data.stdout).toBe("value\n");
    expect((await call("session.destroy", { session_id: r.data.session_id })).data).toEqual({ session_id: r.data.session_id, state: "terminated" });
  });

  test("the error example: SESSION_NOT_FOUND", async () => {
    const r = await call("session.info", { session_id: "s-xyz" });
    expect(r).toEqual({ id: r.id, ok: false, error: { code: "SESSION_NOT_FOUND", message: expect.stringContaining("s-xyz") } });
  });
});

describe("methods", () => {
  test("system.ping and system.stats", async () => {
    const ping = await call("system.ping");
    expect(ping).toEqual({ id: ping.id, ok: true, data: { uptime_s: expect.any(Number), version: expect.any(String) } });
    const before = (await call("system.stats")).data;
    expect(before).toEqual({ active_sessions: expect.any(Number), total_commands_run: expect.any(Number), uptime_s: expect.any(Number), memory_rss_bytes: expect.any(Number) });
    const id = await shell({ name: "stats-shell" });
    await call("exec.run", { session_id: id, command: "true" });
    const after = (await call("system.stats")).data;
    expect(after.total_commands_run).toBe(before.total_commands_run + 1);
    expect(after.active_sessions).toBe(before.active_sessions + 1);
    await call("session.destroy", { session_id: id });
  });

  test("session.create, list, info, destroy", async () => {
    const id = await shell({ name: "lister", env: { A: "1" }, timeout_s: 30 });
    const list = await call("session.list");
    expect(list.ok).toBe(true);
    expect(list.data.sessions).toContainEqual(expect.objectContaining({ session_id: id, name: "lister", shell: "/bin/sh", working_dir: dir, state: "idle" }));
    const info = await call("session.info", { session_id: id });
    expect(info.data).toMatchObject({ session_id: id, name: "lister", state: "idle", pid: expect.any(Number) });
    // A name works as the id too: it is a termd session name.
    expect((await call("session.info", { session_id: "lister" })).data.session_id).toBe(id);
    expect((await call("session.destroy", { session_id: id })).data).toEqual({ session_id: id, state: "terminated" });
    expect((await call("session.info", { session_id: id })).error.code).toBe("SESSION_NOT_FOUND");
  });
});

describe("exec.run runs in the session's shell", () => {
  for (const sh of ["/bin/sh", "/bin/bash"]) {
    test(`${sh}: cd and exported variables persist; stdout and stderr apart; exit codes`, async () => {
      const id = await shell({ shell: sh });
      // At its prompt first, so every typed line can be erased (a shell still starting is not).
      await native.call("session.wait", { session: id, regex: "[#$] $", timeout_ms: 10_000 });
      const first = await call("exec.run", { session_id: id, command: `cd ${dir} && mkdir -p sub && cd sub; export GREETING=hello; LOCAL=kept` });
      expect(first).toEqual({
        id: first.id,
        ok: true,
        data: { stdout: "", stderr: "", exit_code: 0, duration_ms: expect.any(Number), timed_out: false, cancelled: false },
      });
      const second = await call("exec.run", { session_id: id, command: 'pwd; echo "$GREETING $LOCAL"; echo oops >&2; printf "no newline"' });
      expect(second.data).toMatchObject({ stdout: `${join(dir, "sub")}\n${"hello kept"}\nno newline`, stderr: "oops\n", exit_code: 0 });
      // The variable reached child processes: it was exported in the shell itself.
      expect((await call("exec.run", { session_id: id, command: "sh -c 'echo $GREETING'" })).data.stdout).toBe("hello\n");
      expect((await call("exec.run", { session_id: id, command: "false" })).data.exit_code).toBe(1);
      expect((await call("exec.run", { session_id: id, command: "(exit 7)" })).data.exit_code).toBe(7);
      // A syntax error is the command's stderr and status, and the shell goes on.
      const broken = await call("exec.run", { session_id: id, command: "echo 'unbalanced" });
      expect(broken.data.exit_code).not.toBe(0);
      expect(broken.data.stderr).not.toBe("");
      expect((await call("exec.run", { session_id: id, command: "echo fine" })).data.stdout).toBe("fine\n");
      // Multi-line commands and quotes come through as written.
      const multi = await call("exec.run", { session_id: id, command: "for i in 1 2 3; do\n  printf '%s|' \"$i\"\ndone\necho \"it's\"" });
      expect(multi.data.stdout).toBe("1|2|3|it's\n");
      // Neither the typed line nor its mark is left on the screen.
      await native.call("session.wait", { session: id, settle_ms: 50, timeout_ms: 5000 });
      const screen = await native.call("session.screen", { session: id });
      expect(screen.lines.join("\n")).not.toContain("termd-exec");
      await call("session.destroy", { session_id: id });
    });
  }

  test("stdin and per-command env (the shell's own values come back)", async () => {
    const id = await shell();
    expect((await call("exec.run", { session_id: id, command: "tr a-z A-Z", stdin: "shout\n" })).data.stdout).toBe("SHOUT\n");
    await call("exec.run", { session_id: id, command: "export KEEP=shell" });
    const r = await call("exec.run", { session_id: id, command: 'echo "$KEEP $ONLY"; sh -c \'echo "$ONLY"\'', env: { KEEP: "cmd", ONLY: "once" } });
    expect(r.data.stdout).toBe("cmd once\nonce\n");
    expect((await call("exec.run", { session_id: id, command: 'echo "$KEEP [${ONLY-unset}]"' })).data.stdout).toBe("shell [unset]\n");
    // Without stdin the command reads nothing, rather than waiting on the terminal.
    expect((await call("exec.run", { session_id: id, command: "cat; echo end" })).data.stdout).toBe("end\n");
    await call("session.destroy", { session_id: id });
  });

  test("a timeout interrupts the command: COMMAND_TIMEOUT, with timed_out and the output so far", async () => {
    const id = await shell();
    const r = await call("exec.run", { session_id: id, command: "echo started; sleep 30", timeout_s: 1 });
    expect(r).toEqual({
      id: r.id,
      ok: false,
      data: { stdout: "started\n", stderr: "", exit_code: 130, duration_ms: expect.any(Number), timed_out: true, cancelled: false },
      error: { code: "COMMAND_TIMEOUT", message: "command timed out" },
    });
    expect(r.data.duration_ms).toBeGreaterThanOrEqual(1000);
    // The shell is free again, and a loop in the shell itself is interrupted the same way.
    expect((await call("exec.run", { session_id: id, command: "while :; do :; done", timeout_s: 1 })).error.code).toBe("COMMAND_TIMEOUT");
    expect((await call("exec.run", { session_id: id, command: "echo free" })).data.stdout).toBe("free\n");
    await call("session.destroy", { session_id: id });
  });

  test("the session's timeout_s is the default; a call's own timeout_s wins", async () => {
    const id = await shell({ timeout_s: 1 });
    expect((await call("exec.run", { session_id: id, command: "sleep 30" })).error.code).toBe("COMMAND_TIMEOUT");
    expect((await call("exec.run", { session_id: id, command: "sleep 1.2; echo slow", timeout_s: 5 })).data.stdout).toBe("slow\n");
    await call("session.destroy", { session_id: id });
  });

  test("SESSION_BUSY for a second exec.run (and destroy) while one runs; exec.cancel stops it", async () => {
    const id = await shell();
    const gate = fifo("busy-gate");
    // "ready" on the terminal tells the test the command runs; the FIFO holds it there.
    const first = call("exec.run", { session_id: id, command: `echo ready >/dev/tty; cat ${gate}` });
    const second = await call("exec.run", { session_id: id, command: "echo no" });
    expect(second).toEqual({ id: second.id, ok: false, error: { code: "SESSION_BUSY", message: expect.any(String) } });
    expect((await call("session.info", { session_id: id })).data.state).toBe("running");
    expect((await call("session.destroy", { session_id: id })).error.code).toBe("SESSION_BUSY");
    await native.call("session.wait", { session: id, text: "ready", timeout_ms: 10_000 });
    const cancel = await call("exec.cancel", { session_id: id });
    expect(cancel).toEqual({ id: cancel.id, ok: true, data: { session_id: id, cancelled: true, signal: "SIGINT" } });
    const r = await first;
    expect(r.ok).toBe(true);
    expect(r.data).toMatchObject({ exit_code: 130, timed_out: false, cancelled: true });
    // Nothing left to cancel; the shell takes the next command.
    expect((await call("exec.cancel", { session_id: id })).data.cancelled).toBe(false);
    expect((await call("session.info", { session_id: id })).data.state).toBe("idle");
    expect((await call("exec.run", { session_id: id, command: "echo next" })).data.stdout).toBe("next\n");
    await call("session.destroy", { session_id: id });
  });

  test("exec.cancel with another signal; destroy with force during a command", async () => {
    const id = await shell({ shell: "/bin/bash" });
    const gate = fifo("term-gate");
    // The job itself says it runs, so the signal finds it in the foreground.
    const first = call("exec.run", { session_id: id, command: `sh -c 'echo ready >/dev/tty; exec cat ${gate}'` });
    await native.call("session.wait", { session: id, text: "ready", timeout_ms: 10_000 });
    const cancel = await call("exec.cancel", { session_id: id, signal: "TERM" });
    expect(cancel.data).toEqual({ session_id: id, cancelled: true, signal: "SIGTERM" });
    expect((await first).data).toMatchObject({ exit_code: 143, cancelled: true });

    const running = call("exec.run", { session_id: id, command: `cat ${gate}` });
    expect((await call("session.destroy", { session_id: id, force: true })).data).toEqual({ session_id: id, state: "terminated" });
    // The command ended with its shell; its caller hears how.
    const r = await running;
    expect(r.ok).toBe(true);
    expect(r.data.timed_out).toBe(false);
  });

  test("a shell that exits during exec.run answers with the shell's exit code", async () => {
    const id = await shell();
    const r = await call("exec.run", { session_id: id, command: "echo bye; exit 3" });
    expect(r.data).toMatchObject({ stdout: "bye\n", exit_code: 3 });
    expect((await call("session.info", { session_id: id })).data.state).toBe("terminated");
    expect((await call("exec.run", { session_id: id, command: "true" })).error.code).toBe("SESSION_NOT_FOUND");
    await call("session.destroy", { session_id: id });
  });
});

describe("bad input gets TRL's error shape", () => {
  test("invalid JSON, unknown and planned methods, missing and malformed fields", async () => {
    const own = await Lines.open(d.socket);
    expect((await call("system.ping", undefined, own)).ok).toBe(true);
    own.write("{nope\n");
    expect(await own.next()).toEqual({ id: "unknown", ok: false, error: { code: "INVALID_PARAMS", message: expect.stringMatching(/^invalid JSON request/) } });
    for (const method of ["nope.nothing", "exec.stream"]) {
      const r = await call(method, {}, own);
      expect(r).toEqual({ id: r.id, ok: false, error: { code: "INVALID_PARAMS", message: `unsupported method: ${method}` } });
    }
    const noCommand = await call("exec.run", { session_id: "x" }, own);
    expect(noCommand.error).toEqual({ code: "INVALID_PARAMS", message: "missing field `command`" });
    expect((await call("session.info", {}, own)).error).toEqual({ code: "INVALID_PARAMS", message: "missing field `session_id`" });
    expect((await call("session.create", { timeout_s: "soon" }, own)).error.code).toBe("INVALID_PARAMS");
    expect((await call("session.create", { working_dir: join(dir, "no-such-dir") }, own)).error.code).toBe("INVALID_PARAMS");
    expect((await call("session.info", [1, 2], own)).error).toEqual({ code: "INVALID_PARAMS", message: "params must be an object" });
    expect((await call("exec.run", { session_id: "nope", command: "true" }, own)).error.code).toBe("SESSION_NOT_FOUND");
    own.send({ id: 5, method: 42 });
    expect(await own.next()).toEqual({ id: 5, ok: false, error: { code: "INVALID_PARAMS", message: expect.any(String) } });
    expect((await call("system.ping", undefined, own)).ok).toBe(true);
    own.close();
  });
});

test("a client that disconnects mid-command: the command runs on, the shell stays busy until it ends or is cancelled", async () => {
  const id = await shell();
  const gate = fifo("gone-gate");
  const gone = await Lines.open(d.socket);
  gone.send({ id: "lost", method: "exec.run", params: { session_id: id, command: `echo ready >/dev/tty; cat ${gate}; echo done` } });
  await native.call("session.wait", { session: id, text: "ready", timeout_ms: 10_000 });
  gone.socket.destroy();
  await gone.closed;
  expect((await call("exec.run", { session_id: id, command: "echo no" })).error.code).toBe("SESSION_BUSY");
  expect((await call("exec.cancel", { session_id: id })).data.cancelled).toBe(true);
  expect((await call("exec.run", { session_id: id, command: "echo again" })).data.stdout).toBe("again\n");
  await call("session.destroy", { session_id: id });
});

describe("native exec.run underneath", () => {
  test("NOT_A_SHELL for a program that is no shell; output as `output`", async () => {
    await native.call("session.create", { name: "not-shell", command: ["cat"] });
    const err = (await native.call("exec.run", { session: "not-shell", command: "true" }).catch((e) => e)) as RpcError;
    expect(err.name).toBe("NOT_A_SHELL");
    await native.call("session.remove", { session: "not-shell", force: true });
    await native.call("session.create", { name: "native-sh", command: ["sh"], cwd: dir });
    const r = await native.call("exec.run", { session: "native-sh", command: "echo out; echo err >&2; exit_code=4; (exit $exit_code)" });
    expect(r).toEqual({ output: "out\n", stderr: "err\n", exit_code: 4, duration_ms: expect.any(Number), timed_out: false, cancelled: false, truncated: false });
    expect((await native.call("session.info", { session: "native-sh" })).busy).toBe(false);
    const timed = await native.call("exec.run", { session: "native-sh", command: "sleep 30", timeout_ms: 200 });
    expect(timed).toMatchObject({ timed_out: true, exit_code: 130 });
    await native.call("session.remove", { session: "native-sh", force: true });
  });

  test("TRL_SOCKET_PATH stands for TERMD_SOCKET", async () => {
    expect(defaultSocketPath({ TRL_SOCKET_PATH: "/x/trl.sock" })).toBe("/x/trl.sock");
    expect(defaultSocketPath({ TRL_SOCKET_PATH: "/x/trl.sock", TERMD_SOCKET: "/y/t.sock" })).toBe("/y/t.sock");
    // TERMD_SOCKET empty, so the alias is what finds the daemon.
    const r = await d.cli(["daemon", "status"], { env: { TRL_SOCKET_PATH: d.socket, TERMD_SOCKET: "" } });
    expect(r.stdout).toContain(`socket ${d.socket}`);
    expect(r.code).toBe(0);
  });
});
