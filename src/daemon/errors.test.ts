import { describe, expect, spyOn, test } from "bun:test";
import { RpcError } from "../protocol/errors.ts";
import { TermdError, type TermdErrorCode } from "../terminal/errors.ts";
import { errorReply, logFault, replyError, wireError } from "./errors.ts";

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
      expect(JSON.stringify((e as RpcError).toWire())).toBe(
        JSON.stringify({ code: number, message: "why", data: { session: "s1", code: name } }),
      );
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
    expect(replyError(new Error("boom")).toWire()).toEqual({
      code: -32603,
      message: "internal error: boom",
      data: { code: "INTERNAL_ERROR" },
    });
    expect(replyError(new TermdError("BAD_ARGUMENT", "bad", { token: "x" })).toWire()).toEqual({
      code: -32602,
      message: "bad",
      data: { token: "x", code: "INVALID_PARAMS" },
    });
  });
});

describe("the log of a fault", () => {
  /** What console.error was given while `fn` ran. */
  function logged(fn: () => void): unknown[][] {
    const spy = spyOn(console, "error").mockImplementation(() => {});
    try {
      fn();
      return spy.mock.calls.map((args) => [...args]);
    } finally {
      spy.mockRestore();
    }
  }

  test("names the method and the source file and line, as one string: never the error object, which the runtime prints with its source line", () => {
    const err = new Error("the screen is closed");
    const calls = logged(() => logFault("session.screenshot", err));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(1);
    const line = calls[0]![0] as string;
    expect(typeof line).toBe("string");
    expect(line).toStartWith("termd: internal error in session.screenshot: Error: the screen is closed\n");
    expect(line).toMatch(/errors\.test\.ts:\d+:\d+/);
  });

  test("is written once, however many places the fault passes through", () => {
    const err = new Error("boom");
    const calls = logged(() => {
      logFault("session.screen", err);
      errorReply(1, err);
      logFault("the native dialect", err);
    });
    expect(calls).toHaveLength(1);
    expect(String(calls[0]![0])).toContain("in session.screen:");
  });

  test("a client's error, or work dropped because its client went away, is not logged", () => {
    const gone = new AbortController();
    gone.abort();
    const calls = logged(() => {
      logFault("session.screenshot", gone.signal.reason);
      logFault("session.info", new RpcError("SESSION_NOT_FOUND", "no session"));
      logFault("session.wait", new TermdError("BAD_ARGUMENT", "bad regex"));
      errorReply(2, new RpcError("INVALID_PARAMS", "bad"));
    });
    expect(calls).toEqual([]);
  });

  test("a thrown value that is not an Error is logged as text", () => {
    expect(logged(() => logFault("session.screen", "a string"))).toEqual([["termd: internal error in session.screen: a string"]]);
  });
});
