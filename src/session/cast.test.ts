import { expect, test } from "bun:test";
import { castHeader } from "./cast.ts";

const header = (command: string[], title?: string, maxBytes?: number) =>
  castHeader({ size: { rows: 24, cols: 80 }, term: "xterm-256color", command, startedAt: new Date(0), title }, maxBytes);
const replyBytes = (line: string) => Buffer.byteLength(JSON.stringify(line));

test("a header's command reads as a shell would run it again", () => {
  expect(JSON.parse(header(["vim", "-c", "set nu", "a b"])).command).toBe("vim -c 'set nu' 'a b'");
});

// Regression: every text field was cut in proportion, so a huge command made TERM `xter…`.
test("a header over its bound has only its long fields cut, to one length, ending in …; TERM and SHELL stay whole", () => {
  const line = header(["sh", "-c", "\x01".repeat(300_000)], "t".repeat(200_000), 100_000);
  expect(replyBytes(line)).toBeLessThanOrEqual(100_000);
  const h = JSON.parse(line) as { command: string; title: string; env: Record<string, string> };
  expect(h.env).toEqual({ TERM: "xterm-256color", SHELL: process.env.SHELL ?? "/bin/sh" });
  expect(h.command).toStartWith("sh -c '\x01");
  expect(h.command).toEndWith("\x01…");
  expect(h.title).toEndWith("t…");
  expect(h.title.length).toBe(h.command.length);
});

test("a header within its bound is whole", () => {
  const line = header(["sh", "-c", "x".repeat(1000)], "a title", 10_000);
  expect(JSON.parse(line)).toMatchObject({ command: `sh -c ${"x".repeat(1000)}`, title: "a title", env: { TERM: "xterm-256color" } });
});
