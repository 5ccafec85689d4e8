// ralph (docs/dialects.md, as ralph's attach.py uses it) on a session's own socket, made by
// `termd start --socket PATH`: the document's example requests as written, events as
// notifications in its shape, the socket 0600, interactive mode kept per session (write_pty only
// in it, state_change on a toggle), the socket's connections closed and its file removed when the
// session ends, JSON-RPC error codes for bad input (-32600 for a first line without "jsonrpc"), and
// a client that goes away mid-request.
import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { sharedDaemon } from "../harness.ts";
import { Lines, type Msg } from "../lines.ts";

const shared = sharedDaemon();
let nextId = 1;

/** `termd start --socket PATH --name NAME -- CMD…`: a session with a socket of its own. */
async function start(name: string, command: string[]): Promise<string> {
  const sock = join(shared.dir, `${name}.sock`);
  const r = await shared.d.cli(["start", "--socket", sock, "--name", name, "--cwd", shared.dir, "--", ...command]);
  expect(r.stderr).toBe("");
  expect(r.stdout.trim()).toBe(name);
  expect(r.code).toBe(0);
  return sock;
}

function rpc(c: Lines, method: string, params?: unknown): Promise<Msg> {
  const id = nextId++;
  return c.ask({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }, (m) => m.id === id);
}

const isEvent =
  (type: string, pred: (data: Msg) => boolean = () => true) =>
  (m: Msg) =>
    m.method === "event" && m.params?.type === type && pred(m.params.data);

/** ralph's timestamps: local time, microseconds, no zone (Python's isoformat()). */
const RALPH_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

describe("the document's examples, as written", () => {
  test("termd start --socket: a 0600 socket of the session's own; get_status", async () => {
    const sock = await start("my-feature", ["bash"]);
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    expect(statSync(sock).isSocket()).toBe(true);
    const c = await Lines.open(sock);
    // The Rust example's request.
    const r = await c.ask({ jsonrpc: "2.0", id: 1, method: "get_status", params: {} });
    expect(r).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        task_name: "my-feature",
        task_dir: shared.dir,
        iteration: expect.any(Number),
        max_iterations: expect.any(Number),
        current_story: expect.any(String),
        agent: "bash",
        status: "running",
        // ralph starts in autonomous mode; attach.py turns interactive mode on to type.
        interactive_mode: false,
        mode_indicator: "autonomous",
        started_at: expect.stringMatching(RALPH_TIME),
        updated_at: expect.stringMatching(RALPH_TIME),
        recent_output: expect.any(Array),
      },
    });
    c.close();
  });

  test("write_pty, set_interactive_mode, subscribe / unsubscribe, output events", async () => {
    const sock = join(shared.dir, "my-feature.sock");
    const c = await Lines.open(sock);
    expect(await c.ask({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { events: ["output", "state_change"] } })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { subscribed: ["output", "state_change"] },
    });
    expect(await c.ask({ jsonrpc: "2.0", id: 2, method: "set_interactive_mode", params: { enabled: true } })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { interactive_mode: true },
    });
    expect(await c.ask({ jsonrpc: "2.0", id: 3, method: "write_pty", params: { data: "ls -la\n" } })).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { status: "forwarded" },
    });
    // ls -la's listing comes back as output lines, escape sequences taken out.
    const total = await c.next(isEvent("output", (data) => /^total \d+$/.test(data.line)));
    expect(total).toEqual({
      jsonrpc: "2.0",
      method: "event",
      params: { type: "output", timestamp: expect.stringMatching(RALPH_TIME), data: { line: expect.any(String) } },
    });
    expect("id" in total).toBe(false);
    expect(await c.ask({ jsonrpc: "2.0", id: 4, method: "unsubscribe", params: { events: ["output"] } })).toEqual({
      jsonrpc: "2.0",
      id: 4,
      result: { subscribed: ["state_change"] },
    });

    const status = await rpc(c, "get_status");
    expect(status.result.recent_output.join("\n")).toMatch(/total \d+/);
    c.close();
  });

  test("the Python example: subscribe to everything, read events; stop ends the session with a state_change", async () => {
    const sock = join(shared.dir, "my-feature.sock");
    const c = await Lines.open(sock);
    expect(await c.ask({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { events: ["*"] } })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { subscribed: ["*"] },
    });
    await rpc(c, "set_interactive_mode", { enabled: true });
    await rpc(c, "write_pty", { data: "echo ralph-$((6*7))\n" });
    await c.next(isEvent("output", (data) => data.line === "ralph-42"));
    expect(await c.ask({ jsonrpc: "2.0", id: 9, method: "stop", params: {} })).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { status: "stop_requested" },
    });
    const change = await c.next(isEvent("state_change", (data) => "status" in data));
    expect(change.params).toEqual({
      type: "state_change",
      timestamp: expect.stringMatching(RALPH_TIME),
      data: { status: "stopped", exit_code: expect.any(Number) },
    });
    // The session is over: its socket's connections are closed and the file is gone, so a
    // re-attach finds no session rather than one that never answers.
    await c.closed;
    expect(existsSync(sock)).toBe(false);
    expect(
      await Lines.open(sock).then(
        () => "connected",
        (e: NodeJS.ErrnoException) => e.code,
      ),
    ).toBe("ENOENT");
    expect((await shared.c.call("session.info", { session: "my-feature" })).state).toBe("stopped");
    await shared.c.call("session.remove", { session: "my-feature" });
  });

  test("checkpoint and inject_prompt: no agent loop in termd, ralph's Method not found", async () => {
    const sock = await start("loopless", ["cat"]);
    const c = await Lines.open(sock);
    expect(await c.ask({ jsonrpc: "2.0", id: 1, method: "checkpoint", params: {} })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: "Method not found: checkpoint", data: { code: "METHOD_NOT_FOUND", method: "checkpoint" } },
    });
    const inject = await c.ask({
      jsonrpc: "2.0",
      id: 2,
      method: "inject_prompt",
      params: { prompt: "Focus on fixing the type errors first before adding new features." },
    });
    expect(inject.error.code).toBe(-32601);
    c.close();
    await shared.c.call("session.remove", { session: "loopless", force: true });
  });
});

test("--daemon-socket names the daemon's socket for every command (start's own --socket is the session's)", async () => {
  // daemon status never starts a daemon, so a wrong TERMD_SOCKET cannot leave one behind.
  const r = await shared.d.cli(["daemon", "status", "--daemon-socket", shared.d.socket], {
    env: { TERMD_SOCKET: join(shared.dir, "nowhere.sock") },
  });
  expect(r.stdout).toContain(`socket ${shared.d.socket}`);
  expect(r.code).toBe(0);
  const sock = join(shared.dir, "flagged.sock");
  const started = await shared.d.cli(["start", "--daemon-socket", shared.d.socket, "--socket", sock, "--name", "flagged", "--", "cat"]);
  expect(started.code).toBe(0);
  expect((await shared.c.call("session.info", { session: "flagged" })).socket).toBe(sock);
  await shared.c.call("session.remove", { session: "flagged", force: true });
});

describe("interactive mode and the session's end, as attach.py relies on them", () => {
  test("set_interactive_mode is kept per session: get_status reports it, every subscriber hears state_change, write_pty only in interactive mode", async () => {
    const sock = await start("modes", ["bash", "--norc", "--noprofile"]);
    const a = await Lines.open(sock);
    const b = await Lines.open(sock);
    await rpc(a, "subscribe", { events: ["state_change"] });
    await rpc(b, "subscribe", { events: ["*"] });
    // Autonomous: attach.py's hotkeys are not typed into the agent.
    expect((await rpc(a, "write_pty", { data: "echo typed-$((2+2))\n" })).result).toEqual({
      status: "ignored",
      reason: "not in interactive mode",
    });
    expect((await rpc(a, "set_interactive_mode", { enabled: true })).result).toEqual({ interactive_mode: true });
    for (const c of [a, b]) {
      const e = await c.next(isEvent("state_change", (data) => "interactive_mode" in data));
      expect(e.params).toEqual({ type: "state_change", timestamp: expect.stringMatching(RALPH_TIME), data: { interactive_mode: true } });
    }
    // Another connection sees the session's mode.
    expect((await rpc(b, "get_status")).result).toMatchObject({ interactive_mode: true, mode_indicator: "interactive" });
    expect((await rpc(b, "write_pty", { data: "echo typed-$((3+3))\n" })).result).toEqual({ status: "forwarded" });
    await b.next(isEvent("output", (data) => data.line === "typed-6"));
    expect((await rpc(b, "set_interactive_mode", { enabled: false })).result).toEqual({ interactive_mode: false });
    expect((await a.next(isEvent("state_change", (data) => data.interactive_mode === false))).params.data).toEqual({
      interactive_mode: false,
    });
    expect((await rpc(a, "get_status")).result).toMatchObject({ interactive_mode: false, mode_indicator: "autonomous" });
    expect((await rpc(a, "write_pty", { data: "x" })).result.status).toBe("ignored");
    // The ignored line never reached the shell.
    const screen = await shared.c.call("session.screen", { session: "modes" });
    expect(screen.lines.join("\n")).not.toContain("typed-4");
    a.close();
    b.close();
    await shared.c.call("session.remove", { session: "modes", force: true });
  });

  test("when the session ends its socket's connections get the last events, then are closed, and the file is removed", async () => {
    const sock = await start("ender", ["bash", "--norc", "--noprofile"]);
    const sub = await Lines.open(sock);
    const idle = await Lines.open(sock);
    await rpc(sub, "subscribe", { events: ["*"] });
    expect((await rpc(idle, "get_status")).result.status).toBe("running");
    await rpc(sub, "set_interactive_mode", { enabled: true });
    await rpc(sub, "write_pty", { data: "echo last-words; exit 4\n" });
    await sub.next(isEvent("output", (data) => data.line === "last-words"));
    const change = await sub.next(isEvent("state_change", (data) => "status" in data));
    expect(change.params.data).toEqual({ status: "failed", exit_code: 4 });
    await Promise.all([sub.closed, idle.closed]);
    expect(existsSync(sock)).toBe(false);
    // The session itself is still there, ended, for the daemon's other clients.
    expect((await shared.c.call("session.info", { session: "ender" })).exit_code).toBe(4);
    await shared.c.call("session.remove", { session: "ender" });
  });
});

describe("bad input gets JSON-RPC's error codes", () => {
  test('a first line without "jsonrpc" on a ralph socket: -32600', async () => {
    const sock = await start("strict", ["cat"]);
    const c = await Lines.open(sock);
    c.send({ id: 5, method: "get_status", params: {} });
    expect(await c.next((m) => m.id === 5)).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32600 } });
    // The connection goes on as JSON-RPC.
    expect((await rpc(c, "get_status")).result.status).toBe("running");
    c.close();
    await shared.c.call("session.remove", { session: "strict", force: true });
  });

  test("-32700, -32600, -32601, -32602", async () => {
    const sock = await start("errors", ["cat"]);
    const c = await Lines.open(sock);
    expect((await rpc(c, "get_status")).result.status).toBe("running");
    c.write("{not json\n");
    expect((await c.next()).error.code).toBe(-32700);
    // Missing "jsonrpc": an invalid request.
    c.send({ id: 77, method: "get_status" });
    expect(await c.next((m) => m.id === 77)).toMatchObject({ id: 77, error: { code: -32600 } });
    expect((await rpc(c, "foo")).error).toMatchObject({ code: -32601, message: "Method not found: foo" });
    expect((await rpc(c, "write_pty", {})).error).toMatchObject({ code: -32602, message: "Missing or empty 'data' parameter" });
    expect((await rpc(c, "write_pty", { data: 5 })).error.code).toBe(-32602);
    expect((await rpc(c, "subscribe", { events: ["bogus"] })).error).toMatchObject({
      code: -32602,
      message: "Invalid event type: 'bogus'. Valid: *, output, state_change",
    });
    expect((await rpc(c, "subscribe", { events: "output" })).error.code).toBe(-32602);
    expect((await rpc(c, "set_interactive_mode", { enabled: "yes" })).error.code).toBe(-32602);
    // Native methods work here too, with the session implied.
    expect((await rpc(c, "session.info")).result.name).toBe("errors");
    expect((await rpc(c, "get_status")).result.status).toBe("running");
    c.close();
    await shared.c.call("session.remove", { session: "errors", force: true });
  });

  test("ralph's methods are no aliases on the daemon's main socket", async () => {
    const c = await Lines.open(shared.d.socket);
    expect((await rpc(c, "get_status")).error).toMatchObject({ code: -32601 });
    c.close();
  });
});

test("a client that disconnects mid-request and with subscriptions: nothing breaks, others are served", async () => {
  const sock = await start("leaver", ["bash"]);
  const gone = await Lines.open(sock);
  await rpc(gone, "subscribe", { events: ["*"] });
  await rpc(gone, "set_interactive_mode", { enabled: true });
  // Output starts streaming to this subscriber, which then leaves with a request in flight.
  await rpc(gone, "write_pty", { data: "seq 1 3000\n" });
  await gone.sendAndDrop({ jsonrpc: "2.0", id: 100, method: "get_status", params: {} });
  await gone.closed;
  // The session goes on without its subscriber.
  await shared.c.call("session.wait", { session: "leaver", text: "3000", timeout_ms: 10_000 });
  const c = await Lines.open(sock);
  await rpc(c, "subscribe", { events: ["output"] });
  // The mode is the session's: still interactive for the next connection.
  await rpc(c, "write_pty", { data: "echo still-$((1+1))\n" });
  await c.next(isEvent("output", (data) => data.line === "still-2"));
  expect((await rpc(c, "get_status")).result.status).toBe("running");
  c.close();
  await shared.c.call("session.remove", { session: "leaver", force: true });
  expect(existsSync(sock)).toBe(false);
});

test("output lines are the session's plain text: colours and titles gone, line edits applied, a line split across reads whole", async () => {
  const sock = await start("plain", ["bash", "--norc", "--noprofile"]);
  const c = await Lines.open(sock);
  await rpc(c, "subscribe", { events: ["output"] });
  await rpc(c, "set_interactive_mode", { enabled: true });
  // Two printfs with a sleep between: the line reaches the daemon in two reads, a colour open across them.
  await rpc(c, "write_pty", {
    data: "printf '\\033]2;t\\007\\033[1;31mre'; sleep 0.2; printf 'd\\033[0m \\033[Kdone-%s\\b\\b-%s\\n' $((3*3)) 8\n",
  });
  await c.next(isEvent("output", (data) => data.line === "red done-8"));
  c.close();
  await shared.c.call("session.remove", { session: "plain", force: true });
});
