// Big request lines are parsed off the daemon's thread (src/daemon/line-parser.ts): while one
// client's 10 MiB line is parsed, other clients are answered, and the big line's connection still
// runs its requests in the order it sent them.
import { expect, test } from "bun:test";
import { connect as netConnect, type Socket } from "node:net";
import { LineSplitter, MAX_LINE_BYTES } from "../src/protocol/framing.ts";
import { TestDaemon } from "./harness.ts";

type Reply = { id: unknown; result?: unknown; error?: { code: number; message: string } };

/** A raw connection: writes bytes as they are, resolves each reply by its id. */
async function raw(path: string): Promise<{ socket: Socket; reply(id: number): Promise<Reply>; order: unknown[]; replies: Reply[] }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = netConnect(path);
    s.once("error", reject);
    s.once("connect", () => resolve(s));
  });
  const splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  const order: unknown[] = [];
  const replies: Reply[] = [];
  const waiting = new Map<unknown, (r: Reply) => void>();
  const got = new Map<unknown, Reply>();
  socket.on("data", (chunk: Buffer) => {
    for (const f of splitter.push(chunk)) {
      if (!("line" in f)) continue;
      const r = JSON.parse(f.line) as Reply;
      order.push(r.id);
      replies.push(r);
      got.set(r.id, r);
      waiting.get(r.id)?.(r);
    }
  });
  const reply = (id: number) => new Promise<Reply>((resolve) => (got.has(id) ? resolve(got.get(id)!) : waiting.set(id, resolve)));
  return { socket, reply, order, replies };
}

test("a 10 MiB line from one client does not stop another client's replies; its connection keeps its order", async () => {
  await using d = await TestDaemon.start();
  const other = await d.client();
  const a = await raw(d.socket);
  // One string of escapes, as a big paste of terminal output would be: slow to parse for its size.
  const head = '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"pad":"';
  const unit = '\\u001b[1m\\n\\t\\"x';
  const line = head + unit.repeat(Math.floor((MAX_LINE_BYTES - head.length - 10) / unit.length)) + '"}}\n';
  expect(line.length).toBeLessThanOrEqual(MAX_LINE_BYTES);
  const sent = new Promise<void>((resolve) =>
    a.socket.write(line + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "system.ping" }) + "\n", () => resolve()),
  );
  // The other client pings on, one at a time, until the big line is answered.
  let bigAnswered = false;
  let answeredMeanwhile = 0;
  const big = a.reply(1).then((r) => ((bigAnswered = true), r));
  await sent;
  while (!bigAnswered) {
    await other.call("system.ping");
    if (!bigAnswered) answeredMeanwhile++;
  }
  const first = await big;
  // Extra params are refused or ignored; either way the line was read whole and answered.
  expect(first.result !== undefined || first.error?.code === -32602).toBe(true);
  expect((await a.reply(2)).result).toMatchObject({ pid: d.proc.pid });
  expect(a.order).toEqual([1, 2]);
  expect(answeredMeanwhile).toBeGreaterThanOrEqual(5);
  a.socket.destroy();
});

test("a big line that is not UTF-8 or not JSON gets the same errors as a short one", async () => {
  await using d = await TestDaemon.start();
  const a = await raw(d.socket);
  const pad = "x".repeat(1024 * 1024);
  a.socket.write(
    Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"p":"${pad}`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}\n'),
    ]),
  );
  a.socket.write(`{"jsonrpc":"2.0","id":2,"method":"system.ping","params":{"p":"${pad}"\n`);
  a.socket.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "system.ping" }) + "\n");
  expect((await a.reply(3)).result).toMatchObject({ pid: d.proc.pid });
  expect(a.order).toEqual([null, null, 3]);
  a.socket.destroy();
  // A short line with the same faults gets the same words.
  const b = await raw(d.socket);
  b.socket.write(Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('"}\n')]));
  b.socket.write('{"jsonrpc":"2.0","id":2,"method":"system.ping","params":{"p":"x"\n');
  b.socket.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "system.ping" }) + "\n");
  await b.reply(3);
  expect(b.order).toEqual([null, null, 3]);
  b.socket.destroy();
  const words = (r: Reply[]) =>
    r.slice(0, 2).map((x) => [x.error?.code, x.error?.message.replace(/line \d+ column \d+|position \d+|\d+/g, "N")]);
  expect(words(a.replies)).toEqual(words(b.replies));
  expect(a.replies[0]!.error?.message).toContain("UTF-8");
  expect(a.replies[1]!.error?.message).toContain("invalid JSON");
});
