// The last lines a client is written before the daemon's image goes (an exec for `termd daemon
// restart`, an exit for a shutdown) reach it whole even when it is far behind: the daemon waits,
// within its --farewell, for them to be handed to the socket (src/daemon/last-lines.ts). The tests
// give it 10 minutes: a client reading 12 MB on a loaded machine is not held to a time.
import { expect, test } from "bun:test";
import { type Client, connect } from "../src/client/index.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";
import { Lines } from "./lines.ts";
import { startHttpDaemon } from "./http/http-daemon.ts";

/** A daemon's flags to wait as long as it takes for its clients to read their last lines (a test's own timeout bounds it). */
const PATIENT = ["--farewell", "600000"];
const patient = () => TestDaemon.start({ args: PATIENT });

/** 3 MB of output: each session.output page of it is a 4 MB reply (base64), so three are past HIGH_WATER. */
const PAGE = 3_000_000;

/** A raw connection that stops reading and asks for three big pages: their 12 MB of replies wait in the daemon. */
async function behind(d: TestDaemon): Promise<Lines> {
  const c = await d.client();
  await c.call("session.create", { name: "paged", command: ["sh", "-c", `head -c ${PAGE} /dev/zero | tr '\\0' x`] });
  await c.call("session.wait", { session: "paged", exit: true, timeout_ms: 30_000 });
  const slow = await Lines.open(d.socket);
  slow.socket.pause();
  const before = (await c.call("system.stats")).requests;
  for (let id = 1; id <= 3; id++) slow.request(id, "session.output", { session: "paged", from: 0, max_bytes: PAGE });
  // Its requests have run once the daemon counted them (each stats call counts itself too).
  for (let k = 1; (await c.call("system.stats")).requests - before < 3 + k; k++);
  return slow;
}

async function readsAllPages(slow: Lines): Promise<void> {
  for (let id = 1; id <= 3; id++) expect((await slow.reply(id)).result).toMatchObject({ from: 0, to: PAGE });
}

test("a client 12 MB behind when the daemon is replaced reads every reply it was owed, then DAEMON_REPLACED last", async () => {
  await using d = await patient();
  await using slow = await behind(d);
  // Regression: the exec came as soon as the farewell was queued, and closed the 12 MB and the
  // farewell behind them with the socket: the client saw its connection cut mid-reply, not why.
  const restart = d.cli(["daemon", "restart"]);
  await d.logged("is being replaced by");
  slow.socket.resume();
  await readsAllPages(slow);
  expect((await slow.next()).error.data.code).toBe("DAEMON_REPLACED");
  expect((await restart).code).toBe(0);
}, 60_000);

test("a client 12 MB behind when the daemon shuts down reads every reply it was owed before the close", async () => {
  const d = await patient();
  await using _ = d;
  await using slow = await behind(d);
  // Regression: the process exited once the connections were told to end, with 12 MB still queued.
  const c = await d.client();
  expect((await c.call("system.shutdown", { grace_ms: 0 })).stopping).toBe(0);
  slow.socket.resume();
  await readsAllPages(slow);
  await slow.closed;
  expect(await d.proc.exited).toBe(0);
}, 60_000);

test("a client that connects while the daemon says its farewell is answered DAEMON_REPLACED to its first line, and its request does not run, over HTTP too", async () => {
  const http = await startHttpDaemon({ args: PATIENT });
  await using d = http.daemon;
  // Holds the farewell out until it reads.
  await using slow = await behind(d);
  const restart = d.cli(["daemon", "restart"]);
  await d.logged("is being replaced by");
  // Regression: the listener took it in as any client, not told, and its session.create ran
  // during the handover.
  await using late = await Lines.open(d.socket);
  late.request(1, "session.create", { name: "late", command: ["sh", "-c", "exec sleep 100"] });
  const last = await late.next();
  // Its own id: the client knows this request did not run.
  expect(last).toMatchObject({ id: 1, error: { data: { code: "DAEMON_REPLACED" } } });
  const create = {
    jsonrpc: "2.0",
    id: 1,
    method: "session.create",
    params: { name: "late-http", command: ["sh", "-c", "exec sleep 100"] },
  };
  expect(await (await http.post(create)).json()).toMatchObject({ id: 1, error: { data: { code: "DAEMON_REPLACED" } } });
  slow.socket.resume();
  await readsAllPages(slow);
  expect((await restart).code).toBe(0);
  // Nothing after it: the exec closed the connection.
  await late.closed;
  await expect(late.next()).rejects.toThrow("connection closed");
  const c = await d.client();
  expect((await c.call("session.list")).sessions.map((s: { name: string }) => s.name)).toEqual(["paged"]);
}, 60_000);

test("termd daemon refuses a --farewell over 10 minutes, which a timer would cut to no wait at all", async () => {
  // Regression: 2^31 ms overflowed setTimeout, which fired at once: no client was waited for.
  const p = Bun.spawn([...SOURCE_BIN, "daemon", "--socket", "/nonexistent/termd.sock", "--farewell", String(2 ** 31)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await p.exited).toBe(2);
  expect(await new Response(p.stderr).text()).toContain("--farewell is a whole number of ms from 0 to 600000");
});

/**
 * Starts `termd daemon restart` and, while the daemon says its farewell (`slow` holds it open),
 * makes `call` on a client connected then; once the call waits for the next image, lets the
 * restart go on. What the call gave.
 */
async function callDuringRestart<T>(d: TestDaemon, slow: Lines, open: () => Promise<Client>, call: (c: Client) => Promise<T>): Promise<T> {
  const restart = d.cli(["daemon", "restart"]);
  await d.logged("is being replaced by");
  using late = await open();
  // Regression: it rejected with DAEMON_REPLACED, and a command line run meanwhile failed with it.
  const made = call(late);
  // Refused (its connection's first line, answered with the farewell): waiting for the next image.
  while (late.retrying === 0) await Bun.sleep(1);
  slow.socket.resume();
  await readsAllPages(slow);
  const result = await made;
  expect((await restart).code).toBe(0);
  return result;
}

test("a termd/client call the daemon refuses while it says its farewell is sent again once the next image serves, and runs there once", async () => {
  await using d = await patient();
  await using slow = await behind(d);
  const c = await d.client();
  const before = await c.call("system.ping");
  const create = { name: "late", command: ["sh", "-c", "exec sleep 100"] };
  const created = await callDuringRestart(
    d,
    slow,
    () => d.client(),
    (late) => late.call("session.create", create),
  );
  expect(created.name).toBe("late");
  const c2 = await d.client();
  const after = await c2.call("system.ping");
  expect(after.pid).toBe(before.pid);
  expect(after.started_at).not.toBe(before.started_at);
  const names = (await c2.call("session.list")).sessions.map((s: { name: string }) => s.name);
  expect(names.sort()).toEqual(["late", "paged"]);
}, 60_000);

test("so is one over a remote daemon's WebSocket", async () => {
  const http = await startHttpDaemon({ args: PATIENT });
  await using d = http.daemon;
  await using slow = await behind(d);
  const open = () => connect(http.url, { token: http.token });
  const listed = await callDuringRestart(d, slow, open, (late) => late.call("session.list"));
  expect(listed.sessions.map((s: { name: string }) => s.name)).toEqual(["paged"]);
}, 60_000);

test("a call under way when the daemon says its farewell is not sent again: it may have run", async () => {
  await using d = await patient();
  const c = await d.client();
  await c.call("session.create", { name: "s", command: ["sh", "-c", "exec sleep 100"] });
  const waiting = c.call("session.wait", { session: "s", text: "never shown", timeout_ms: 600_000 });
  const refused = waiting.then(
    () => null,
    (err: unknown) => err,
  );
  // Answered after the wait's line: the wait is under way.
  await c.call("system.ping");
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  expect(await refused).toMatchObject({ name: "DAEMON_REPLACED" });
  expect(c.retrying).toBe(0);
}, 60_000);
