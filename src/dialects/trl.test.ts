// TRL's mapping onto the native methods, through a fake daemon (the wire, real shells and
// commands: test/dialects/trl.test.ts).
import { describe, expect, test } from "bun:test";
import { FakeNative, type NativeCall } from "../../test/unit-fixtures.ts";
import { RpcError } from "../protocol/errors.ts";
import { HIDDEN_ENV_VALUE, trl } from "./trl.ts";

const META = { dialect: "trl", name: "build", env_keys: ["TOKEN"], timeout_s: 60 };

/** A session as the daemon describes it, with what the mapping reads. */
const info = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  name: id,
  command: ["/bin/bash"],
  cwd: "/w",
  state: "running",
  busy: false,
  pid: 40,
  exit_code: null,
  created_at: "2026-01-01T00:00:00.000Z",
  last_command_at: null,
  commands_run: 0,
  meta: META,
  ...over,
});

async function ask(msg: unknown, answer: (call: NativeCall) => unknown = () => ({})) {
  const native = new FakeNative(answer);
  return { reply: (await trl.open(native).handle(msg)) as any, native };
}

describe("session.create", () => {
  test("starts the shell in working_dir with TRL's fields in meta and exec.run's timeout; a free name is not termd's", async () => {
    const { reply, native } = await ask(
      {
        id: "r1",
        method: "session.create",
        params: { shell: "/bin/bash", env: { TOKEN: "s3cret" }, working_dir: "/w", name: "build", timeout_s: 5 },
      },
      () => info("s1"),
    );
    expect(native.calls).toEqual([
      {
        method: "session.create",
        params: {
          command: ["/bin/bash"],
          env: { TOKEN: "s3cret" },
          cwd: "/w",
          exec_timeout_ms: 5000,
          meta: { dialect: "trl", name: "build", env_keys: ["TOKEN"], timeout_s: 5 },
        },
      },
    ]);
    expect(reply).toEqual({
      id: "r1",
      ok: true,
      data: {
        session_id: "s1",
        shell: "/bin/bash",
        working_dir: "/w",
        state: "idle",
        created_at: "2026-01-01T00:00:00.000Z",
        name: "build",
      },
    });
  });

  test("bad params are INVALID_PARAMS naming the field, and the daemon is not asked", async () => {
    const { reply, native } = await ask({ id: 2, method: "session.create", params: { timeout_s: -1 } });
    expect(reply).toMatchObject({ id: 2, ok: false, error: { code: "INVALID_PARAMS", message: expect.stringContaining("timeout_s") } });
    expect(native.calls).toEqual([]);
  });
});

describe("sessions of TRL's own", () => {
  test("session.list shows only TRL's sessions, their env's names without the values", async () => {
    const sessions = [info("s1", { busy: true }), info("other", { meta: {} }), info("s2", { state: "exited", exit_code: 1 })];
    const { reply } = await ask({ id: 1, method: "session.list" }, () => ({ sessions }));
    const listed = reply.data.sessions as Record<string, unknown>[];
    expect(listed.map((s) => [s.session_id, s.state, s.env])).toEqual([
      ["s1", "running", { TOKEN: HIDDEN_ENV_VALUE }],
      ["s2", "terminated", { TOKEN: HIDDEN_ENV_VALUE }],
    ]);
  });

  test("another client's session is SESSION_NOT_FOUND, as if it were not there", async () => {
    const { reply, native } = await ask({ id: 1, method: "exec.run", params: { session_id: "other", command: "ls" } }, () =>
      info("other", { meta: undefined }),
    );
    expect(reply).toMatchObject({ ok: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(native.methods).toEqual(["session.info"]);
  });

  test("session.destroy hangs the shell up, stops and removes it; a busy one only with force, and then without grace", async () => {
    const destroy = (force: boolean, busy: boolean) =>
      ask({ id: 1, method: "session.destroy", params: { session_id: "s1", force } }, ({ method }) =>
        method === "session.info" ? info("s1", { busy }) : {},
      );
    const idle = await destroy(false, false);
    expect(idle.reply).toEqual({ id: 1, ok: true, data: { session_id: "s1", state: "terminated" } });
    expect(idle.native.calls.slice(1)).toEqual([
      { method: "session.signal", params: { session: "s1", signal: "SIGHUP" } },
      { method: "session.stop", params: { session: "s1" } },
      { method: "session.remove", params: { session: "s1", force: true } },
    ]);
    const busy = await destroy(false, true);
    expect(busy.reply).toMatchObject({ ok: false, error: { code: "SESSION_BUSY" } });
    expect(busy.native.methods).toEqual(["session.info"]);
    const forced = await destroy(true, true);
    expect(forced.native.calls[2]).toEqual({ method: "session.stop", params: { session: "s1", grace_ms: 0 } });
  });
});

describe("exec.run", () => {
  const ran = (over: Record<string, unknown>) => ({
    output: "out",
    stderr: "err",
    exit_code: 0,
    duration_ms: 3,
    timed_out: false,
    cancelled: false,
    ...over,
  });

  test("runs the command fresh, with its timeout in ms, stdin and env, and answers in TRL's fields", async () => {
    const { reply, native } = await ask(
      { id: 9, method: "exec.run", params: { session_id: "s1", command: "cat", timeout_s: 2, stdin: "in", env: { A: "1" } } },
      ({ method }) => (method === "session.info" ? info("s1") : ran({})),
    );
    expect(native.calls[1]).toEqual({
      method: "exec.run",
      params: { session: "s1", fresh: true, command: "cat", timeout_ms: 2000, stdin: "in", env: { A: "1" } },
    });
    expect(reply).toEqual({
      id: 9,
      ok: true,
      data: { stdout: "out", stderr: "err", exit_code: 0, duration_ms: 3, timed_out: false, cancelled: false },
    });
  });

  test("a timed-out command is COMMAND_TIMEOUT, with what it wrote beside the error", async () => {
    const { reply } = await ask({ id: 9, method: "exec.run", params: { session_id: "s1", command: "sleep 9" } }, ({ method }) =>
      method === "session.info" ? info("s1") : ran({ timed_out: true, exit_code: null }),
    );
    expect(reply).toEqual({
      id: 9,
      ok: false,
      data: { stdout: "out", stderr: "err", exit_code: -1, duration_ms: 3, timed_out: true, cancelled: false },
      error: { code: "COMMAND_TIMEOUT", message: "command timed out" },
    });
  });
});

test("native errors become TRL's codes; unknown methods and requests get INVALID_PARAMS", async () => {
  const refused = (name: "SESSION_NOT_RUNNING" | "SESSION_HELD" | "NOT_A_SHELL" | "INTERNAL_ERROR") => () => {
    throw new RpcError(name, "no");
  };
  const code = async (answer: () => unknown) =>
    (await ask({ id: 1, method: "session.info", params: { session_id: "s" } }, answer)).reply.error.code;
  expect(await code(refused("SESSION_NOT_RUNNING"))).toBe("SESSION_NOT_FOUND");
  expect(await code(refused("SESSION_HELD"))).toBe("SESSION_BUSY");
  expect(await code(refused("NOT_A_SHELL"))).toBe("INVALID_PARAMS");
  expect(await code(refused("INTERNAL_ERROR"))).toBe("INTERNAL_ERROR");
  expect((await ask({ id: 1, method: "nope" })).reply).toEqual({
    id: 1,
    ok: false,
    error: { code: "INVALID_PARAMS", message: "unsupported method: nope" },
  });
  expect((await ask({ id: 1, method: "system.ping", params: [] })).reply.error).toEqual({
    code: "INVALID_PARAMS",
    message: "params must be an object",
  });
  expect((await ask({ id: 1 })).reply.error.code).toBe("INVALID_PARAMS");
  expect(trl.claims({ method: "x" })).toBe(true);
  expect(trl.claims({ jsonrpc: "2.0", method: "x" })).toBe(false);
});
