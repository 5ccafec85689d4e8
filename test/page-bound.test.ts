// A page of output (session.output, session.cast) is one reply line: it stops before its reply
// would pass MAX_PAGE_REPLY (src/protocol/framing.ts), whatever max_bytes asked, and the client
// pages on from `to` as it always does, every byte read once.
import { expect, test } from "bun:test";
import type { Client } from "../src/client/index.ts";
import { MAX_PAGE_REPLY } from "../src/protocol/framing.ts";
import { sharedDaemon } from "./harness.ts";

const shared = sharedDaemon();
const MAX = 8 * 1024 * 1024;
const replySize = (result: unknown) => Buffer.byteLength(JSON.stringify(result));

/** A session whose program writes `bytes` times the byte `byte` (as tr's octal) and ends; `args` lengthen its command. */
async function wrote(c: Client, name: string, bytes: number, byte: string, args: string[] = []): Promise<void> {
  await c.call("session.create", { name, command: ["sh", "-c", `head -c ${bytes} /dev/zero | tr '\\0' '${byte}'`, ...args] });
  await c.call("session.wait", { session: name, exit: true, timeout_ms: 60_000 });
}

/** Every page from 0 to the end, each reply checked against the bound. */
async function pages<P extends { from: number; to: number; eof: boolean }>(read: (from: number) => Promise<P>): Promise<P[]> {
  const all: P[] = [];
  for (let from = 0, eof = false; !eof; ) {
    const page = await read(from);
    expect(page.from).toBe(from);
    expect(replySize(page)).toBeLessThanOrEqual(MAX_PAGE_REPLY);
    all.push(page);
    ({ to: from, eof } = page);
  }
  return all;
}

/** A page as both methods have it, and what it says of the output: session.output's bytes, session.cast's "o" events' text. */
type Page = { from: number; to: number; eof: boolean; base64?: string; lines?: string[] };
const pageText = (p: Page) =>
  p.base64 !== undefined
    ? Buffer.from(p.base64, "base64").toString("latin1")
    : p
        .lines!.map((l) => JSON.parse(l) as [number, string, string])
        .filter(([, code]) => code === "o")
        .map(([, , data]) => data)
        .join("");

// Regressions: an 8 MB session.output page was an 11 MB reply line (more than a request line may
// be); each \x01 is 7 characters of a session.cast reply (\\u0001), so 2 MB of them made a 14 MB line.
test.each([
  { method: "session.output", char: "x", tr: "x", size: 8_000_000 },
  { method: "session.cast", char: "\x01", tr: "\\001", size: 2_000_000 },
] as const)(
  "an 8 MiB $method page of $size bytes comes in pieces whose replies stay under MAX_PAGE_REPLY; paging on reads every byte",
  async ({ method, char, tr, size }) => {
    const { c } = shared;
    const name = method.replace(".", "-");
    await wrote(c, name, size, tr);
    const read = await pages((from) => c.call(method, { session: name, from, max_bytes: MAX }) as Promise<Page>);
    expect(read.length).toBeGreaterThan(1);
    expect(read.map(pageText).join("")).toBe(char.repeat(size));
  },
  60_000,
);

// Regression: only the events were measured, not the header of the first page, whose command
// (each \x01 7 characters of the reply here too) took the reply past the bound.
test("a session.cast first page leaves its header room: a long command's page is cut to fit both", async () => {
  const { c } = shared;
  const long = "\x01".repeat(100_000);
  await wrote(c, "long-command", 2_000_000, "\\001", [long, long, long]);
  const read = await pages((from) => c.call("session.cast", { session: "long-command", from, max_bytes: MAX }));
  expect(JSON.parse(read[0]!.header!).command).toContain(long);
  expect(read.map(pageText).join("")).toBe("\x01".repeat(2_000_000));
}, 60_000);

// Regression: a header over the bound by itself (a command of 1.44 MB of \x01, 10 MB of the
// reply) made a first page over it, whatever the page left out.
test("a session.cast header over the bound by itself has its command cut, ending in …, so its page fits; its TERM is whole", async () => {
  const { c } = shared;
  await wrote(c, "huge-command", 1000, "x", Array(12).fill("\x01".repeat(120_000)));
  const read = await pages((from) => c.call("session.cast", { session: "huge-command", from, max_bytes: MAX }));
  const { command, env } = JSON.parse(read[0]!.header!) as { command: string; env: { TERM: string } };
  expect(command).toStartWith("sh -c 'head -c 1000 /dev/zero");
  expect(command).toEndWith("\x01…");
  // The short fields stay whole: only the longest are cut.
  expect(env.TERM).toBe("xterm-256color");
  expect(read.map(pageText).join("")).toBe("x".repeat(1000));
}, 60_000);
