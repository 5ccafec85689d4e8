// Calls that race on one session: a call still running when another client removes the session
// answers SESSION_NOT_FOUND, as if it came just after; the session is removed once; the daemon
// logs nothing. Each case is a short, deterministic reproduction of a race the soak's fuzz found
// (scripts/soak/races.ts runs the long version).
import { expect, test } from "bun:test";
import type { Client } from "../src/client/index.ts";
import { TestDaemon } from "./harness.ts";

/** The error name a call answered with, or "ok". */
function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "ok",
    (err: Error) => err.name,
  );
}

async function endedSession(c: Client): Promise<string> {
  const s = await c.call("session.create", { command: ["sh", "-c", "seq 1 300; printf '\\033[1mdone\\033[0m'"], rows: 10, cols: 40 });
  expect((await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 10_000 })).outcome).toBe("exited");
  return s.id;
}

test("a screen read and a screenshot in flight when the session is removed answer SESSION_NOT_FOUND", async () => {
  // A session of an earlier daemon: its screen is a screen worker's (a running session's is its
  // pty worker's).
  await using first = await TestDaemon.start();
  const id = await endedSession(await first.client());
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  await using d = await TestDaemon.start({ socket: first.socket, stateDir: first.stateDir, args: ["--screen-workers", "1"] });
  const c = await d.client();
  // A fresh worker takes a while to start: until it rebuilt the screen, reads of it wait, and the
  // remove, sent after them on the same connection (so read after them), lands while they do. The
  // restart goes out with them: awaited first, its answer's round trip gave the worker that while
  // (a test process held back on a loaded machine, and the reads were answered).
  const restarted = c.call("system.screens", { restart: 0 });
  const reads = [
    outcome(c.call("session.screen", { session: id, format: "ansi", scrollback: 100 })),
    outcome(c.call("session.screen", { session: id, format: "cells" })),
    outcome(c.call("session.screen", { session: id, since_seq: 0 })),
    outcome(c.call("session.screenshot", { session: id, format: "svg" })),
  ];
  const removed = c.call("session.remove", { session: id });
  expect(await restarted).toMatchObject({ restarted: 0 });
  expect(await removed).toEqual({ removed: id });
  expect(await Promise.all(reads)).toEqual(["SESSION_NOT_FOUND", "SESSION_NOT_FOUND", "SESSION_NOT_FOUND", "SESSION_NOT_FOUND"]);
  expect(d.log).not.toContain("internal error");
  expect(d.log).not.toContain("the screen is closed");
});

test("two removes of one running session: one removes it, the other answers SESSION_NOT_FOUND", async () => {
  await using d = await TestDaemon.start();
  const [a, b] = [await d.client(), await d.client()];
  const s = await a.call("session.create", { command: ["cat"] });
  const both = await Promise.all([
    outcome(a.call("session.remove", { session: s.id, force: true })),
    outcome(b.call("session.remove", { session: s.id, force: true })),
  ]);
  expect(both.sort()).toEqual(["SESSION_NOT_FOUND", "ok"]);
  await expect(a.call("session.info", { session: s.id })).rejects.toMatchObject({ name: "SESSION_NOT_FOUND" });
  // The name is free again: the session is gone once, not half.
  expect((await a.call("session.create", { name: s.name, command: ["cat"] })).name).toBe(s.name);
  expect(d.log).not.toContain("internal error");
});

test("two creates of one name at once: one starts, the other answers NAME_TAKEN", async () => {
  await using d = await TestDaemon.start();
  const [a, b] = [await d.client(), await d.client()];
  const both = await Promise.all([a, b].map((c) => outcome(c.call("session.create", { name: "twin", command: ["cat"] }))));
  expect(both.sort()).toEqual(["NAME_TAKEN", "ok"]);
  expect((await a.call("session.list")).sessions.filter((s) => s.name === "twin")).toHaveLength(1);
});
