import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutputLog } from "./output-log.ts";

// The pty worker writes the file before the bytes reach the log (pty/log-writer.ts): here the
// test is that worker, appending to the file first.
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function freshLog(): OutputLog {
  dir = mkdtempSync(join(tmpdir(), "termd-output-log-"));
  const log = new OutputLog(join(dir, "out.log"), "test");
  expect(log.create()).toBe(log.path);
  return log;
}

/** `n` bytes, each its offset's letter, so a piece read from the wrong place shows. */
function bytesAt(from: number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => 97 + ((from + i) % 26));
}

/** The worker's part: the file gets `data`, then the log. */
function written(log: OutputLog, data: Uint8Array, nonPlain = -1): void {
  appendFileSync(log.path, data);
  log.append(data, nonPlain);
}

describe("reading the output", () => {
  test("recent bytes come from the ring; once the ring moved on, the same bytes come from the file", () => {
    const log = freshLog();
    const piece = 256 * 1024;
    const total = log.ring.capacity + 2 * piece;
    for (let at = 0; at < total; at += piece) written(log, bytesAt(at, piece));
    expect(log.end).toBe(total);
    expect(log.start).toBe(total - log.ring.capacity);
    // From the file: the start, and a read across the ring's start.
    expect(log.read(0, 100)).toEqual(bytesAt(0, 100));
    expect(log.read(log.start - 50, 100)).toEqual(bytesAt(log.start - 50, 100));
    // From the ring, and nothing past the end.
    expect(log.read(total - 10, 100)).toEqual(bytesAt(total - 10, 10));
    expect(log.read(total + 5, 100)).toEqual(new Uint8Array(0));
  });

  test("plainFrom follows the last byte that is not plain text the reading thread found", () => {
    const log = freshLog();
    written(log, new TextEncoder().encode("ab\x1b[1mcd"), 3);
    expect(log.plainFrom).toBe(3);
    written(log, new TextEncoder().encode("plain"));
    expect(log.plainFrom).toBe(3);
  });
});

describe("a session from an earlier daemon", () => {
  test("restore takes up its file: its end, its last ring's worth, and where its plain text begins, found across scan chunks", () => {
    dir = mkdtempSync(join(tmpdir(), "termd-output-log-"));
    const path = join(dir, "out.log");
    // One escape near the start, then more plain text than a scan chunk (1 MiB) and the ring hold.
    const plain = bytesAt(0, 1024 * 1024 + 300 * 1024);
    writeFileSync(path, Buffer.concat([Buffer.from("x\x1b[2J"), plain]));
    const size = statSync(path).size;
    const log = new OutputLog(path, "test");
    const tail = log.restore();
    expect(log.end).toBe(size);
    expect(tail.length).toBe(log.ring.capacity);
    expect(log.read(size - 26, 26)).toEqual(plain.subarray(plain.length - 26));
    // Just past the ESC at offset 1.
    expect(log.plainFrom).toBe(2);
    expect(log.read(0, 6)).toEqual(new Uint8Array(Buffer.from("x\x1b[2Ja")));
  });

  test("restore of an all-plain file, or of none, starts plain text at 0", () => {
    dir = mkdtempSync(join(tmpdir(), "termd-output-log-"));
    const none = new OutputLog(join(dir, "missing.log"), "test");
    expect(none.restore()).toEqual(new Uint8Array(0));
    expect([none.end, none.plainFrom]).toEqual([0, 0]);
    writeFileSync(join(dir, "plain.log"), "just text\r\n");
    const plain = new OutputLog(join(dir, "plain.log"), "test");
    plain.restore();
    expect([plain.end, plain.plainFrom]).toEqual([11, 0]);
  });

  test("a new run cuts off what the file has past the output's end (a worker that died between its write and its message)", () => {
    const log = freshLog();
    written(log, bytesAt(0, 60));
    appendFileSync(log.path, bytesAt(60, 40));
    expect(statSync(log.path).size).toBe(100);
    expect(log.create()).toBe(log.path);
    expect(statSync(log.path).size).toBe(60);
  });
});

describe("a log write that failed", () => {
  test("the file keeps what it had; memory keeps the rest until the screen read it, then a reader is told of the gap", () => {
    const log = freshLog();
    written(log, bytesAt(0, 10));
    // The disk took none of these 20 bytes.
    log.append(bytesAt(10, 20), -1, { end: 10, error: "ENOSPC: no space left on device" });
    expect(log.error).toBe("ENOSPC: no space left on device");
    expect(log.create()).toBeNull();
    expect([log.ringOnly(0), log.ringOnly(25)]).toEqual([20, 5]);
    expect(log.read(5, 25)).toEqual(bytesAt(5, 25));

    // A ring's worth more pushes [10, 30) out of the ring before the screen read it: kept aside.
    const more = log.ring.capacity;
    log.append(bytesAt(30, more), -1);
    expect(log.start).toBe(30);
    expect(log.gapEnd(10)).toBeNull();
    expect(log.read(10, 20)).toEqual(bytesAt(10, 20));
    expect(log.read(0, 10)).toEqual(bytesAt(0, 10));

    // Once the screen read past them, they are gone: nothing holds [10, 30) any more.
    log.keepFor(30 + more);
    expect(log.gapEnd(10)).toBe(30);
    expect(log.gapEnd(5)).toBeNull();
    expect(log.read(10, 20)).toEqual(new Uint8Array(0));
  });
});
