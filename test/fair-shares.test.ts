// Fair shares (issue 33): a connection's backlog of requests takes turns with the others, a large
// input reaches its program whole, and a client that half-closes its socket gets every reply it
// asked for, then the close, in every line dialect.
import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { sharedDaemon } from "./harness.ts";
import { Lines, type Msg } from "./lines.ts";
import { startHttpDaemon } from "./http/http-daemon.ts";

const shared = sharedDaemon();

const rpc = (id: number, method: string, params?: unknown) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) })}\n`;

/** Writes `data`, shuts down the writing side, and resolves with every message read until the daemon closed. */
async function halfClose(socket: string, data: string): Promise<Msg[]> {
  const l = await Lines.open(socket);
  l.socket.end(data);
  await l.closed;
  return l.pending;
}

test("a connection's backlog takes turns: another connection's one request is answered before the backlog ends", async () => {
  // 3 MB of output: each session.output reply is 4 MB of base64.
  await shared.c.call("session.create", { name: "paged", command: ["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"] });
  await shared.c.call("session.wait", { session: "paged", exit: true, timeout_ms: 30_000 });
  await using busy = await Lines.open(shared.d.socket);
  // It does not read: 24 MB of replies stop its requests (MAX_UNREAD), and its pings pile up behind them.
  busy.socket.pause();
  const pings = 60_000;
  let lines = "";
  for (let id = 1; id <= 6; id++) lines += rpc(id, "session.output", { session: "paged", from: 0, max_bytes: 8 * 1024 * 1024 });
  for (let id = 7; id < 7 + pings; id++) lines += rpc(id, "system.ping");
  busy.write(lines);
  await using other = await Lines.open(shared.d.socket);
  await other.call(1, "system.ping");
  // It reads again: the daemon works through its backlog, and meanwhile the other connection asks once.
  busy.socket.resume();
  for (let id = 1; id <= 7; id++) await busy.reply(id);
  expect((await other.call(2, "system.ping")).result.pid).toBe(shared.d.proc.pid);
  const answered = busy.pending.length + 7;
  expect(answered).toBeLessThan(6 + pings);
  // The backlog is still answered whole, in order.
  for (let id = 8; id < 7 + pings; id++) expect((await busy.next()).id).toBe(id);
}, 60_000);

test("a batch takes turns too: another connection's requests run while a long batch is under way", async () => {
  await using busy = await Lines.open(shared.d.socket);
  await using other = await Lines.open(shared.d.socket);
  const start = (await other.call(1, "system.stats")).result.requests;
  const n = 50_000;
  busy.write(`${JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "system.ping" })))}\n`);
  let done = false;
  const batch = busy.next().then((replies) => {
    done = true;
    return replies;
  });
  // How many of the batch's requests had run when each of these was answered (each counts itself too).
  const ran: number[] = [];
  for (let k = 1; !done; k++) ran.push((await other.call(k + 1, "system.stats")).result.requests - start - k);
  expect(await batch).toHaveLength(n);
  expect(ran.some((r) => r > 0 && r < n)).toBe(true);
}, 60_000);

test("a WebSocket whose requests pile up past MAX_HELD is paused, then read again: every request answered, in order", async () => {
  const h = await startHttpDaemon();
  try {
    const ws = new WebSocket(`${h.url.replace(/^http/, "ws")}/ws`, { headers: h.auth } as unknown as string[]);
    await new Promise((resolve) => (ws.onopen = resolve));
    const n = 40_000;
    const ids: number[] = [];
    const all = new Promise((resolve) => {
      ws.onmessage = (m) => ids.push(JSON.parse(String(m.data)).id) === n + 1 && resolve(null);
    });
    // A 4 MiB line is parsed off the thread; the 2.4 MB of pings behind it wait for it, and past
    // MAX_HELD the WebSocket is not read until they are answered.
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "system.ping", params: { pad: "x".repeat(4 * 1024 * 1024) } }));
    for (let id = 1; id <= n; id++) ws.send(JSON.stringify({ jsonrpc: "2.0", id, method: "system.ping" }));
    await all;
    expect(ids).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
    ws.close();
  } finally {
    await h.daemon[Symbol.asyncDispose]();
  }
}, 60_000);

test("a large input reaches the program whole and in order", async () => {
  const size = 5 * 1024 * 1024;
  const data = randomBytes(size);
  const py = `import sys, hashlib; d = sys.stdin.buffer.read(${size}); print("got", len(d), hashlib.sha256(d).hexdigest())`;
  // Raw, without echo or the line discipline's special characters: every byte value reaches the program as it is.
  await shared.c.call("session.create", {
    name: "reader",
    command: ["sh", "-c", `stty raw -echo -iexten; echo ready; exec python3 -c '${py}'`],
  });
  await shared.c.call("session.wait", { session: "reader", text: "ready", timeout_ms: 10_000 });
  const sent = await shared.c.call("session.input", { session: "reader", base64: data.toString("base64"), timeout_ms: 60_000 });
  expect(sent.bytes).toBe(size);
  const digest = createHash("sha256").update(data).digest("hex");
  await shared.c.call("session.wait", { session: "reader", exit: true, timeout_ms: 30_000 });
  const out = Buffer.from((await shared.c.call("session.output", { session: "reader", from: 0 })).base64, "base64").toString();
  expect(out).toContain(`got ${size} ${digest}`);
}, 60_000);

describe("a client that half-closes gets every reply, then the close", () => {
  test("native: 20,000 pings", async () => {
    const replies = await halfClose(shared.d.socket, Array.from({ length: 20_000 }, (_, i) => rpc(i + 1, "system.ping")).join(""));
    expect(replies.map((m) => m.id)).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1));
  });

  test("native: a session.wait that is answered after the half-close, and a ping behind it", async () => {
    await shared.c.call("session.create", { name: "later", command: ["cat"] });
    const l = await Lines.open(shared.d.socket);
    l.socket.end(rpc(1, "session.wait", { session: "later", text: "at last", timeout_ms: 30_000 }) + rpc(2, "system.ping"));
    // The ping is answered while the wait goes on; the wait's answer comes once the text shows.
    expect((await l.reply(2)).result.pid).toBe(shared.d.proc.pid);
    await shared.c.call("session.input", { session: "later", text: "at last\n" });
    expect((await l.reply(1)).result.outcome).toBe("matched");
    await l.closed;
  });

  test("native: a 1 MiB line", async () => {
    const replies = await halfClose(shared.d.socket, rpc(1, "system.ping", { pad: "x".repeat(1024 * 1024) }));
    expect(replies).toHaveLength(1);
    expect(replies[0].result.pid).toBe(shared.d.proc.pid);
  });

  test("interminai: a WAIT answered after the half-close, and a 1 MiB line", async () => {
    const socket = `${shared.d.dir}/ia.sock`;
    await shared.c.call("session.create", { name: "ia", command: ["head", "-n", "1"], socket, socket_dialect: "interminai" });
    const l = await Lines.open(socket);
    l.socket.end('{"type":"WAIT"}\n');
    await shared.c.call("session.input", { session: "ia", text: "bye\n" });
    expect(await l.next()).toEqual({ status: "ok", data: { exit_code: 0 } });
    await l.closed;
    const big = await halfClose(socket, `{"type":"STATUS","pad":"${"x".repeat(1024 * 1024)}"}\n`);
    expect(big).toHaveLength(1);
    expect(big[0].status).toBe("ok");
  });

  test("TRL: an exec.run and a ping behind it, and a 1 MiB line", async () => {
    const l = await Lines.open(shared.d.socket);
    l.send({ id: "c", method: "session.create", params: { shell: "/bin/sh", working_dir: shared.d.dir } });
    const created = await l.next();
    expect(created.ok).toBe(true);
    const session_id = created.data.session_id;
    l.socket.end(
      `${JSON.stringify({ id: "r", method: "exec.run", params: { session_id, command: "echo ran" } })}\n${JSON.stringify({ id: "p", method: "system.ping" })}\n`,
    );
    await l.closed;
    const byId = new Map(l.pending.map((m) => [m.id, m]));
    expect(byId.get("r")).toMatchObject({ ok: true, data: { stdout: "ran\n" } });
    expect(byId.get("p")).toMatchObject({ ok: true });
    expect(l.pending).toHaveLength(2);
    const trl = await Lines.open(shared.d.socket);
    trl.send({ id: "first", method: "system.ping" });
    expect((await trl.next()).ok).toBe(true);
    trl.socket.end(`${JSON.stringify({ id: "big", method: "system.ping", params: { pad: "x".repeat(1024 * 1024) } })}\n`);
    await trl.closed;
    expect(trl.pending).toEqual([expect.objectContaining({ id: "big", ok: true })]);
  });
});
