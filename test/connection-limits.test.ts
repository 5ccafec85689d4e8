// Named limits on what clients can make the daemon hold or write: connections at once
// (--max-connections, over the socket and HTTP alike), and the lines their bad input puts in the
// daemon's log (rate limited, so no client fills the disk through it).
import { expect, test } from "bun:test";
import { connect as netConnect } from "node:net";
import { TestDaemon } from "./harness.ts";
import { Lines } from "./lines.ts";
import { startHttpDaemon } from "./http/http-daemon.ts";

/** Connects to `path` and collects what the daemon writes until it closes the connection. */
function refusedLine(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = netConnect(path);
    let got = "";
    s.setEncoding("utf8");
    s.on("data", (c: string) => (got += c));
    s.on("error", reject);
    s.on("close", () => resolve(got));
  });
}

test("--max-connections: one more connection is told LIMIT_REACHED and closed, on the socket and over HTTP; a freed place is taken again", async () => {
  const h = await startHttpDaemon({ args: ["--max-connections", "2"] });
  const d = h.daemon;
  try {
    const a = await d.client();
    // A raw connection: its close can be seen to be the daemon's too (below).
    const b = await Lines.open(d.socket);
    await Promise.all([a.call("system.ping"), b.call(1, "system.ping")]);
    const reply = JSON.parse(await refusedLine(d.socket));
    expect(reply).toMatchObject({ id: null, error: { data: { code: "LIMIT_REACHED", max_connections: 2 } } });
    expect(reply.error.message).toContain("--max-connections 2");
    // The client library (and so the CLI) fails with the reason.
    const c = await d.client();
    await expect(c.call("system.ping")).rejects.toThrow("--max-connections 2");
    const cli = await d.cli(["ls"]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain("--max-connections 2");
    const http = await h.post({ jsonrpc: "2.0", id: 1, method: "system.ping" });
    expect(http.status).toBe(503);
    expect(await http.json()).toMatchObject({ error: { code: "LIMIT_REACHED", message: expect.stringContaining("--max-connections") } });
    // The two served are unaffected.
    expect((await a.call("system.ping")).pid).toBe(d.proc.pid);
    // Once one leaves, a newcomer gets in. The daemon answers a half-close by ending its side and
    // forgets the connection in the same step (line-channel.ts's flush), so once b sees the
    // daemon's close the place is free.
    b.close();
    await b.closed;
    const r = await h.post({ jsonrpc: "2.0", id: 2, method: "system.ping" });
    expect(r.status).toBe(200);
  } finally {
    await d[Symbol.asyncDispose]();
  }
});

test("log lines a client's input causes are rate limited: 100 sessions whose log_path fails at once log about 20 lines and a count", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // /dev/full takes the open and fails every write, as a full disk does: each session's copy
  // stops with a line in the daemon's log.
  const params = { command: ["sh", "-c", "echo out"], log_path: "/dev/full", log_append: true };
  await Promise.all(Array.from({ length: 100 }, () => c.call("session.create", params)));
  const written = () => d.log.split("\n").filter((l) => l.includes("log_path write failed")).length;
  const leftOut = () => [...d.log.matchAll(/(\d+) more log lines caused by clients were left out/g)].reduce((n, m) => n + Number(m[1]), 0);
  // Every failure is accounted for, written or counted, once the count has been logged.
  const accounted = () => written() + leftOut() >= 100;
  await d.logged(accounted, 20_000).catch(() => {
    throw new Error(`not all 100 failures accounted for: ${written()} written, ${leftOut()} counted`);
  });
  expect(written() + leftOut()).toBe(100);
  expect(written()).toBeGreaterThanOrEqual(20);
  expect(leftOut()).toBeGreaterThan(40);
  // The daemon goes on serving.
  expect((await c.call("system.ping")).pid).toBe(d.proc.pid);
}, 60_000);
