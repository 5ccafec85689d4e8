// Bad input of every kind gets a clear error reply or a closed connection, never a crash: after
// each case the daemon still answers everyone else, and no session loses output on the way.
// Clients here talk raw sockets wherever the client library would refuse to send garbage.
import { expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Client } from "../src/client/index.ts";
import { LineSplitter } from "../src/protocol/framing.ts";
import type { RpcError } from "../src/protocol/errors.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";
import { Lines, type Msg } from "./lines.ts";

/**
 * Writes `data` on a fresh connection as fast as the daemon takes it, collecting what comes back,
 * until the daemon closes. Bun's own socket, because node:net drops what was received as soon as a
 * write fails with EPIPE, and a daemon that refuses an oversized line closes mid-write by design.
 */
async function writeUntilClosed(path: string, data: Uint8Array): Promise<{ replies: Msg[]; written: number }> {
  const splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  const replies: Msg[] = [];
  const closed = Promise.withResolvers<void>();
  let written = 0;
  const pump = (s: { write(d: Uint8Array): number }) => {
    while (written < data.length) {
      const n = s.write(data.subarray(written));
      if (n <= 0) return;
      written += n;
    }
  };
  await Bun.connect({
    unix: path,
    socket: {
      open: pump,
      drain: pump,
      data: (_s, chunk) => {
        for (const f of splitter.push(chunk)) if ("line" in f) replies.push(JSON.parse(f.line));
      },
      close: () => closed.resolve(),
      error: () => {},
    },
  });
  await closed.promise;
  return { replies, written };
}

function rpcError(code: number, name: string) {
  return { jsonrpc: "2.0", error: { code, message: expect.any(String), data: expect.objectContaining({ code: name }) } };
}

/** The client library rejects with RpcError; this resolves to it (or fails if the call succeeded). */
async function callError(p: Promise<unknown>): Promise<RpcError> {
  return p.then(
    (r) => {
      throw new Error(`expected an error, got ${JSON.stringify(r)}`);
    },
    (e: RpcError) => e,
  );
}

/** The daemon process is alive and a fresh connection gets a ping answered. */
async function expectAlive(d: TestDaemon): Promise<void> {
  expect(d.proc.exitCode).toBeNull();
  await using r = await Lines.open(d.socket);
  const pong = await r.call(1, "system.ping");
  expect(pong.result.pid).toBe(d.proc.pid);
}

/**
 * A session `name` whose cat prints a file of base64 lines from random bytes: what the PTY makes
 * of the file (ONLCR: \n becomes \r\n), to compare with what reads back.
 */
async function catOfRandom(
  d: TestDaemon,
  c: Client,
  name: string,
  randomLength: number,
  opts: { scrollback?: number } = {},
): Promise<Buffer> {
  const text =
    randomBytes(randomLength)
      .toString("base64")
      .replace(/.{100}/g, "$&\n") + "\n";
  const path = join(d.dir, `data-${randomLength}.txt`);
  writeFileSync(path, text);
  await c.call("session.create", { name, command: ["cat", path], ...opts });
  return Buffer.from(text.replaceAll("\n", "\r\n"));
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** Every byte of the session's output, read back through session.output from offset 0 until eof. */
async function readAllOutput(c: Client, session: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let from = 0;
  for (;;) {
    const o = await c.call("session.output", { session, from, max_bytes: maxBytes });
    expect(o.from).toBe(from);
    parts.push(Buffer.from(o.base64, "base64"));
    expect(parts.at(-1)!.length).toBe(o.to - o.from);
    from = o.to;
    if (o.eof) break;
  }
  return Buffer.concat(parts);
}

test("invalid JSON gets a PARSE_ERROR reply with a null id, and the connection keeps serving", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  for (const garbage of ['{"jsonrpc":"2.0","id":1,', "not json at all", "{'single':'quotes'}", '{"a":1}}', "[1,2", "\x00\x01"]) {
    r.write(garbage + "\n");
    expect(await r.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringContaining("invalid JSON"), data: { code: "PARSE_ERROR" } },
    });
  }
  // Nesting deep enough to exhaust a recursive parser is a parse error, or else a batch of one
  // invalid request: a reply either way.
  r.write("[".repeat(100_000) + "]".repeat(100_000) + "\n");
  const deep = await r.next();
  if (Array.isArray(deep)) expect(deep).toEqual([{ ...rpcError(-32600, "INVALID_REQUEST"), id: null }]);
  else expect(deep).toEqual({ ...rpcError(-32700, "PARSE_ERROR"), id: null });
  expect(await r.call(2, "system.ping")).toMatchObject({ jsonrpc: "2.0", id: 2, result: { pid: d.proc.pid } });
  await expectAlive(d);
});

test("a message that is not a request object gets INVALID_REQUEST", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  const invalid = rpcError(-32600, "INVALID_REQUEST");
  for (const line of ["5", '"a string"', "null", "true", "{}"]) {
    r.write(line + "\n");
    expect(await r.next()).toEqual({ ...invalid, id: null });
  }
  // The id is echoed when it is a valid one, so the caller can tell which request was refused.
  r.write('{"id":3,"method":"system.ping"}\n'); // no jsonrpc
  expect(await r.reply(3)).toEqual({ ...invalid, id: 3 });
  r.write('{"jsonrpc":"1.0","id":4,"method":"system.ping"}\n');
  expect(await r.reply(4)).toEqual({ ...invalid, id: 4 });
  r.write('{"jsonrpc":"2.0","id":"five"}\n'); // no method
  expect(await r.reply("five")).toEqual({ ...invalid, id: "five" });
  r.write('{"jsonrpc":"2.0","id":6,"method":42}\n');
  expect(await r.reply(6)).toEqual({ ...invalid, id: 6 });
  r.write('{"jsonrpc":"2.0","id":{"an":"object"},"method":"system.ping"}\n');
  expect(await r.next()).toEqual({ ...invalid, id: null });
  expect(await r.call(7, "system.ping")).toMatchObject({ id: 7, result: { pid: d.proc.pid } });
  await expectAlive(d);
});

test("a batch gets an array of replies; an empty batch is INVALID_REQUEST; notifications get none", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  r.write(
    JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "system.ping" },
      { jsonrpc: "2.0", id: 2, method: "no.such.method" },
      7,
      { jsonrpc: "2.0", method: "system.ping" }, // a notification: runs, no reply
      { jsonrpc: "2.0", id: 3, method: "session.info", params: { session: "" } },
    ]) + "\n",
  );
  const batch: Msg[] = await r.next();
  expect(Array.isArray(batch)).toBe(true);
  expect(batch).toHaveLength(4);
  const byId = (id: unknown) => batch.filter((m) => m.id === id);
  expect(byId(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: expect.objectContaining({ pid: d.proc.pid }) }]);
  expect(byId(2)).toEqual([{ ...rpcError(-32601, "METHOD_NOT_FOUND"), id: 2 }]);
  expect(byId(null)).toEqual([{ ...rpcError(-32600, "INVALID_REQUEST"), id: null }]);
  expect(byId(3)).toEqual([{ ...rpcError(-32602, "INVALID_PARAMS"), id: 3 }]);

  r.write("[]\n");
  expect(await r.next()).toEqual({ ...rpcError(-32600, "INVALID_REQUEST"), id: null });
  // A batch of notifications only, and a lone notification, produce no reply at all: the next
  // message on the connection is the ping's.
  r.write('[{"jsonrpc":"2.0","method":"system.ping"},{"jsonrpc":"2.0","method":"nope"}]\n');
  r.write('{"jsonrpc":"2.0","method":"system.ping"}\n');
  r.request(9, "system.ping");
  expect(await r.next()).toMatchObject({ id: 9, result: { pid: d.proc.pid } });
  expect(r.pending).toEqual([]);
  await expectAlive(d);
});

test("params of the wrong type get INVALID_PARAMS naming the field", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  const cases: [method: string, params: unknown, field: string][] = [
    ["session.input", { session: "s", text: 5 }, "text"],
    ["session.input", { session: "s", keys: "Enter" }, "keys"],
    ["session.input", { session: 12, text: "x" }, "session"],
    ["session.resize", { session: "s", rows: "x", cols: 80 }, "rows"],
    ["session.resize", { session: "s", rows: -1, cols: 80 }, "rows"],
    ["session.resize", { session: "s", rows: 24, cols: 2.5 }, "cols"],
    ["session.output", { session: "s", from: -5 }, "from"],
    ["session.output", { session: "s", max_bytes: 0 }, "max_bytes"],
    ["session.wait", { session: "s", text: "x", timeout_ms: -1 }, "timeout_ms"],
    ["session.create", { command: "bash" }, "command"],
    ["session.create", { command: [] }, "command"],
    ["session.create", { name: "has space" }, "name"],
    ["session.create", { env: { A: 1 } }, "env"],
    ["session.signal", { session: "s", signal: -9 }, "signal"],
    ["session.subscribe", { events: ["nonsense"] }, "events"],
    ["system.shutdown", { grace_ms: "soon" }, "grace_ms"],
  ];
  let id = 0;
  for (const [method, params] of cases) r.request(++id, method, params);
  id = 0;
  for (const [method, , field] of cases) {
    const reply = await r.reply(++id);
    expect(reply).toEqual({ ...rpcError(-32602, "INVALID_PARAMS"), id });
    expect(reply.error.message).toStartWith(`${method}: `);
    expect(reply.error.message).toContain(field);
  }
  // params that are not an object at all
  for (const params of [[1, 2], "s", 5, null]) {
    r.request(++id, "session.info", params);
    const reply = await r.reply(id);
    expect(reply).toEqual({ ...rpcError(-32602, "INVALID_PARAMS"), id });
    expect(reply.error.message).toContain("params must be an object");
  }
  // Nothing was created or shut down along the way.
  expect((await r.call(++id, "session.list")).result).toEqual({ sessions: [] });
  await expectAlive(d);
});

test("an unknown method gets METHOD_NOT_FOUND naming it", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  for (const method of ["session.explode", "", "__proto__", "constructor", "toString"]) {
    const reply = await r.call(1, method);
    expect(reply).toEqual({ ...rpcError(-32601, "METHOD_NOT_FOUND"), id: 1 });
    expect(reply.error.message).toContain(JSON.stringify(method));
  }
  await expectAlive(d);
});

test("a line over 10 MiB gets PAYLOAD_TOO_LARGE and only that connection is closed", async () => {
  await using d = await TestDaemon.start();
  const other = await d.client();
  // 20 MB inside one JSON line, written while another client keeps pinging.
  const line = Buffer.alloc(20 * 1024 * 1024 + 64, 0x61);
  line.write('{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"x":"');
  line.write('"}}\n', line.length - 4);
  let done = false;
  const big = writeUntilClosed(d.socket, line).finally(() => (done = true));
  let pings = 0;
  while (!done) {
    expect((await other.call("system.ping")).pid).toBe(d.proc.pid);
    pings++;
  }
  const { replies, written } = await big;
  expect(replies).toEqual([{ ...rpcError(-32005, "PAYLOAD_TOO_LARGE"), id: null }]);
  // Refused once past the limit, not after swallowing the whole line.
  expect(written).toBeLessThan(line.length);
  expect(pings).toBeGreaterThan(0);
  expect((await other.call("system.ping")).pid).toBe(d.proc.pid);
  await expectAlive(d);
});

test("an oversized line without a newline is refused as soon as it passes the limit", async () => {
  await using d = await TestDaemon.start();
  // Blank and never terminated; a request after it in the same stream is never run.
  const data = Buffer.concat([
    Buffer.alloc(11 * 1024 * 1024, 0x20),
    Buffer.from('\n{"jsonrpc":"2.0","id":2,"method":"session.create","params":{"name":"sneaky","command":["cat"]}}\n'),
  ]);
  expect((await writeUntilClosed(d.socket, data)).replies).toEqual([{ ...rpcError(-32005, "PAYLOAD_TOO_LARGE"), id: null }]);
  await using r = await Lines.open(d.socket);
  expect((await r.call(1, "session.list")).result).toEqual({ sessions: [] });
  await expectAlive(d);
});

test("invalid UTF-8 in a line gets PARSE_ERROR and the connection stays usable", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  const prefix = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"session.info","params":{"session":"');
  const suffix = Buffer.from('"}}\n');
  for (const bad of [
    [0xff, 0xfe],
    [0xc0, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
  ]) {
    r.write(Buffer.concat([prefix, Buffer.from(bad), suffix]));
    expect(await r.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringContaining("UTF-8"), data: { code: "PARSE_ERROR" } },
    });
  }
  expect(await r.call(2, "system.ping")).toMatchObject({ id: 2, result: { pid: d.proc.pid } });
  await expectAlive(d);
});

test("a request written byte by byte, with multi-byte characters split, is answered", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  const name = "ünïcødé→✓🎉";
  const bytes = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session.info", params: { session: name } }) + "\r\n");
  for (const b of bytes) {
    // Each byte goes out in its own write once the previous one reached the kernel.
    await new Promise<void>((resolve, reject) => r.socket.write(Uint8Array.of(b), (err) => (err ? reject(err) : resolve())));
  }
  // The name survived the split intact: the daemon looked up exactly it.
  expect(await r.reply(1)).toEqual({
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32001, message: expect.any(String), data: { code: "SESSION_NOT_FOUND", session: name } },
  });
  await expectAlive(d);
});

test("several requests in one write each get their reply", async () => {
  await using d = await TestDaemon.start();
  await using r = await Lines.open(d.socket);
  const req = (id: number, method: string) => JSON.stringify({ jsonrpc: "2.0", id, method });
  r.write([req(1, "system.ping"), "", req(2, "system.stats"), "garbage", req(3, "nope"), req(4, "session.list"), ""].join("\n"));
  const replies = await Promise.all([r.reply(1), r.reply(2), r.reply(null), r.reply(3), r.reply(4)]);
  expect(replies[0].result.pid).toBe(d.proc.pid);
  expect(replies[1].result.sessions).toBe(0);
  expect(replies[2].error.data.code).toBe("PARSE_ERROR");
  expect(replies[3].error.data.code).toBe("METHOD_NOT_FOUND");
  expect(replies[4].result).toEqual({ sessions: [] });
  expect(r.pending).toEqual([]);
  await expectAlive(d);
});

test("a client that goes away in the middle of a large reply does not hurt anyone", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const expected = await catOfRandom(d, c, "big", 2_000_000, { scrollback: 100_000 }); // 2.7 MB of base64 lines
  expect(await c.call("session.wait", { session: "big", exit: true, timeout_ms: 30_000 })).toMatchObject({
    outcome: "exited",
    exit_code: 0,
  });

  // Gone after the first bytes of a 3.6 MB reply arrived, far more than a socket buffers: the
  // daemon is mid-write.
  const r1 = await Lines.open(d.socket);
  r1.request(1, "session.output", { session: "big", from: 0, max_bytes: 8 * 1024 * 1024 });
  await new Promise<void>((resolve) => r1.socket.once("data", () => resolve()));
  r1.destroy();
  await r1.closed;
  // Gone right after asking, before any reply: the daemon answers into a closed socket.
  for (const [method, params] of [
    ["session.output", { session: "big", from: 0, max_bytes: 8 * 1024 * 1024 }],
    ["session.screen", { session: "big", format: "ansi", scrollback: 100_000 }],
  ] as const) {
    const r2 = await Lines.open(d.socket);
    r2.request(1, method, params);
    r2.socket.end();
    r2.destroy();
    await r2.closed;
  }
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
  // A reader that stays gets the whole reply, and the output is intact.
  expect(sha256(await readAllOutput(c, "big", 8 * 1024 * 1024))).toBe(sha256(expected));
  await expectAlive(d);
}, 30_000);

test("a client that goes away during a pending session.wait does not hurt anyone", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "cat", command: ["cat"] });
  const r = await Lines.open(d.socket);
  r.request(1, "session.wait", { session: "cat", text: "never shown", timeout_ms: 60_000 });
  // Requests on one connection are dispatched in order, so once the ping is answered the wait is pending.
  expect((await r.call(2, "system.ping")).result.pid).toBe(d.proc.pid);
  r.destroy();
  await r.closed;
  // The session keeps working, including the screen changes the abandoned wait listened to.
  await c.call("session.input", { session: "cat", text: "still here\r" });
  expect(await c.call("session.wait", { session: "cat", text: "still here", timeout_ms: 5000 })).toMatchObject({ outcome: "matched" });
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
  await expectAlive(d);
});

test("a session flooding output does not starve other clients, and stops on request", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const other = await d.client();
  await c.call("session.create", { name: "flood", command: ["yes", "flood flood flood flood flood flood flood flood"] });
  await c.call("session.wait", { session: "flood", activity: true, timeout_ms: 5000 });
  // Ping round trips complete while the flood runs, for as long as it takes the flood to write
  // another 4 MB (the PTY is read in bursts, so count bytes, not pings).
  const before = (await other.call("session.info", { session: "flood" })).bytes_out;
  let bytesOut = before;
  let pings = 0;
  while (pings < 20 || bytesOut < before + 4 * 1024 * 1024) {
    expect((await other.call("system.ping")).pid).toBe(d.proc.pid);
    pings++;
    bytesOut = (await other.call("session.info", { session: "flood" })).bytes_out;
  }
  const screen = await other.call("session.screen", { session: "flood" });
  expect(screen.lines.join("\n")).toContain("flood flood");
  const stopped = await c.call("session.stop", { session: "flood", grace_ms: 2000 });
  expect(stopped.state).toBe("stopped");
  await expectAlive(d);
}, 20_000);

test("no output is lost: every byte a program wrote reads back through session.output and events", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const expected = await catOfRandom(d, c, "cat", 5_000_000);
  // A subscriber replaying from offset 0 sees the same bytes, in order, with no gaps, whether they
  // still sit in the ring or only in the log by the time it catches up.
  const sub = await d.client();
  const events: Buffer[] = [];
  let eventTo = 0;
  const exited = Promise.withResolvers<void>();
  sub.onEvent((e) => {
    if (e.type === "output") {
      expect(e.data.from).toBe(eventTo);
      eventTo = e.data.to as number;
      events.push(Buffer.from(e.data.base64 as string, "base64"));
    }
    if (e.type === "exit") exited.resolve();
  });
  expect((await sub.call("session.subscribe", { session: "cat", events: ["output", "exit"], replay: 0 })).from).toBe(0);
  expect(await c.call("session.wait", { session: "cat", exit: true, timeout_ms: 30_000 })).toMatchObject({
    outcome: "exited",
    exit_code: 0,
  });
  await exited.promise;

  const log = await readAllOutput(c, "cat", 1024 * 1024);
  expect(log.length).toBe(expected.length);
  expect(sha256(log)).toBe(sha256(expected));
  expect((await c.call("session.info", { session: "cat" })).bytes_out).toBe(log.length);
  const streamed = Buffer.concat(events);
  expect(streamed.length).toBe(expected.length);
  expect(sha256(streamed)).toBe(sha256(expected));
  await expectAlive(d);
}, 30_000);

test("a subscriber that stops reading stalls neither the session nor other clients, and loses nothing", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "flood", command: ["yes", "x".repeat(200)], cols: 200 });
  // Two subscribers stop reading: one goes away while its queue is full, one resumes at the end.
  await using gone = await Lines.open(d.socket);
  await using slow = await Lines.open(d.socket);
  const sub = { session: "flood", events: ["output", "exit"] };
  expect((await gone.call(1, "session.subscribe", sub)).result.subscribed).toEqual(["output", "exit"]);
  const from: number = (await slow.call(1, "session.subscribe", sub)).result.from;
  gone.socket.pause();
  slow.socket.pause();
  // Well past what the socket buffers and the connection's own queue hold, the session still runs
  // and other requests are answered.
  const start = (await c.call("session.info", { session: "flood" })).bytes_out;
  let bytesOut = start;
  let pings = 0;
  while (bytesOut < start + 12 * 1024 * 1024) {
    expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
    pings++;
    bytesOut = (await c.call("session.info", { session: "flood" })).bytes_out;
  }
  expect(pings).toBeGreaterThan(0);
  expect(slow.received).toBeLessThan(bytesOut - from);
  gone.destroy();
  await gone.closed;
  const stopped = await c.call("session.stop", { session: "flood", grace_ms: 2000 });
  expect(stopped.state).toBe("stopped");

  // Once it reads again, the slow subscriber gets every byte, in order, then the exit.
  slow.socket.resume();
  await slow.next((m) => m.method === "event" && m.params.type === "exit");
  let at = from;
  for (const m of slow.pending) {
    expect(m).toMatchObject({ method: "event", params: { type: "output", data: { from: at } } });
    expect(Buffer.from(m.params.data.base64, "base64").length).toBe(m.params.data.to - at);
    at = m.params.data.to;
  }
  expect(at).toBe(stopped.bytes_out);
  await expectAlive(d);
}, 30_000);

test("a client that pipelines requests for large replies and never reads only holds up itself", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const expected = await catOfRandom(d, c, "big", 2_000_000); // each reply: 2.7 MB of output as base64
  expect(await c.call("session.wait", { session: "big", exit: true, timeout_ms: 30_000 })).toMatchObject({ outcome: "exited" });

  // 30 replies of 3.6 MB each would be 109 MB held for a client that reads none of them.
  await using stuck = await Lines.open(d.socket);
  stuck.socket.pause();
  const output = { session: "big", from: 0, max_bytes: 8 * 1024 * 1024 };
  let lines = "";
  for (let id = 1; id <= 30; id++) lines += JSON.stringify({ jsonrpc: "2.0", id, method: "session.output", params: output }) + "\n";
  lines += JSON.stringify({ jsonrpc: "2.0", id: 31, method: "session.create", params: { name: "late", command: ["cat"] } }) + "\n";
  // bytes_in counts what the daemon read from everyone: here the lines and the probe's own polls.
  await using probe = await Lines.open(d.socket);
  const poll = '{"jsonrpc":"2.0","id":0,"method":"system.stats"}\n';
  const bytesIn = async (): Promise<number> => (await probe.call(0, "system.stats")).result.bytes_in;
  expect(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "system.stats" }) + "\n").toBe(poll);
  const before = await bytesIn();
  stuck.write(lines);
  // Once the daemon has read all of it (and a ping went round after), it has run what it will.
  let polls = 0;
  while ((await bytesIn()) < before + lines.length + ++polls * poll.length);
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
  // The requests behind the unread replies wait: the last one has not run.
  expect((await c.call("session.list")).sessions.map((s) => s.name)).toEqual(["big"]);

  // Reading again releases them, in order, with nothing lost.
  stuck.socket.resume();
  for (let id = 1; id <= 30; id++) {
    const reply = await stuck.reply(id);
    expect(sha256(Buffer.from(reply.result.base64, "base64"))).toBe(sha256(expected));
  }
  expect((await stuck.reply(31)).result.name).toBe("late");
  expect((await c.call("session.list")).sessions.map((s) => s.name).sort()).toEqual(["big", "late"]);
  await expectAlive(d);
}, 30_000);

test("a batch whose replies grow past 16 MiB has the rest refused unrun with PAYLOAD_TOO_LARGE", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const expected = await catOfRandom(d, c, "big", 2_000_000);
  expect(await c.call("session.wait", { session: "big", exit: true, timeout_ms: 30_000 })).toMatchObject({ outcome: "exited" });
  await using r = await Lines.open(d.socket);
  const output = { jsonrpc: "2.0", method: "session.output", params: { session: "big", from: 0, max_bytes: 8 * 1024 * 1024 } };
  const batch: unknown[] = [];
  for (let id = 1; id <= 10; id++) batch.push({ ...output, id });
  batch.push({ jsonrpc: "2.0", method: "session.create", params: { name: "refused", command: ["cat"] } }); // a notification
  batch.push({ jsonrpc: "2.0", id: 11, method: "system.ping" });
  r.write(JSON.stringify(batch) + "\n");
  const replies: Msg[] = await r.next();
  // In order: results while the batch's reply is under the limit, then refusals (none for the notification).
  expect(replies.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  const ran = replies.filter((m) => m.result !== undefined);
  expect(ran.length).toBeGreaterThan(0);
  expect(ran.length).toBeLessThan(10);
  expect(ran.length * ran[0].result.base64.length).toBeLessThan(16 * 1024 * 1024 + ran[0].result.base64.length * 2);
  for (const m of ran) expect(sha256(Buffer.from(m.result.base64, "base64"))).toBe(sha256(expected));
  for (const m of replies.slice(ran.length)) expect(m).toEqual({ ...rpcError(-32005, "PAYLOAD_TOO_LARGE"), id: m.id });
  expect((await c.call("session.list")).sessions.map((s) => s.name)).toEqual(["big"]);
  // The connection goes on as before.
  expect((await r.call(12, "system.ping")).result.pid).toBe(d.proc.pid);
  await expectAlive(d);
}, 30_000);

test("application errors carry their names: not found, name taken, not running, spawn failed, bad regex", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const nf = await callError(c.call("session.info", { session: "ghost" }));
  expect([nf.name, nf.details.session]).toEqual(["SESSION_NOT_FOUND", "ghost"]);
  const errors = await Promise.all(
    [
      c.call("session.input", { session: "ghost", text: "x" }),
      c.call("session.wait", { session: "ghost", text: "x" }),
      c.call("session.output", { session: "ghost" }),
      c.call("session.stop", { session: "ghost" }),
      c.call("session.subscribe", { session: "ghost" }),
    ].map(callError),
  );
  expect(errors.map((e) => e.name)).toEqual(Array(5).fill("SESSION_NOT_FOUND"));

  await c.call("session.create", { name: "dup", command: ["cat"] });
  const taken = await callError(c.call("session.create", { name: "dup", command: ["cat"] }));
  expect([taken.name, taken.details.name]).toEqual(["NAME_TAKEN", "dup"]);

  await c.call("session.create", { name: "done", command: ["true"] });
  expect(await c.call("session.wait", { session: "done", exit: true })).toMatchObject({ outcome: "exited", exit_code: 0 });
  expect((await callError(c.call("session.input", { session: "done", text: "x" }))).name).toBe("SESSION_NOT_RUNNING");
  expect((await callError(c.call("session.signal", { session: "done", signal: "INT" }))).name).toBe("SESSION_NOT_RUNNING");

  for (const params of [
    { command: ["/nonexistent/program"] },
    { command: ["no-such-program-anywhere"] },
    { command: ["true"], cwd: "/nonexistent/dir" },
  ]) {
    expect((await callError(c.call("session.create", params))).name).toBe("SPAWN_FAILED");
  }
  // A failed spawn leaves nothing behind.
  expect((await c.call("session.list")).sessions.map((s) => s.name).sort()).toEqual(["done", "dup"]);

  const re = await callError(c.call("session.wait", { session: "dup", regex: "([unclosed" }));
  expect(re.name).toBe("INVALID_PARAMS");
  expect(re.message).toContain("regex");
  // Values only a live session can judge are INVALID_PARAMS too, naming what was wrong.
  const key = await callError(c.call("session.input", { session: "dup", keys: ["Enter", "NotAKey"] }));
  expect([key.name, key.message]).toEqual(["INVALID_PARAMS", expect.stringContaining("NotAKey")]);
  const sig = await callError(c.call("session.signal", { session: "dup", signal: "SIGNOPE" }));
  expect([sig.name, sig.message]).toEqual(["INVALID_PARAMS", expect.stringContaining("SIGNOPE")]);
  // A NUL byte cannot reach exec: refused, not crashed on.
  expect((await callError(c.call("session.create", { command: ["ca\u0000t"] }))).name).toBe("SPAWN_FAILED");
  expect((await callError(c.call("session.create", { command: ["cat"], env: { A: "x\u0000y" } }))).name).toBe("SPAWN_FAILED");

  // On the wire, application errors use the server-error range with the name in data.code.
  await using r = await Lines.open(d.socket);
  expect(await r.call(1, "session.input", { session: "done", text: "x" })).toEqual({ ...rpcError(-32002, "SESSION_NOT_RUNNING"), id: 1 });
  expect(await r.call(2, "session.create", { name: "dup" })).toEqual({ ...rpcError(-32003, "NAME_TAKEN"), id: 2 });
  expect(await r.call(3, "session.create", { command: ["/nonexistent/program"] })).toEqual({ ...rpcError(-32006, "SPAWN_FAILED"), id: 3 });
  await expectAlive(d);
});

test("output with huge repeat counts (a line that would hang xterm.js) does not stall the daemon", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // Insert lines, delete characters, scroll up and repeat, each with the largest count there is.
  const counts = "\\e[2147483647L\\e[2147483647P\\e[2147483647S\\e[2147483647X\\e[?1049hx\\e[2147483647b\\e[?1049l";
  await c.call("session.create", { name: "huge", command: ["bash", "-c", `printf '${counts}'; echo survived; sleep 30`] });
  expect((await c.call("session.wait", { session: "huge", text: "survived" })).outcome).toBe("matched");
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
});

test("a catastrophic regex in session.wait cannot freeze the daemon (RE2 matching, linear time)", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "a", command: ["bash", "-c", `printf '${"a".repeat(78)}!\\n'; sleep 30`] });
  await c.call("session.wait", { session: "a", text: "!" });
  // With a backtracking engine this pattern on that line runs for longer than the universe.
  const w = c.call("session.wait", { session: "a", regex: "(a+)+$", timeout_ms: 300 });
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
  expect((await w).outcome).toBe("timeout");
  expect((await c.call("session.wait", { session: "a", regex: "^(a+)+!$" })).match).toMatchObject({ row: 0, col: 0 });
  await expect(c.call("session.wait", { session: "a", regex: "(a)\\1" })).rejects.toMatchObject({ name: "INVALID_PARAMS" });
});

test("a query in the last output before the PTY closes does not keep the session from ending", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // A colourful burst the screen is still parsing when the child exits, ending in queries.
  const script =
    "for i in $(seq 1 20000); do printf '\\e[3%dmline %d\\e[0m\\n' $((i % 8)) $i; done; printf '\\e[>q\\e[?u\\e]11;?\\a'; exit 3";
  await c.call("session.create", { name: "q", command: ["bash", "-c", script] });
  const w = await c.call("session.wait", { session: "q", exit: true, timeout_ms: 20_000 });
  expect(w).toMatchObject({ outcome: "exited", exit_code: 3 });
  expect(w.screen.lines.join("\n")).toContain("line 20000");
});

test("a per-session socket path that names an existing file is refused and the file left alone", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const precious = join(d.dir, "precious.txt");
  writeFileSync(precious, "keep me");
  await expect(c.call("session.create", { name: "s", command: ["cat"], socket: precious })).rejects.toMatchObject({
    name: "INVALID_PARAMS",
  });
  expect(readFileSync(precious, "utf8")).toBe("keep me");
  expect((await c.call("session.list")).sessions).toEqual([]);
});

test("failed creates leave no file descriptors or files behind", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const fds = () => readdirSync(`/proc/${d.proc.pid}/fd`).length;
  // What a daemon opens with its first session (the database, a pty worker and its pipe) is open
  // before counting. A stop answers once the session has ended entirely, its screen saved and its
  // journal closed; a wait for the exit can answer between the two (the state changes first).
  await c.call("session.create", { name: "warm", command: ["cat"] });
  await c.call("session.stop", { session: "warm" });
  const before = fds();
  // A recording under a regular file cannot be made (its folder is made when missing).
  const file = join(d.dir, "a-file");
  writeFileSync(file, "");
  for (let i = 0; i < 10; i++) {
    await expect(c.call("session.create", { command: ["cat"], record: join(file, "x.cast") })).rejects.toMatchObject({
      name: "INVALID_PARAMS",
    });
  }
  expect(fds()).toBe(before);
  const warm = (await c.call("session.info", { session: "warm" })).id;
  expect(readdirSync(join(d.stateDir, "logs")).filter((f) => !f.startsWith(warm))).toEqual([]);
});

test("an ended session's exit reaches a subscriber that asks for it after subscribing to something else", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "e", command: ["bash", "-c", "echo bye; exit 5"] });
  await c.call("session.wait", { session: "e", exit: true });
  const events: string[] = [];
  const { promise: exited, resolve } = Promise.withResolvers<void>();
  c.onEvent((e) => {
    events.push(e.type);
    if (e.type === "exit") resolve();
  });
  await c.call("session.subscribe", { session: "e", events: ["title"] });
  await c.call("session.subscribe", { session: "e", events: ["output", "exit"], replay: 0 });
  await exited;
  expect(events).toEqual(["output", "exit"]);
});

test("a session's own socket reaches that session and nothing else", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const own = join(d.dir, "own", "s.sock");
  await c.call("session.create", { name: "mine", command: ["cat"], socket: own });
  await c.call("session.create", { name: "other", command: ["cat"] });
  const o = await connect(own);
  try {
    expect((await o.call("session.info", {} as never)).name).toBe("mine");
    expect((await o.call("session.info", { session: "mine" })).name).toBe("mine");
    expect((await o.call("system.ping")).pid).toBe(d.proc.pid);
    for (const [method, params] of [
      ["session.info", { session: "other" }],
      ["session.input", { session: "other", text: "x" }],
      ["session.list", {}],
      ["session.create", { command: ["true"] }],
      ["system.shutdown", {}],
    ] as const) {
      await expect(o.call(method as never, params as never)).rejects.toMatchObject({ name: "UNAUTHORIZED" });
    }
  } finally {
    o.close();
  }
  expect((await c.call("session.list")).sessions.map((s) => s.name).sort()).toEqual(["mine", "other"]);
});

test("a second daemon on another socket but the same state dir refuses to start, with its own exit code (6)", async () => {
  await using d = await TestDaemon.start();
  const second = await d.cli(["daemon", "--socket", join(d.dir, "second.sock"), "--state-dir", d.stateDir]);
  expect(second.code).toBe(6);
  expect(second.stderr).toContain(`another termd daemon (pid ${d.proc.pid}) uses the state dir`);
  expect((await (await d.client()).call("system.ping")).pid).toBe(d.proc.pid);
});

test("an error quotes a short prefix of what it names: a 9 MiB session name, key or signal gets a short reply", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const huge = "n".repeat(9 * 1024 * 1024);
  const notFound = await c.call("session.info", { session: huge }).catch((e) => e);
  expect(notFound).toMatchObject({ name: "SESSION_NOT_FOUND" });
  expect(notFound.message.length).toBeLessThan(200);
  expect(notFound.message).toContain(`(${huge.length} characters)`);
  expect(String(notFound.details.session).length).toBeLessThanOrEqual(65);
  const s = await c.call("session.create", { command: ["cat"] });
  const badKey = await c.call("session.input", { session: s.id, keys: ["K".repeat(1_000_000)] }).catch((e) => e);
  expect(badKey).toMatchObject({ name: "INVALID_PARAMS" });
  expect(JSON.stringify(badKey.details).length + badKey.message.length).toBeLessThan(500);
  const badSignal = await c.call("session.signal", { session: s.id, signal: "S".repeat(1_000_000) }).catch((e) => e);
  expect(badSignal).toMatchObject({ name: "INVALID_PARAMS" });
  expect(badSignal.message.length).toBeLessThan(200);
  const taken = await c
    .call("session.create", { name: "short", command: ["cat"] })
    .then(() => c.call("session.create", { name: "short", command: ["cat"] }))
    .catch((e) => e);
  expect(taken).toMatchObject({ name: "NAME_TAKEN", details: { name: "short" } });
});

test("a socket the daemon cannot listen on: it exits at once, non-zero, saying why, and an autostarting CLI prints that", async () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-listen-"));
  try {
    const daemon = async (socket: string) => {
      const p = Bun.spawn([...SOURCE_BIN, "daemon", "--socket", socket, "--state-dir", join(dir, "state")], {
        stdout: "pipe",
        stderr: "pipe",
      });
      const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
      return { code, err };
    };
    const long = join(dir, "l".repeat(120), "s.sock");
    expect(await daemon(long)).toMatchObject({ code: 1, err: expect.stringContaining("holds at most 107") });
    symlinkSync(join(dir, "missing"), join(dir, "dangling"));
    expect(await daemon(join(dir, "dangling", "s.sock"))).toMatchObject({
      code: 1,
      err: expect.stringContaining("symbolic link to nothing"),
    });
    // termd ls autostarts a daemon on that socket, which gives up: the CLI says why.
    const ls = Bun.spawn([...SOURCE_BIN, "ls"], {
      env: { ...process.env, TERMD_SOCKET: join(dir, "dangling", "s.sock"), TERMD_STATE_DIR: join(dir, "auto") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [lsErr, lsCode] = await Promise.all([new Response(ls.stderr).text(), ls.exited]);
    expect(lsCode).not.toBe(0);
    expect(lsErr).toContain("symbolic link to nothing");
    // The socket path itself a link to nothing: Bun cannot listen through it, so the daemon exits
    // (it used to say "Failed to listen" and run on, listening nowhere).
    symlinkSync(join(dir, "nowhere.sock"), join(dir, "link.sock"));
    expect(await daemon(join(dir, "link.sock"))).toMatchObject({
      code: 1,
      err: expect.stringContaining(`socket path ${join(dir, "link.sock")} is a symbolic link to nothing`),
    });
    const lsLink = Bun.spawn([...SOURCE_BIN, "ls"], {
      env: { ...process.env, TERMD_SOCKET: join(dir, "link.sock"), TERMD_STATE_DIR: join(dir, "auto") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [lsLinkErr, lsLinkCode] = await Promise.all([new Response(lsLink.stderr).text(), lsLink.exited]);
    expect({ code: lsLinkCode, err: lsLinkErr }).toMatchObject({ code: 1, err: expect.stringContaining("is a symbolic link to nothing") });
    // A client told to use a path too long for a socket says so instead of "Failed to connect".
    const tooLong = Bun.spawn([...SOURCE_BIN, "ls"], { env: { ...process.env, TERMD_SOCKET: long }, stdout: "pipe", stderr: "pipe" });
    expect(await new Response(tooLong.stderr).text()).toContain("holds at most 107");
    await tooLong.exited;
    // A session's own socket with such a path is a clear INVALID_PARAMS, and no program is left.
    await using d = await TestDaemon.start();
    const c = await d.client();
    await expect(c.call("session.create", { command: ["cat"], socket: long })).rejects.toMatchObject({
      name: "INVALID_PARAMS",
      message: expect.stringContaining("holds at most 107"),
    });
    expect((await c.call("session.list")).sessions).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a socket folder the daemon may not write: it exits at once with code 1, saying so", async () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-unwritable-"));
  const folder = join(dir, "ro");
  const state = join(dir, "state");
  mkdirSync(folder);
  mkdirSync(state);
  try {
    let argv = SOURCE_BIN;
    if (process.getuid?.() === 0) {
      // root may write anywhere: the daemon runs as nobody, for whom root's 0755 folder is read-only.
      chmodSync(dir, 0o755);
      chmodSync(state, 0o777);
      argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...SOURCE_BIN];
    } else {
      chmodSync(folder, 0o500);
    }
    const p = Bun.spawn([...argv, "daemon", "--socket", join(folder, "s.sock"), "--state-dir", state], {
      env: { ...process.env, HOME: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect({ code, err: err.trim() }).toEqual({
      code: 1,
      err: `termd daemon: cannot create the socket in ${folder}: the folder is not writable by this user`,
    });
    // Where even root cannot create a file, the reason is the daemon's, not "no daemon answers".
    const proc = Bun.spawn([...SOURCE_BIN, "daemon", "--socket", "/proc/termd-test.sock", "--state-dir", state], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [procErr, procCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect({ code: procCode, err: procErr }).toMatchObject({ code: 1, err: expect.stringContaining("termd daemon: cannot create") });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a screen's size is bounded in cells (MAX_SCREEN_CELLS), at create and at resize", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await expect(c.call("session.create", { command: ["cat"], rows: 1000, cols: 1000, scrollback: 24_000 })).rejects.toMatchObject({
    name: "INVALID_PARAMS",
    message: expect.stringContaining("10 million cells"),
  });
  const s = await c.call("session.create", { command: ["cat"], rows: 24, cols: 100, scrollback: 90_000 });
  await expect(c.call("session.resize", { session: s.id, rows: 50, cols: 1000 })).rejects.toMatchObject({
    name: "INVALID_PARAMS",
    message: expect.stringContaining("MAX_SCREEN_CELLS"),
  });
  expect((await c.call("session.resize", { session: s.id, rows: 50, cols: 110 })).size).toEqual({ rows: 50, cols: 110 });
  expect((await c.call("session.list")).sessions.length).toBe(1);
});

test("sessions per daemon are a named limit (--max-sessions): past it LIMIT_REACHED says how to free one", async () => {
  await using d = await TestDaemon.start({ args: ["--max-sessions", "2"] });
  const c = await d.client();
  const a = await c.call("session.create", { command: ["true"] });
  await c.call("session.create", { command: ["cat"] });
  await expect(c.call("session.create", { command: ["cat"] })).rejects.toMatchObject({
    name: "LIMIT_REACHED",
    details: { max_sessions: 2 },
    message: expect.stringContaining("termd rm"),
  });
  await c.call("session.wait", { session: a.id, exit: true });
  await c.call("session.remove", { session: a.id });
  expect((await c.call("session.create", { command: ["cat"] })).state).toBe("running");
});

test("errors say what to do: RE2 has no lookaround; a name an ended session holds is freed by termd rm", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", { name: "held", command: ["true"] });
  await expect(c.call("session.wait", { session: s.id, regex: "a(?=b)" })).rejects.toMatchObject({
    name: "INVALID_PARAMS",
    message: expect.stringContaining("RE2 has no lookaround"),
  });
  await c.call("session.wait", { session: s.id, exit: true });
  await expect(c.call("session.create", { name: "held", command: ["true"] })).rejects.toMatchObject({
    name: "NAME_TAKEN",
    message: expect.stringContaining("`termd rm held` (or `termd start --replace`) frees the name"),
  });
  await c.call("session.remove", { session: "held" });
  expect((await c.call("session.create", { name: "held", command: ["true"] })).name).toBe("held");
});

test("a log write that fails (a file-size limit here, a full disk alike) is reported, and paging the output skips the gap", async () => {
  // The daemon may write files of at most 1 MiB (dash counts ulimit -f in 512-byte blocks), and
  // ignores SIGXFSZ, so a write past it fails with EFBIG as a full disk's would with ENOSPC.
  await using d = await TestDaemon.start({ bin: ["sh", "-c", 'trap "" XFSZ; ulimit -f 2048; exec "$@"', "sh", ...SOURCE_BIN] });
  const c = await d.client();
  const s = await c.call("session.create", { command: ["sh", "-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 3000000"] });
  expect((await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 60_000 })).outcome).toBe("exited");
  const info = await c.call("session.info", { session: s.id });
  expect(info.bytes_out).toBeGreaterThan(3_000_000); // the terminal adds a CR to each line end
  expect(info.log_error).toBeString();
  // The daemon's log says so too, naming the session.
  await d.logged(`session ${s.name}: log write failed, logging stops: ${info.log_error}`);
  let from = 0;
  let got = 0;
  let gaps = 0;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(100);
    const page = await c.call("session.output", { session: s.id, from });
    if (page.gap) gaps++;
    got += Buffer.from(page.base64, "base64").length;
    expect(page.to).toBeGreaterThan(from);
    from = page.to;
    if (page.eof) break;
  }
  expect(from).toBe(info.bytes_out);
  expect(gaps).toBe(1);
  // What is still in memory (the ring's megabyte) and what the file got are readable.
  expect(got).toBeGreaterThanOrEqual(2 * 1024 * 1024 - 1);
  // The daemon goes on: a new session works.
  const e = await c.call("session.create", { command: ["sh", "-c", "echo fine"] });
  expect((await c.call("session.wait", { session: e.id, text: "fine" })).outcome).toBe("matched");
});

test("a full disk: session.create fails clearly and leaves no program running; session.remove still forgets; once space returns all works", async () => {
  // Files of at most 64 KiB: the session records' WAL soon cannot grow, as on a full disk. Only
  // the soft limit, so that prlimit can lift it again as space coming back would.
  await using d = await TestDaemon.start({ bin: ["sh", "-c", 'trap "" XFSZ; ulimit -S -f 128; exec "$@"', "sh", ...SOURCE_BIN] });
  const c = await d.client();
  const marker = String(40_000 + Math.floor(Math.random() * 9_999));
  const sleepers = () =>
    readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\0${marker}\0`;
        } catch {
          return false;
        }
      }).length;
  let failure: RpcError | null = null;
  for (let i = 0; i < 300 && !failure; i++) {
    await c.call("session.create", { command: ["sleep", marker], env: { PADDING: "x".repeat(4000) } }).catch((e) => (failure = e));
  }
  expect(failure).toMatchObject({ name: "SPAWN_FAILED", message: expect.stringContaining("records") });
  const { sessions } = await c.call("session.list");
  // Counted once the processes have settled: the last session's program may still be the shell
  // that execs `sleep` (one fewer), and the refused one's may not have run to its SIGKILL yet.
  for (const until = Date.now() + 10_000; sleepers() !== sessions.length && Date.now() < until; ) await Bun.sleep(20);
  expect(sleepers()).toBe(sessions.length);
  await c.call("session.remove", { session: sessions[0]!.id, force: true });
  expect((await c.call("session.list")).sessions.length).toBe(sessions.length - 1);
  expect((await c.call("system.ping")).pid).toBeGreaterThan(0);
  // Space returns: a session starts, runs and is recorded, so a restarted daemon lists it.
  const lift = Bun.spawn(["prlimit", `--pid=${d.proc.pid}`, "--fsize=unlimited:"], { stderr: "pipe" });
  expect({ code: await lift.exited, err: await new Response(lift.stderr).text() }).toEqual({ code: 0, err: "" });
  const back = await c.call("session.create", { command: ["sh", "-c", "echo space-is-back"], env: { PADDING: "x".repeat(4000) } });
  expect((await c.call("session.wait", { session: back.id, text: "space-is-back" })).outcome).toBe("matched");
  expect((await c.call("session.wait", { session: back.id, exit: true })).outcome).toBe("exited");
  expect((await d.cli(["daemon", "stop", "--grace", "200"])).code).toBe(0);
  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const listed = (await (await again.client()).call("session.list")).sessions;
  expect(listed.find((x) => x.id === back.id)).toMatchObject({ state: "exited", exit_code: 0 });
  expect(listed.length).toBe(sessions.length);
});

test("exec.run's output files are kept near the reply's cap while an endless writer runs", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "termd-exec-cap-"));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  let watching: Timer | undefined;
  try {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
    let biggest = 0;
    watching = setInterval(() => {
      for (const dir of readdirSync(tmp).filter((f) => f.startsWith("termd-exec-"))) {
        try {
          biggest = Math.max(biggest, statSync(join(tmp, dir, "o")).size);
        } catch {}
      }
    }, 10);
    const r = await c.call("exec.run", { session: s.id, command: "yes 0123456789", timeout_ms: 2000 });
    clearInterval(watching);
    expect(r).toMatchObject({ timed_out: true, truncated: true });
    expect(r.output.length).toBe(4 * 1024 * 1024);
    // Without the cap, `yes` writes gigabytes in two seconds.
    expect(biggest).toBeLessThan(256 * 1024 * 1024);
    expect(biggest).toBeGreaterThan(0);
  } finally {
    // A failed call must not leave the watcher reading a folder that is about to go.
    clearInterval(watching);
    // Assigning undefined would leave the string "undefined" for every later test.
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(tmp, { recursive: true, force: true });
  }
});
