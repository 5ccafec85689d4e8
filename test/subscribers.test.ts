// Many subscribers on one flooding session: output is framed once and shared (output-frames.ts),
// so these check that every subscriber still gets every byte once, in order, at the offsets the
// session's log has them; and that one which stops reading is caught up later without holding the
// others.
import { expect, test } from "bun:test";
import type { Client } from "../src/client/index.ts";
import type { EventMessage } from "../src/protocol/schemas.ts";
import { TestDaemon } from "./harness.ts";

/** The session's whole output, as its log has it. */
async function logged(c: Client, session: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let from = 0; ; ) {
    const r = await c.call("session.output", { session, from, max_bytes: 8 * 1024 * 1024 });
    parts.push(Buffer.from(r.base64, "base64"));
    if (r.eof || r.to === from) break;
    from = r.to;
  }
  return Buffer.concat(parts);
}

/** One subscriber's output events, checked to follow one another with no gap and no overlap. */
class Received {
  readonly pieces: Buffer[] = [];
  readonly exited = Promise.withResolvers<void>();
  start = -1;
  end = -1;
  bytes = 0;

  take(e: EventMessage): void {
    if (e.type === "exit") return this.exited.resolve();
    if (e.type !== "output") return;
    const from = e.data.from as number;
    const to = e.data.to as number;
    if (this.start < 0) this.start = this.end = from;
    // Every byte once, in order: each event starts where the one before ended.
    if (from !== this.end) this.exited.reject(new Error(`an event from ${from} after one that ended at ${this.end}`));
    const bytes = Buffer.from(String(e.data.base64), "base64");
    if (bytes.length !== to - from) this.exited.reject(new Error(`an event of ${bytes.length} bytes says [${from}, ${to})`));
    this.pieces.push(bytes);
    this.end = to;
    this.bytes += bytes.length;
  }

  get all(): Buffer {
    return Buffer.concat(this.pieces);
  }
}

/** `n` connections subscribed to `session`'s output and exit, from its first byte. */
async function subscribers(d: TestDaemon, session: string, n: number): Promise<{ client: Client; got: Received }[]> {
  const subs: { client: Client; got: Received }[] = [];
  for (let i = 0; i < n; i++) {
    const client = await d.client();
    const got = new Received();
    await client.subscribe({ session, events: ["output", "exit"], replay: 0 }, (e) => got.take(e));
    subs.push({ client, got });
  }
  return subs;
}

/** A program that writes `lines` numbered lines once it reads a line: subscribers are in place before. */
const gatedSeq = (lines: number) => ["sh", "-c", `read go; seq 1 ${lines}`];

test("16 subscribers on one session receive the same bytes at the same offsets, the session's log's", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const { id } = await c.call("session.create", { command: gatedSeq(300_000), rows: 24, cols: 80 });
  const subs = await subscribers(d, id, 16);
  await c.call("session.input", { session: id, text: "go\r" });
  await Promise.all(subs.map((s) => s.got.exited.promise));
  const log = await logged(c, id);
  expect(log.length).toBeGreaterThan(2_000_000);
  for (const { got } of subs) {
    expect(got.start).toBe(0);
    expect(got.end).toBe(log.length);
    expect(got.all.equals(log)).toBe(true);
  }
});

test("a subscriber that stops reading is held as an offset: the others get all of the output meanwhile, and it then gets every byte once, in order", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // About 8 MB of output, over 10 MB as base64 events: more than a connection may have queued
  // (HIGH_WATER, 4 MiB) and than the ring holds (1 MiB).
  const { id } = await c.call("session.create", { command: gatedSeq(1_000_000), rows: 24, cols: 80 });
  const [slow, ...others] = await subscribers(d, id, 16);
  slow!.client.pause();
  await c.call("session.input", { session: id, text: "go\r" });
  await Promise.all(others.map((s) => s.got.exited.promise));
  const log = await logged(c, id);
  expect(log.length).toBeGreaterThan(7_000_000);
  for (const { got } of others) expect(got.all.equals(log)).toBe(true);
  // While it read nothing, it had far from everything: the daemon held the rest back for it.
  expect(slow!.got.bytes).toBeLessThan(log.length / 2);
  slow!.client.resume();
  await slow!.got.exited.promise;
  expect(slow!.got.start).toBe(0);
  expect(slow!.got.all.equals(log)).toBe(true);
});
