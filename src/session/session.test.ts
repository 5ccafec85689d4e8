import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnedSessions } from "../../test/unit-fixtures.ts";
import { logPathOf } from "./log-path.ts";
import { fromRecord, recordOf, type SessionRecord } from "./record.ts";
import { Session } from "./session.ts";
import type { SessionEvent } from "./stream.ts";

const sessions = spawnedSessions("session-test");
const { dir } = sessions;

// The session is a lifecycle over its stream, not the hub its parts are reached through: what grows
// it (a store's record, info, a new part's wiring) belongs in a module of its own.
test("session.ts stays at most 250 lines", () => {
  const lines = readFileSync(join(import.meta.dir, "session.ts"), "utf8")
    .trimEnd()
    .split("\n").length;
  expect(lines).toBeLessThanOrEqual(250);
});

function record(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    name: id,
    command: ["sh"],
    cwd: dir,
    pid: null,
    state: "exited",
    exit_code: 0,
    signal: null,
    error: null,
    created_at: "2026-01-02T03:04:05.000Z",
    ended_at: "2026-01-02T03:05:00.000Z",
    rows: 4,
    cols: 20,
    scrollback: 10,
    term: "xterm-256color",
    ...over,
  };
}

/** The session a record and its log describe, as the store brings it back. */
function restored(r: SessionRecord, log: string): Session {
  writeFileSync(logPathOf(dir, r.id), log);
  const { base, run } = fromRecord(r, dir);
  const s = Session.restore({ ...base, logDir: dir, ...sessions.parts }, run);
  sessions.keep(s);
  return s;
}

describe("a session an earlier daemon left", () => {
  test("its output is its log's, its screen is rebuilt from it, and it takes no input", async () => {
    const s = restored(record("done", { exit_code: 3, state: "failed" }), "one\r\ntwo\r\n\x1b]2;a title\x07");
    expect(s.running).toBe(false);
    expect([s.state, s.exitCode]).toEqual(["failed", 3]);
    expect(new TextDecoder().decode(s.stream.readOutput(0, 100))).toStartWith("one\r\ntwo");
    expect(s.stream.tap.title).toBe("a title");
    const screen = await s.stream.snapshot();
    expect(screen.lines.slice(0, 2)).toEqual(["one", "two"]);
    expect(screen.title).toBe("a title");
    expect(() => s.writeInput("x")).toThrow(expect.objectContaining({ code: "SESSION_NOT_RUNNING", details: { session: "done" } }));
    expect(() => s.sendSignal("INT")).toThrow(expect.objectContaining({ code: "SESSION_NOT_RUNNING" }));
    await s.ended;
  });

  test("one that was running when its daemon died is lost, and says why", () => {
    const s = restored(record("lost", { state: "running", ended_at: null, exit_code: null }), "");
    expect(s.state).toBe("lost");
    expect(s.error).toBe("the daemon ended while the program ran");
    expect(s.endedAt).toBeInstanceOf(Date);
  });

  test("its record is the one it was restored from, with the start settings the store keeps", () => {
    const r = record("again", { start_env: { A: "1" }, integrate: false, pid: 42, pid_start: "123" });
    const s = restored(r, "x");
    const start = fromRecord(r, dir).start;
    expect(start).toEqual({ env: { A: "1" }, integrate: false });
    expect(recordOf(s, start)).toEqual(r);
  });

  test("an attached terminal does not reflow an ended session's final screen", () => {
    const s = restored(record("still"), "");
    s.setClientSize({}, { rows: 10, cols: 10 });
    expect(s.stream.size).toEqual({ rows: 4, cols: 20 });
  });

  test("a call that waited while it was removed answers SESSION_NOT_FOUND", async () => {
    const s = restored(record("gone"), "text");
    s.dispose();
    await expect(s.stream.snapshot("ansi")).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });
});

describe("a session's program", () => {
  test("its output, then its state, then its exit are told in order; input after it ended is refused", async () => {
    const s = await sessions.spawn("run", ["sh", "-c", "printf 'hi there'; exit 3"]);
    const seen: SessionEvent["type"][] = [];
    s.stream.on((e) => seen.push(e.type));
    await s.ended;
    expect([s.state, s.exitCode]).toEqual(["failed", 3]);
    expect(seen.indexOf("output")).toBeLessThan(seen.indexOf("state"));
    expect(seen.at(-1)).toBe("exit");
    expect(s.stream.textSnapshot().lines[0]).toBe("hi there");
    await expect(s.input("x", 1000)).rejects.toMatchObject({ code: "SESSION_NOT_RUNNING", message: "session run is failed" });
  });
});
