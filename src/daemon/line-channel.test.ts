import { afterAll, describe, expect, test } from "bun:test";
import { MAX_LINE_BYTES } from "../protocol/framing.ts";
import { LineParser, type LineParsed } from "./line-parser.ts";
import type { ByteSink } from "../protocol/byte-sink.ts";
import { HIGH_WATER, LineChannel, MAX_HELD, MAX_UNREAD } from "./line-channel.ts";
import { turns } from "./turns.ts";

const enc = (s: string) => new TextEncoder().encode(s);

const parser = new LineParser();
afterAll(() => parser.close());

/** A transport that takes at most `room` bytes until more is given, and keeps what it took. */
class Sink implements ByteSink {
  taken: Uint8Array[] = [];
  ended = false;
  paused = 0;
  resumed = 0;
  constructor(public room = Infinity) {}
  write(data: Uint8Array): number {
    const n = Math.min(this.room, data.length);
    this.room -= n;
    if (n > 0) this.taken.push(data.slice(0, n));
    return n;
  }
  end(): void {
    this.ended = true;
  }
  pause(): void {
    this.paused++;
  }
  resume(): void {
    this.resumed++;
  }
  get text(): string {
    return Buffer.concat(this.taken).toString("utf8");
  }
  lines(): unknown[] {
    return this.text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  }
}

/** A channel whose handler answers each line with `reply(msg)` (once it resolves), and records what it was told. */
function channel(sink: Sink, reply: (msg: unknown) => unknown = (msg) => ({ echo: msg })) {
  const seen: LineParsed[] = [];
  const told = { drained: 0, closed: 0 };
  const counters = { bytesIn: 0, bytesOut: 0 };
  const ch: LineChannel = new LineChannel(
    sink,
    {
      line: async (parsed) => {
        seen.push(parsed);
        if ("msg" in parsed) ch.send(await reply(parsed.msg));
      },
      drained: () => told.drained++,
      closed: () => told.closed++,
    },
    counters,
    parser.offThread,
  );
  return { ch, seen, told, counters };
}

/** Resolves once `cond` holds, checked after each turn of the event loop (bounded by the test's timeout). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

describe("a line channel", () => {
  test("lines split anywhere arrive whole and in order; blank lines are skipped; bad JSON is said so", async () => {
    const sink = new Sink();
    const { ch, seen, counters } = channel(sink);
    ch.onData(enc('{"a":1}\n\n{"b"'));
    ch.onData(enc(":2}\nnot json\n"));
    await until(() => seen.length === 3);
    expect(seen[0]).toEqual({ msg: { a: 1 } });
    expect(seen[1]).toEqual({ msg: { b: 2 } });
    expect("malformed" in seen[2]! && seen[2].malformed).toStartWith("invalid JSON");
    expect(sink.lines()).toEqual([{ echo: { a: 1 } }, { echo: { b: 2 } }]);
    expect(counters.bytesIn).toBe('{"a":1}\n\n{"b":2}\nnot json\n'.length);
    expect(counters.bytesOut).toBe(sink.text.length);
  });

  test("a transport that takes nothing holds the queue; past HIGH_WATER the channel is not writable; its drain sends the rest in order", async () => {
    const sink = new Sink(0);
    const { ch, told } = channel(sink);
    const big = "x".repeat(1024 * 1024);
    let sent = 0;
    while (ch.writable) ch.send({ n: sent++, big });
    expect(sent).toBeGreaterThanOrEqual(Math.floor(HIGH_WATER / big.length));
    expect(sink.taken).toHaveLength(0);
    sink.room = Infinity;
    ch.flush();
    expect(ch.writable as boolean).toBe(true);
    expect(told.drained).toBeGreaterThan(0);
    expect(sink.lines().map((l) => (l as { n: number }).n)).toEqual([...Array(sent).keys()]);
  });

  test("requests wait while MAX_UNREAD bytes of replies are unread, and run once the client reads", async () => {
    const sink = new Sink(0);
    const reply = "y".repeat(MAX_UNREAD + 1);
    const { ch, seen } = channel(sink, () => ({ reply }));
    ch.onData(enc('{"first":1}\n{"second":2}\n'));
    await until(() => seen.length >= 1);
    // The first reply is over the bound and unread: the second request has not run.
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(1);
    sink.room = Infinity;
    ch.flush();
    await until(() => seen.length === 2);
    expect(seen[1]).toEqual({ msg: { second: 2 } });
  });

  test("a line over MAX_LINE_BYTES gets PAYLOAD_TOO_LARGE and the channel closes; nothing after it runs", async () => {
    const sink = new Sink();
    const { ch, seen, told } = channel(sink);
    ch.onData(new Uint8Array(MAX_LINE_BYTES + 1).fill(0x61));
    ch.onData(enc('\n{"after":1}\n'));
    expect(sink.ended).toBe(true);
    expect(told.closed).toBe(1);
    const [err] = sink.lines() as { error: { data: { code: string } } }[];
    expect(err!.error.data.code).toBe("PAYLOAD_TOO_LARGE");
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(0);
  });

  test("after inputEnd() every line received is answered, a slow one too, then the channel ends", async () => {
    const sink = new Sink();
    const slow = Promise.withResolvers<void>();
    const { ch, told } = channel(sink, (msg) => ((msg as { slow?: true }).slow ? slow.promise.then(() => ({ slow: "done" })) : { msg }));
    ch.onData(enc(`{"slow":true}\n${'{"n":1}\n'.repeat(100)}{"unfinished"`));
    ch.inputEnd();
    await until(() => sink.lines().length === 100);
    expect(sink.ended).toBe(false);
    slow.resolve();
    await until(() => sink.ended);
    expect(sink.lines()).toHaveLength(101);
    expect(sink.lines().at(-1)).toEqual({ slow: "done" });
    expect(told.closed).toBe(1);
  });

  test("past MAX_HELD bytes of lines waiting for their turns the transport is paused, and resumed once they are answered", async () => {
    const sink = new Sink();
    const { ch, seen } = channel(sink);
    const line = '{"n":1}\n';
    const count = Math.ceil(MAX_HELD / (line.length - 1)) + 1;
    ch.onData(enc(line.repeat(count)));
    expect(sink.paused).toBe(1);
    await until(() => seen.length === count);
    expect(sink.resumed).toBe(1);
  });

  test("a turn given while one is under way is declined, not taken back into line; the lines left still get a turn", async () => {
    const sink = new Sink();
    const { ch } = channel(sink, (msg) => new Promise((r) => setImmediate(() => r({ msg }))));
    // Regression: turn() said "more waits" while a turn was under way, so the scheduler put the
    // channel back in line at once, one macrotask after another, until that turn ended.
    const declined: boolean[] = [];
    const turn = ch.turn.bind(ch);
    ch.turn = async (deadline) => {
      const underWay = (ch as unknown as { inTurn: boolean }).inTurn;
      const more = await turn(deadline);
      if (underWay) declined.push(more);
      return more;
    };
    // A channel still in the scheduler's line (a reply's flush asked for a turn while the turn that
    // sent it ran) whose next lines arrive and start at once: the scheduler's turn comes mid-way.
    turns.want(ch);
    ch.onData(enc('{"n":0}\n{"n":1}\n{"n":2}\n'));
    await until(() => sink.lines().length === 3);
    expect(declined).toEqual([false]);
    expect(sink.lines()).toEqual([0, 1, 2].map((n) => ({ msg: { n } })));
  });

  test("past HIGH_WATER, an oversized line's error still comes, after what was queued, and only then the close", () => {
    const sink = new Sink(0);
    const { ch } = channel(sink);
    const big = "x".repeat(1024 * 1024);
    let sent = 0;
    while (ch.writable) ch.send({ n: sent++, big });
    ch.onData(new Uint8Array(MAX_LINE_BYTES + 1).fill(0x61));
    expect(sink.ended).toBe(false);
    sink.room = Infinity;
    ch.flush();
    expect(sink.ended).toBe(true);
    const lines = sink.lines() as { n?: number; error?: { data: { code: string } } }[];
    expect(lines).toHaveLength(sent + 1);
    expect(lines.at(-1)!.error!.data.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("last(): its line goes after what was queued, nothing after it, the channel stays open; written() resolves once it is out", async () => {
    const sink = new Sink(10);
    const { ch, seen } = channel(sink);
    ch.send({ a: "0123456789" });
    let written = false;
    void ch.written().then(() => (written = true));
    ch.last({ bye: true });
    ch.send({ late: true });
    ch.onData(enc('{"after":1}\n'));
    await new Promise((r) => setImmediate(r));
    expect(written).toBe(false);
    sink.room = Infinity;
    ch.flush();
    await ch.written();
    expect(written).toBe(true);
    expect(sink.lines()).toEqual([{ a: "0123456789" }, { bye: true }]);
    expect(seen).toHaveLength(0);
    expect(sink.ended).toBe(false);
  });

  test("end() closes once the queue is written, not before; close() is told once", () => {
    const sink = new Sink(10);
    const { ch, told } = channel(sink);
    ch.send({ a: "0123456789" });
    ch.end();
    expect(sink.ended).toBe(false);
    expect(told.closed).toBe(0);
    // Nothing more is queued once it is ending.
    ch.send({ late: true });
    sink.room = Infinity;
    ch.flush();
    expect(sink.ended).toBe(true);
    expect(sink.lines()).toEqual([{ a: "0123456789" }]);
    ch.close();
    expect(told.closed).toBe(1);
    expect(ch.writable).toBe(false);
  });
});
