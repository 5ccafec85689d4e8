// The console server's mapping onto the native methods, through a fake daemon (the wire and real
// sessions: test/dialects/console.test.ts).
import { describe, expect, test } from "bun:test";
import { FakeNative, type NativeCall } from "../../test/unit-fixtures.ts";
import { RpcError } from "../protocol/errors.ts";
import { CONSOLE_KILL_GRACE_MS, consoleServer, interpretEscapes } from "./console.ts";

const CONSOLE = { dialect: "console" };

/** A session as session.info and session.list give it, with only what the mapping reads. */
const info = (name: string, over: Record<string, unknown> = {}) => ({
  id: `id-${name}`,
  name,
  state: "running",
  pid: 40,
  meta: CONSOLE,
  ...over,
});

/** One request through a connection of the dialect to a daemon that answers with `answer`. */
async function ask(msg: unknown, answer: (call: NativeCall) => unknown = () => ({})) {
  const native = new FakeNative(answer);
  const reply = await consoleServer.open(native).handle(msg);
  return { reply, native };
}

const notFound = () => {
  throw new RpcError("SESSION_NOT_FOUND", "no session");
};

describe("create", () => {
  test("runs the command through /bin/sh -c in the given folder, or the server's own, marked as the console's", async () => {
    const { reply, native } = await ask({ cmd: "create", key: "k", command: "echo hi", log_path: "/l/k.log", cwd: "/w" }, () => ({
      pid: 42,
    }));
    expect(reply).toEqual({ ok: true, pid: 42 });
    expect(native.calls).toEqual([
      {
        method: "session.create",
        params: { name: "k", command: ["/bin/sh", "-c", "echo hi"], cwd: "/w", log_path: "/l/k.log", meta: CONSOLE },
      },
    ]);
    const bare = await ask({ cmd: "create", key: "k", command: "true", log_path: "/l" }, () => ({ pid: 1 }));
    expect(bare.native.calls[0]!.params.cwd).toBe(process.cwd());
    expect((await ask({ cmd: "create", key: "k", command: "true" })).reply).toEqual({
      ok: false,
      error: "Missing key, command, or log_path",
    });
  });

  test("on a key the console holds already: the old session is stopped (100 ms grace), removed, and made again", async () => {
    let creates = 0;
    const { reply, native } = await ask({ cmd: "create", key: "k", command: "true", log_path: "/l" }, ({ method }) => {
      if (method === "session.create" && creates++ === 0) throw new RpcError("NAME_TAKEN", "taken");
      return method === "session.info" ? info("k") : { pid: 7 };
    });
    expect(reply).toEqual({ ok: true, pid: 7 });
    expect(native.methods).toEqual(["session.create", "session.info", "session.stop", "session.remove", "session.create"]);
    expect(native.calls[2]!.params).toEqual({ session: "id-k", grace_ms: CONSOLE_KILL_GRACE_MS });
  });

  test("a key another client's session holds is not touched", async () => {
    const { reply, native } = await ask({ cmd: "create", key: "k", command: "true", log_path: "/l" }, ({ method }) => {
      if (method === "session.create") throw new RpcError("NAME_TAKEN", "taken");
      return info("k", { meta: {} });
    });
    expect(reply).toEqual({ ok: false, error: "Session 'k' is taken by another client" });
    expect(native.methods).toEqual(["session.create", "session.info"]);
  });
});

describe("commands on a key", () => {
  test("send writes the input's escapes as bytes", async () => {
    const { reply, native } = await ask({ cmd: "send", key: "k", input: "ls\\n\\e\\x41" }, ({ method }) =>
      method === "session.info" ? info("k") : {},
    );
    expect(reply).toEqual({ ok: true });
    expect(native.calls[1]).toEqual({
      method: "session.input",
      params: { session: "k", base64: Buffer.from("ls\n\x1bA").toString("base64") },
    });
  });

  test("a session that is not the console's is not found, as the server would say it", async () => {
    const { reply, native } = await ask({ cmd: "send", key: "k", input: "x" }, () => info("k", { meta: undefined }));
    expect(reply).toEqual({ ok: false, error: "Session 'k' not found" });
    expect(native.methods).toEqual(["session.info"]);
  });

  test("kill stops with the 100 ms grace, or with none when forced", async () => {
    const answer = ({ method }: NativeCall) => (method === "session.info" ? info("k") : {});
    expect((await ask({ cmd: "kill", key: "k" }, answer)).native.calls[1]!.params).toEqual({ session: "k", grace_ms: 100 });
    expect((await ask({ cmd: "kill", key: "k", force: true }, answer)).native.calls[1]!.params).toEqual({ session: "k", grace_ms: 0 });
  });

  test("remove stops a running session first; removing a key that is not there is no error", async () => {
    const running = await ask({ cmd: "remove", key: "k" }, ({ method }) => (method === "session.info" ? info("k") : {}));
    expect(running.reply).toEqual({ ok: true });
    expect(running.native.methods).toEqual(["session.info", "session.stop", "session.remove"]);
    const ended = await ask({ cmd: "remove", key: "k" }, ({ method }) => (method === "session.info" ? info("k", { state: "exited" }) : {}));
    expect(ended.native.methods).toEqual(["session.info", "session.remove"]);
    const missing = await ask({ cmd: "remove", key: "gone" }, notFound);
    expect(missing.reply).toEqual({ ok: true });
  });

  test("status says running or exited(N)", async () => {
    expect((await ask({ cmd: "status", key: "k" }, () => info("k"))).reply).toEqual({ ok: true, status: "running" });
    expect((await ask({ cmd: "status", key: "k" }, () => info("k", { state: "failed", exit_code: 2 }))).reply).toEqual({
      ok: true,
      status: "exited(2)",
      exit_code: 2,
    });
    expect((await ask({ cmd: "status", key: "k" }, notFound)).reply).toEqual({ ok: false, error: "Session 'k' not found" });
  });

  test("a command that needs a key and has none does not reach the daemon", async () => {
    for (const cmd of ["send", "kill", "remove", "status"]) {
      const { reply, native } = await ask({ cmd });
      expect(reply).toEqual({ ok: false, error: "Missing key" });
      expect(native.calls).toEqual([]);
    }
  });
});

test("list shows only the console's sessions", async () => {
  const sessions = [info("a"), info("b", { meta: {} }), info("c", { state: "exited", exit_code: 0, pid: null })];
  expect((await ask({ cmd: "list" }, () => ({ sessions }))).reply).toEqual({
    ok: true,
    sessions: [
      { key: "a", pid: 40, status: "running", exit_code: null },
      { key: "c", pid: 0, status: "exited(0)", exit_code: 0 },
    ],
  });
});

test("unknown commands and requests that are not objects get the server's errors", async () => {
  expect((await ask({ cmd: "dance" })).reply).toEqual({ ok: false, error: "Unknown command: dance" });
  expect((await ask({ cmd: 3 })).reply).toEqual({ ok: false, error: 'Invalid JSON: "cmd" must be a string' });
  expect((await ask([1])).reply).toEqual({ ok: false, error: 'Invalid JSON: a request is an object with a "cmd"' });
  expect(consoleServer.open(new FakeNative(() => ({}))).malformed("invalid JSON: x")).toEqual({ ok: false, error: "Invalid JSON: x" });
  expect(consoleServer.claims({ cmd: "ping" })).toBe(true);
  expect(consoleServer.claims({ jsonrpc: "2.0" })).toBe(false);
});

test("interpretEscapes: \\n \\r \\t \\\\ \\e \\0 \\xHH; any other backslash stays", () => {
  expect([...interpretEscapes("a\\tb\\0\\xff\\q\\")]).toEqual([...Buffer.from("a\tb\0"), 0xff, ...Buffer.from("\\q\\")]);
});
