// ralph's methods and events on a session's socket, through a fake daemon (the wire and real
// sessions: test/dialects/ralph.test.ts).
import { expect, test } from "bun:test";
import { FakeNative, type NativeCall } from "../../test/unit-fixtures.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import { ralph } from "./ralph.ts";

const rpc = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) });

/** Two connections on session s1's socket, sharing the session's dialect state as the daemon keeps it. */
function socket(answer: (call: NativeCall) => unknown = () => ({})) {
  const a = new FakeNative(answer, "s1");
  const b = new FakeNative(answer, "s1");
  // One session, one state: b reads what a made.
  b.sessionState = (id, init) => a.sessionState(id, init);
  return { a, b, ca: ralph.open(a), cb: ralph.open(b) };
}

const event = (type: string, data: Record<string, unknown>) =>
  ({ type, session: "s1", session_id: "s1", timestamp: "2026-01-02T03:04:05.678Z", data }) as unknown as EventMessage;

test("write_pty is ignored in autonomous mode (ralph's default) and forwarded once a connection turned interactive mode on", async () => {
  const { a, ca, cb } = socket();
  expect(await ca.handle(rpc(1, "write_pty", { data: "ls\n" }))).toMatchObject({ result: { status: "ignored" } });
  expect(a.calls).toEqual([]);
  expect(await cb.handle(rpc(2, "set_interactive_mode", { enabled: true }))).toMatchObject({ result: { interactive_mode: true } });
  expect(await ca.handle(rpc(3, "write_pty", { data: "ls\n" }))).toMatchObject({ result: { status: "forwarded" } });
  expect(a.calls).toEqual([{ method: "session.input", params: { session: "s1", text: "ls\n" } }]);
  expect(await ca.handle(rpc(4, "write_pty", {}))).toMatchObject({ error: { code: -32602, message: "Missing or empty 'data' parameter" } });
});

test("subscribe asks for the native events it needs; output comes as ralph's lines, the last partial one and the state at the exit", async () => {
  const { a, ca } = socket();
  expect(await ca.handle(rpc(1, "subscribe", { events: ["output", "state_change"] }))).toMatchObject({
    result: { subscribed: ["output", "state_change"] },
  });
  expect(a.calls).toEqual([{ method: "session.subscribe", params: { session: "s1", events: ["output", "state", "exit"] } }]);
  expect(ca.plainText).toBe(true);
  expect(ca.framing).toBeNull();

  ca.event(event("output", { text: "one\ntw" }));
  ca.event(event("output", { text: "o\nthr" }));
  ca.event(event("state", { state: "exited" }));
  ca.event(event("exit", { exit_code: 0 }));
  const sent = a.sent as { params: { type: string; timestamp: string; data: unknown } }[];
  expect(sent.map((m) => [m.params.type, m.params.data])).toEqual([
    ["output", { line: "one" }],
    ["output", { line: "two" }],
    ["output", { line: "thr" }],
    ["state_change", { status: "completed", exit_code: 0 }],
  ]);
  // Python's isoformat: local time, microseconds, no zone.
  expect(sent[0]!.params.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.678000$/);
});

test("a mode change is heard by every connection subscribed to state_change", async () => {
  const { a, b, ca, cb } = socket();
  await ca.handle(rpc(1, "subscribe", { events: ["state_change"] }));
  await cb.handle(rpc(1, "set_interactive_mode", { enabled: true }));
  expect(a.sent).toMatchObject([{ method: "event", params: { type: "state_change", data: { interactive_mode: true } } }]);
  expect(b.sent).toEqual([]);
  // Once its connection closed, it hears no more.
  a.close();
  await cb.handle(rpc(2, "set_interactive_mode", { enabled: false }));
  expect(a.sent).toHaveLength(1);
});

test("unsubscribe drops the native events no longer needed; with none left events are native again", async () => {
  const { a, ca } = socket();
  await ca.handle(rpc(1, "subscribe", { events: ["*"] }));
  expect(await ca.handle(rpc(2, "unsubscribe", { events: ["*"] }))).toMatchObject({ result: { subscribed: [] } });
  expect(a.calls[1]).toEqual({ method: "session.unsubscribe", params: { session: "s1", events: ["output", "state", "exit"] } });
  expect(ca.plainText).toBe(false);
  ca.event(event("exit", { exit_code: 1 }));
  expect(a.sent).toEqual([{ jsonrpc: "2.0", method: "event", params: event("exit", { exit_code: 1 }) }]);
  expect(await ca.handle(rpc(3, "subscribe", { events: ["bogus"] }))).toMatchObject({
    error: { code: -32602, message: "Invalid event type: 'bogus'. Valid: *, output, state_change" },
  });
});

test("get_status: ralph's status fields from the session's info and its last screen lines", async () => {
  const { a, ca } = socket(({ method }) =>
    method === "session.info"
      ? {
          name: "task",
          cwd: "/w",
          current_cwd: null,
          command: ["claude", "-p"],
          state: "running",
          created_at: "2026-01-02T03:04:05.000Z",
          ended_at: null,
        }
      : { lines: ["first", "last", "", ""] },
  );
  const reply = (await ca.handle(rpc(1, "get_status"))) as { result: Record<string, unknown> };
  expect(reply.result).toMatchObject({
    task_name: "task",
    task_dir: "/w",
    agent: "claude -p",
    status: "running",
    interactive_mode: false,
    mode_indicator: "autonomous",
    recent_output: ["first", "last"],
  });
  expect(a.calls.map((c) => c.params)).toEqual([{ session: "s1" }, { session: "s1", scrollback: 50 }]);
});

test("stop is answered at once; native methods are served with their own params; ralph's methods need a session socket", async () => {
  const { a, ca } = socket(({ method }) => (method === "system.ping" ? { pid: 9 } : new Promise(() => {})));
  expect(await ca.handle(rpc(1, "stop"))).toMatchObject({ result: { status: "stop_requested" } });
  expect(a.calls[0]).toEqual({ method: "session.stop", params: { session: "s1" } });
  expect(await ca.handle(rpc(2, "system.ping"))).toMatchObject({ result: { pid: 9 } });
  const main = ralph.open(new FakeNative(() => ({})));
  expect(await main.handle(rpc(3, "get_status"))).toMatchObject({ error: { code: -32601 } });
});
