import { describe, expect, test } from "bun:test";
import { RpcError } from "../protocol/errors.ts";
import { TermdError, type TermdErrorCode } from "../terminal/errors.ts";
import { replyError, wireError } from "./errors.ts";

describe("domain errors on the wire", () => {
  const cases: [TermdErrorCode, number, string][] = [
    ["SESSION_NOT_FOUND", -32001, "SESSION_NOT_FOUND"],
    ["SESSION_NOT_RUNNING", -32002, "SESSION_NOT_RUNNING"],
    ["NAME_TAKEN", -32003, "NAME_TAKEN"],
    ["SPAWN_FAILED", -32006, "SPAWN_FAILED"],
    ["NOT_A_SHELL", -32007, "NOT_A_SHELL"],
    ["SESSION_BUSY", -32009, "SESSION_BUSY"],
    ["INPUT_NOT_READ", -32010, "INPUT_NOT_READ"],
    ["BAD_ARGUMENT", -32602, "INVALID_PARAMS"],
  ];
  for (const [code, number, name] of cases) {
    test(`${code} becomes ${name} (${number}) with its message and details`, () => {
      const e = wireError(new TermdError(code, "why", { session: "s1" }));
      expect(e).toBeInstanceOf(RpcError);
      expect((e as RpcError).name).toBe(name as RpcError["name"]);
      expect(JSON.stringify((e as RpcError).toWire())).toBe(JSON.stringify({ code: number, message: "why", data: { session: "s1", code: name } }));
    });
  }

  test("an RpcError or any other thrown value passes through unchanged", () => {
    const rpc = new RpcError("UNAUTHORIZED", "no");
    expect(wireError(rpc)).toBe(rpc);
    const plain = new Error("boom");
    expect(wireError(plain)).toBe(plain);
    expect(wireError("text")).toBe("text");
  });

  test("replyError makes anything else an internal error", () => {
    expect(replyError(new Error("boom")).toWire()).toEqual({ code: -32603, message: "internal error: boom", data: { code: "INTERNAL_ERROR" } });
    expect(replyError(new TermdError("BAD_ARGUMENT", "bad", { token: "x" })).toWire()).toEqual({
      code: -32602,
      message: "bad",
      data: { token: "x", code: "INVALID_PARAMS" },
    });
  });
});
