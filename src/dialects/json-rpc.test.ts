// Native JSON-RPC's handling of requests, batches and events, through a fake daemon (over the
// socket with real sessions: test/bad-input.test.ts, test/fair-shares.test.ts).
import { describe, expect, test } from "bun:test";
import { FakeNative, type NativeCall } from "../../test/unit-fixtures.ts";
import { RpcError } from "../protocol/errors.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import { Serialized } from "./dialect.ts";
import { jsonRpc } from "./json-rpc.ts";

/** A connection to a daemon that answers `system.ping` with {pid: 1}, echoes `echo`'s params, and knows no session. */
function connect(answer?: (call: NativeCall) => unknown) {
  const native = new FakeNative(
    answer ??
      (({ method, params }) => {
        if (method === "system.ping") return { pid: 1 };
        if (method === "echo") return params;
        throw new RpcError("SESSION_NOT_FOUND", "no session x");
      }),
  );
  return { native, conn: jsonRpc.open(native) };
}

describe("a request", () => {
  test("runs its method with its params; the reply carries its id and the result", async () => {
    const { native, conn } = connect();
    expect(await conn.handle({ jsonrpc: "2.0", id: 7, method: "echo", params: { a: 1 } })).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { a: 1 },
    });
    expect(await conn.handle({ jsonrpc: "2.0", id: "s", method: "system.ping" })).toEqual({ jsonrpc: "2.0", id: "s", result: { pid: 1 } });
    expect(native.calls).toEqual([
      { method: "echo", params: { a: 1 } },
      { method: "system.ping", params: undefined },
    ]);
  });

  test("a failed method is an error reply with the JSON-RPC code and termd's name", async () => {
    const { conn } = connect();
    expect(await conn.handle({ jsonrpc: "2.0", id: 1, method: "session.info", params: { session: "x" } })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32001, message: "no session x", data: { code: "SESSION_NOT_FOUND" } },
    });
  });

  test("a notification runs, and gets no reply", async () => {
    const { native, conn } = connect();
    expect(await conn.handle({ jsonrpc: "2.0", method: "echo", params: [1] })).toBeNull();
    expect(native.methods).toEqual(["echo"]);
  });

  test("what is not a request is refused unrun, with its id where it has a valid one", async () => {
    const { native, conn } = connect();
    const invalid = (id: unknown) => ({ jsonrpc: "2.0", id, error: expect.objectContaining({ code: -32600 }) });
    expect(await conn.handle("ping")).toEqual(invalid(null));
    expect(await conn.handle({ id: 3, method: "echo" })).toEqual(invalid(3));
    expect(await conn.handle({ jsonrpc: "2.0", id: 4, method: 5 })).toEqual(invalid(4));
    expect(await conn.handle({ jsonrpc: "2.0", id: { no: 1 }, method: "echo" })).toEqual(invalid(null));
    expect(await conn.handle([])).toEqual(invalid(null));
    expect(native.calls).toEqual([]);
    expect(conn.malformed("invalid JSON")).toMatchObject({ id: null, error: { code: -32700, message: "invalid JSON" } });
  });
});

describe("a batch", () => {
  test("its requests run in order and are answered together; notifications and their results are left out", async () => {
    const { native, conn } = connect();
    const reply = await conn.handle([
      { jsonrpc: "2.0", id: 1, method: "echo", params: "one" },
      { jsonrpc: "2.0", method: "echo", params: "quiet" },
      { jsonrpc: "2.0", id: 2, method: "session.info" },
      "bad",
    ]);
    expect(reply).toBeInstanceOf(Serialized);
    expect(JSON.parse((reply as Serialized).json)).toEqual([
      { jsonrpc: "2.0", id: 1, result: "one" },
      { jsonrpc: "2.0", id: 2, error: expect.objectContaining({ code: -32001 }) },
      { jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
    expect(native.methods).toEqual(["echo", "echo", "session.info"]);
  });

  test("of notifications only, gets no reply", async () => {
    const { conn } = connect();
    expect(await conn.handle([{ jsonrpc: "2.0", method: "echo" }])).toBeNull();
  });

  test("a long one takes turns with the other connections every 16 requests", async () => {
    const { native, conn } = connect();
    let turns = 0;
    native.later = () => {
      turns++;
      return Promise.resolve();
    };
    const reply = await conn.handle(Array.from({ length: 40 }, (_, id) => ({ jsonrpc: "2.0", id, method: "system.ping" })));
    expect(JSON.parse((reply as Serialized).json)).toHaveLength(40);
    expect(turns).toBe(2);
  });
});

test("an event goes to the client as an event notification", () => {
  const { native, conn } = connect();
  const e = { type: "exit", session: "a", session_id: "id-a", timestamp: "t", data: { exit_code: 0 } } as unknown as EventMessage;
  conn.event(e);
  expect(native.sent).toEqual([{ jsonrpc: "2.0", method: "event", params: e }]);
  expect(jsonRpc.claims({ jsonrpc: "2.0" })).toBe(true);
  expect(jsonRpc.claims({ cmd: "ping" })).toBe(false);
});
