import { expect, test } from "bun:test";
import { nativeOutput } from "../dialects/json-rpc.ts";
import { type EncodedLine, type OutputFrame, type OutputFraming, rawOutput } from "../protocol/output-frame.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import type { Session } from "../session/session.ts";
import { spawnedSessions } from "../../test/unit-fixtures.ts";
import { Subscription } from "./subscription.ts";

const sessions = spawnedSessions("subscription-test");

const run = (script: string): Promise<Session> => sessions.spawn("sub", ["sh", "-c", script]);

test("while its sink is full a subscriber keeps only the latest title; its output waits as an offset and then comes whole, before the exit", async () => {
  const s = await run("printf 'one\\033]2;a\\007two\\033]2;b\\007three\\033]2;c\\007'; exit 0");
  const events: EventMessage[] = [];
  const sink = { writable: false, sendEvent: (e: EventMessage) => events.push(e) };
  const sub = new Subscription(s, sink, null);
  sub.add(["title", "output", "exit"]);
  await s.ended;
  expect(events).toHaveLength(0);
  expect(sub.delivered).toBe(false);
  sink.writable = true;
  sub.catchUp();
  expect(events.filter((e) => e.type === "title").map((e) => e.data.title)).toEqual(["c"]);
  const output = events.filter((e) => e.type === "output");
  expect(output[0]!.data.from).toBe(0);
  const text = output.map((e) => Buffer.from(String(e.data.base64), "base64").toString()).join("");
  expect(text.replace(/\x1b\]2;.\x07/g, "")).toBe("onetwothree");
  expect(events.at(-1)).toMatchObject({ type: "exit", session: "sub", data: { exit_code: 0 } });
  expect(sub.delivered).toBe(true);
  sub.dispose();
});

test("sinks with a framing get output as frames made once: the same object for each sink of a shape at an offset, the bytes a base64 event carries", async () => {
  const s = await run("printf 'caf\\303\\251 \\033[1mbold\\033[m'; exit 0");
  await s.ended;
  // Not writable at first: all of them wait at offset 0, then each takes what it missed.
  const framed = (framing: OutputFraming) => {
    const frames: OutputFrame[] = [];
    const events: EventMessage[] = [];
    const sink = {
      writable: false,
      framing,
      sendFrame: (f: OutputFrame) => frames.push(f),
      sendEvent: (e: EventMessage) => events.push(e),
    };
    return { frames, events, sink, sub: new Subscription(s, sink, 0) };
  };
  const raw = [framed(rawOutput), framed(rawOutput)];
  const lines = [framed(nativeOutput), framed(nativeOutput)];
  const encoded: EventMessage[] = [];
  const plain = new Subscription(s, { writable: true, sendEvent: (e) => encoded.push(e) }, 0);
  for (const { sub } of [...raw, ...lines]) sub.add(["output", "exit"]);
  for (const f of [...raw, ...lines]) {
    f.sink.writable = true;
    f.sub.catchUp();
  }
  plain.add(["output", "exit"]);
  const fromBase64 = Buffer.concat(encoded.filter((e) => e.type === "output").map((e) => Buffer.from(String(e.data.base64), "base64")));
  expect(fromBase64.toString()).toBe("café \x1b[1mbold\x1b[m");
  expect(raw[0]!.frames.length).toBeGreaterThan(0);
  expect(raw[1]!.frames).toEqual(raw[0]!.frames);
  expect(raw[1]!.frames.every((f, i) => f === raw[0]!.frames[i])).toBe(true);
  expect(Buffer.concat(raw[0]!.frames as Uint8Array[]).equals(fromBase64)).toBe(true);
  expect(lines[1]!.frames.every((f, i) => f === lines[0]!.frames[i])).toBe(true);
  const texts = lines[0]!.frames.map((f) => (f as EncodedLine).text);
  const events = texts.map((t) => JSON.parse(t).params as EventMessage);
  // The very text event() makes of the same event: JSON.stringify's.
  expect(texts).toEqual(events.map((params) => JSON.stringify({ jsonrpc: "2.0", method: "event", params })));
  expect(events.every((e) => e.type === "output" && e.session === "sub" && e.session_id === s.id)).toBe(true);
  expect(Buffer.concat(events.map((e) => Buffer.from(String(e.data.base64), "base64"))).equals(fromBase64)).toBe(true);
  // The exit is no output: it goes as an event.
  expect(raw[0]!.events.at(-1)).toMatchObject({ type: "exit", data: { exit_code: 0 } });
  for (const { sub } of [...raw, ...lines]) sub.dispose();
  plain.dispose();
});

test("a subscriber made once the program ended, before its exit was told, gets the exit once", async () => {
  const s = await run("echo bye; exit 3");
  const events: EventMessage[] = [];
  let sub: Subscription | null = null;
  // Made as the state changes: the session has ended, and its exit is told once its screen is saved.
  const off = s.stream.on((e) => {
    if (e.type !== "state" || e.state === "running" || sub) return;
    sub = new Subscription(s, { writable: true, sendEvent: (ev) => events.push(ev) }, 0);
    sub.add(["output", "exit"]);
  });
  await s.ended;
  off();
  // Regression: the exit went out on subscribing, and again when the session told it.
  expect(events.filter((e) => e.type === "exit").map((e) => e.data)).toEqual([{ exit_code: 3, signal: null }]);
  expect(events.at(-1)?.type).toBe("exit");
  sub!.dispose();
});
