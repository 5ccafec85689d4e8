import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventMessage } from "../protocol/schemas.ts";
import { Session } from "../session/session.ts";
import { Subscription } from "./subscription.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-subscription-test-"));
const sessions: Session[] = [];
afterAll(() => {
  for (const s of sessions) s.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function run(script: string): Promise<Session> {
  const command = ["sh", "-c", script];
  const s = await Session.spawn(
    {
      id: "sub",
      name: "sub",
      command,
      cwd: dir,
      createdAt: new Date(),
      size: { rows: 4, cols: 20 },
      scrollback: 10,
      term: "xterm-256color",
      logDir: dir,
    },
    { argv: command, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, shellIntegration: null },
  );
  sessions.push(s);
  return s;
}

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

test("a sink that takes raw bytes gets each output event's bytes themselves, the same bytes a base64 sink gets", async () => {
  const s = await run("printf 'caf\\303\\251 \\033[1mbold\\033[m'; exit 0");
  await s.ended;
  const raw: EventMessage[] = [];
  const encoded: EventMessage[] = [];
  const subs = [
    new Subscription(s, { writable: true, rawBytes: true, sendEvent: (e) => raw.push(e) }, 0),
    new Subscription(s, { writable: true, sendEvent: (e) => encoded.push(e) }, 0),
  ];
  for (const sub of subs) sub.add(["output", "exit"]);
  const rawOut = raw.filter((e) => e.type === "output");
  expect(rawOut.length).toBeGreaterThan(0);
  expect(rawOut.every((e) => e.data.bytes instanceof Uint8Array && e.data.base64 === undefined)).toBe(true);
  const bytes = Buffer.concat(rawOut.map((e) => e.data.bytes as Uint8Array));
  const fromBase64 = Buffer.concat(encoded.filter((e) => e.type === "output").map((e) => Buffer.from(String(e.data.base64), "base64")));
  expect(bytes.toString()).toBe("café \x1b[1mbold\x1b[m");
  expect(bytes.equals(fromBase64)).toBe(true);
  expect(raw.at(-1)).toMatchObject({ type: "exit", data: { exit_code: 0 } });
  for (const sub of subs) sub.dispose();
});
