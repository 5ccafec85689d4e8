// Recordings: a live asciicast of a session (output, input, resizes) and the export of any
// session's log as an asciicast, both parsed back event by event.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TestDaemon } from "./harness.ts";

type CastEvent = [number, "o" | "i" | "r", string];

function parseCast(text: string): { header: Record<string, unknown>; events: CastEvent[] } {
  const [first, ...rest] = text.trimEnd().split("\n");
  return { header: JSON.parse(first!), events: rest.map((l) => JSON.parse(l) as CastEvent) };
}

function expectOrderedTimes(events: CastEvent[]): void {
  for (let i = 1; i < events.length; i++) expect(events[i]![0]).toBeGreaterThanOrEqual(events[i - 1]![0]);
}

test("a recorded session's asciicast has the header, then its output, input and resize events in order", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const file = join(d.dir, "session.cast");
  // Without shell integration's marks, the output is bash's own bytes alone.
  await c.call("session.create", {
    name: "rec",
    command: ["bash", "--norc", "--noprofile"],
    env: { PS1: "$ " },
    rows: 20,
    cols: 70,
    record: file,
    shell_integration: false,
  });
  await c.call("session.wait", { session: "rec", text: "$ " });
  await c.call("session.input", { session: "rec", text: "echo héllo wörld" });
  await c.call("session.input", { session: "rec", keys: ["Enter"] });
  await c.call("session.wait", { session: "rec", regex: "^héllo wörld$" });
  await c.call("session.resize", { session: "rec", rows: 30, cols: 100 });
  await c.call("session.input", { session: "rec", text: "exit\r" });
  await c.call("session.wait", { session: "rec", exit: true });

  const { header, events } = parseCast(readFileSync(file, "utf8"));
  expect(header).toMatchObject({ version: 2, width: 70, height: 20, env: { TERM: "xterm-256color" } });
  expectOrderedTimes(events);
  const inputs = events.filter((e) => e[1] === "i").map((e) => e[2]);
  expect(inputs).toEqual(["echo héllo wörld", "\r", "exit\r"]);
  expect(events.filter((e) => e[1] === "r").map((e) => e[2])).toEqual(["100x30"]);
  const output = events
    .filter((e) => e[1] === "o")
    .map((e) => e[2])
    .join("");
  expect(output).toContain("\rhéllo wörld\r\n");
  // Every byte of output is in the recording, as the log holds it.
  const log = await c.call("session.output", { session: "rec", from: 0 });
  expect(output).toBe(Buffer.from(log.base64, "base64").toString());
  // The resize comes after the echo it followed and before the exit's output.
  const at = (pred: (e: CastEvent) => boolean) => events.findIndex(pred);
  expect(at((e) => e[1] === "r")).toBeGreaterThan(at((e) => e[1] === "o" && e[2].includes("héllo wörld\r\n")));
  expect(at((e) => e[1] === "r")).toBeLessThan(at((e) => e[1] === "i" && e[2] === "exit\r"));
});

test("logs --cast exports any session's output, timed, with its resizes, in pages that never split a character", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // Enough multi-byte text that 1 MiB pages must cut somewhere inside it.
  const script = 'for i in $(seq 1 40000); do echo "ligne $i: é ü ✓ 日本"; done; sleep 0.05; exit 0';
  await c.call("session.create", { name: "big", command: ["bash", "-c", script] });
  await c.call("session.resize", { session: "big", rows: 40, cols: 120 });
  await c.call("session.wait", { session: "big", exit: true, timeout_ms: 30_000 });

  const r = await d.cli(["logs", "big", "--cast"]);
  expect(r.code).toBe(0);
  const { header, events } = parseCast(r.stdout);
  expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
  expectOrderedTimes(events);
  expect(events.filter((e) => e[1] === "r").map((e) => e[2])).toEqual(["120x40"]);
  const text = events
    .filter((e) => e[1] === "o")
    .map((e) => e[2])
    .join("");
  expect(text).not.toContain("\uFFFD");
  const log = Buffer.concat(
    await (async () => {
      const parts: Buffer[] = [];
      for (let from = 0; ; ) {
        const o = await c.call("session.output", { session: "big", from });
        if (o.to === from) return parts;
        parts.push(Buffer.from(o.base64, "base64"));
        from = o.to;
      }
    })(),
  );
  expect(log.length).toBeGreaterThan(1024 * 1024);
  expect(text).toBe(log.toString("utf8"));
  expect(text).toContain("ligne 40000: é ü ✓ 日本\r\n");
});
