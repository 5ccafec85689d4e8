// interminai's mapping onto the native methods, through a fake daemon (the wire, the command line
// and real programs: test/dialects/interminai.test.ts and interminai-upstream.test.ts).
import { describe, expect, test } from "bun:test";
import { FakeNative, type NativeCall } from "../../test/unit-fixtures.ts";
import { RpcError } from "../protocol/errors.ts";
import { interminai } from "./interminai.ts";

/** A session as session.info gives it, with what the mapping reads. */
const info = (over: Record<string, unknown> = {}) => ({
  id: "s1",
  state: "running",
  exit_code: null,
  bytes_out: 0,
  scrollback: 1000,
  term: "xterm-256color",
  size: { rows: 3, cols: 10 },
  ...over,
});

/** A screen of 3x10 with `above` lines of scrollback before its rows. */
const screen = (lines: string[], above = 0, cursor = { row: 0, col: 0 }) => ({
  lines,
  scrollback_lines: above,
  scrollback_total: above,
  scrollback_end: 0,
  cursor,
  size: { rows: 3, cols: 10 },
});

/** One request on session s1's socket (`socketOf` null: on the daemon's main one, which stands for none). */
async function ask(msg: unknown, answer: (call: NativeCall) => unknown = () => ({}), socketOf: string | null = "s1") {
  const native = new FakeNative(answer, socketOf ?? undefined);
  return { reply: await interminai.open(native).handle(msg), native };
}

describe("requests", () => {
  test("INPUT sends its data as text", async () => {
    const { reply, native } = await ask({ type: "INPUT", data: "ls\n" });
    expect(reply).toEqual({ status: "ok", data: {} });
    expect(native.calls).toEqual([{ method: "session.input", params: { session: "s1", text: "ls\n" } }]);
    expect((await ask({ type: "INPUT" })).reply).toEqual({ status: "error", error: "Missing 'data' field" });
  });

  test("OUTPUT numbers the screen's lines from 1, scrollback's from -k; `to` cuts; the cursor stays on the last column", async () => {
    const answer = ({ method }: NativeCall) =>
      method === "session.info" ? info() : screen(["old   ", "one  ", "two", ""], 1, { row: 1, col: 10 });
    const { reply, native } = await ask({ type: "OUTPUT", from: -1, to: 2 }, answer);
    expect(native.calls[1]).toEqual({
      method: "session.screen",
      params: { session: "s1", format: "text", scrollback: 1, scrollback_end: 0 },
    });
    expect(reply).toEqual({
      status: "ok",
      data: {
        screen: "old\none\ntwo\n",
        cursor: { row: 1, col: 9 },
        size: { rows: 3, cols: 10 },
        from: -1,
        to: 2,
        scrollback_available: 1,
        scrollback_capacity: 1000,
      },
    });
    expect((await ask({ type: "OUTPUT", from: "x" }, answer)).reply).toEqual({
      status: "error",
      error: "Invalid 'from' value: expected an integer or \"-\"",
    });
  });

  test("STATUS with activity reads the flag and clears it: output since the last read", async () => {
    const native = new FakeNative(({ method }) => (method === "session.info" ? info({ bytes_out: 5 }) : screen([])), "s1");
    const conn = interminai.open(native);
    expect(await conn.handle({ type: "STATUS", activity: true })).toMatchObject({ data: { running: true, activity: true } });
    expect(await conn.handle({ type: "STATUS", activity: true })).toMatchObject({ data: { activity: false } });
  });

  test("WAIT returns the exit code once the program has ended, waiting on the native exit meanwhile", async () => {
    let ended = false;
    const { reply, native } = await ask({ type: "WAIT" }, ({ method }) => {
      if (method === "session.wait") ended = true;
      return method === "session.info" ? info(ended ? { state: "exited", exit_code: 3 } : {}) : {};
    });
    expect(reply).toEqual({ status: "ok", data: { exit_code: 3 } });
    expect(native.methods).toEqual(["session.info", "session.wait", "session.info"]);
    expect(native.calls[1]!.params).toMatchObject({ session: "s1", exit: true });
  });

  test("KILL, RESIZE and DEBUG take their fields beside type or in a data object (interminai's Python client)", async () => {
    expect((await ask({ type: "KILL", data: { signal: "SIGINT" } })).native.calls).toEqual([
      { method: "session.signal", params: { session: "s1", signal: "SIGINT" } },
    ]);
    const bad = await ask({ type: "KILL", signal: "NOPE" }, () => {
      throw new RpcError("INVALID_PARAMS", "bad signal");
    });
    expect(bad.reply).toEqual({ status: "error", error: "Invalid signal: NOPE" });
    expect((await ask({ type: "RESIZE", cols: 80, rows: 24 })).native.calls[0]).toEqual({
      method: "session.resize",
      params: { session: "s1", cols: 80, rows: 24 },
    });
    expect((await ask({ type: "RESIZE", cols: 80 })).reply).toEqual({ status: "error", error: "Missing 'rows' field" });
    const debug = await ask({ type: "DEBUG", data: { clear: true } }, () => ({ unhandled: [], dropped: 0, termios: null }));
    expect(debug.native.calls[0]).toEqual({ method: "session.debug", params: { session: "s1", clear: true } });
    expect(debug.reply).toMatchObject({ data: { termios: { error: "Failed to get termios: the terminal is closed" } } });
  });

  test("STOP replies first, then removes the session", async () => {
    const { reply, native } = await ask({ type: "STOP" }, ({ method }) => (method === "session.info" ? info() : {}));
    expect(reply).toBeNull();
    expect(native.sent).toEqual([{ status: "ok", data: { message: "Shutting down" } }]);
    expect(native.calls[1]).toEqual({ method: "session.remove", params: { session: "s1", force: true } });
  });
});

test("on the daemon's main socket a request names its session, or is refused", async () => {
  expect((await ask({ type: "STATUS" }, () => ({}), null)).reply).toEqual({
    status: "error",
    error: 'No session: connect to a session\'s own socket, or name one in "session"',
  });
  const named = await ask({ type: "INPUT", data: "x", session: "other" }, () => ({}), null);
  expect(named.native.calls[0]!.params.session).toBe("other");
});

test("what is not a request gets interminai's error; the connection takes one request", async () => {
  expect((await ask({ type: "DANCE" })).reply).toEqual({ status: "error", error: "Unknown command: DANCE" });
  expect((await ask({ data: 1 })).reply).toEqual({ status: "error", error: "Invalid JSON: missing field `type`" });
  expect((await ask("x")).reply).toEqual({ status: "error", error: 'Invalid JSON: expected a JSON object with a "type" field' });
  expect(interminai.open(new FakeNative(() => ({}))).malformed("invalid JSON: oops")).toEqual({
    status: "error",
    error: "Invalid JSON: oops",
  });
  expect(interminai.oneShot).toBe(true);
});
