import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventMessage } from "../protocol/schemas.ts";
import { logPathOf } from "../session/log-path.ts";
import { Session } from "../session/session.ts";
import { daemonParts } from "../../test/unit-fixtures.ts";
import { Peer, type PeerOutlet } from "./peer.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-client-test-"));
const sessions: Session[] = [];
afterAll(() => {
  for (const s of sessions) s.dispose();
  rmSync(dir, { recursive: true, force: true });
});
const { pool, answers } = daemonParts();

/** A session an earlier daemon left, its program ended: its output is what its log holds. */
function endedSession(id: string, output: string): Session {
  writeFileSync(logPathOf(dir, id), output);
  const s = Session.restore(
    {
      id,
      name: id,
      command: ["sh"],
      cwd: dir,
      createdAt: new Date(),
      size: { rows: 5, cols: 20 },
      scrollback: 10,
      term: "xterm-256color",
      logDir: dir,
      pool,
      answers,
    },
    { state: "exited", exitCode: 3, signal: null, error: null, endedAt: new Date(), pid: null, pidStart: null },
  );
  sessions.push(s);
  return s;
}

/** An outlet that keeps the events it is given while it has room, and counts its ends. */
function outlet() {
  const o = {
    writable: true,
    plainText: false,
    events: [] as EventMessage[],
    ends: 0,
    event: (e: EventMessage) => o.events.push(e),
    end: () => o.ends++,
  };
  return o satisfies PeerOutlet;
}

const outputOf = (events: EventMessage[]) =>
  events
    .filter((e) => e.type === "output")
    .map((e) => Buffer.from(String(e.data.base64), "base64").toString())
    .join("");

describe("a client", () => {
  test("a subscription replays the output and then tells how the program ended", () => {
    const s = endedSession("replay", "hello\r\n");
    const o = outlet();
    const c = new Peer(o);
    const sub = c.subscribe(s, ["output", "exit"], 0);
    expect(sub.from).toBe(0);
    expect(outputOf(o.events)).toBe("hello\r\n");
    expect(o.events.at(-1)).toMatchObject({ type: "exit", session: "replay", data: { exit_code: 3, signal: null } });
    expect(c.subscription(s)).toBe(sub);
    expect(c.subscriptionCount).toBe(1);
  });

  test("while its outlet has no room nothing is sent; once it drains, all of it, in order", () => {
    const s = endedSession("held", "abc");
    const o = outlet();
    o.writable = false;
    const c = new Peer(o);
    c.subscribe(s, ["output", "exit"], 0);
    expect(o.events).toHaveLength(0);
    o.writable = true;
    c.drained();
    expect(outputOf(o.events)).toBe("abc");
    expect(o.events.at(-1)?.type).toBe("exit");
  });

  test("endWhenDelivered ends it once its session's last events went out, not before", () => {
    const s = endedSession("last", "bye");
    const o = outlet();
    o.writable = false;
    const c = new Peer(o, { impliedSession: "last" });
    c.subscribe(s, ["output", "exit"], 0);
    c.endWhenDelivered(s.id);
    expect(o.ends).toBe(0);
    o.writable = true;
    c.drained();
    expect(o.ends).toBeGreaterThan(0);
    expect(c.impliedSession).toBe("last");
  });

  test("unsubscribe drops the event types named, and the subscription with the last; close ends its calls and subscriptions", () => {
    const s = endedSession("subs", "");
    const c = new Peer(outlet(), { refusesFileParams: true });
    c.subscribe(s, ["title", "bell"], null);
    expect([...c.unsubscribe(s, ["bell"])]).toEqual(["title"]);
    expect(c.subscriptionCount).toBe(1);
    expect([...c.unsubscribe(s, ["title"])]).toEqual([]);
    expect(c.subscriptionCount).toBe(0);
    c.subscribe(s, ["title"], null);
    expect(c.signal.aborted).toBe(false);
    c.close();
    expect(c.signal.aborted).toBe(true);
    expect(c.subscriptionCount).toBe(0);
    expect(c.refusesFileParams).toBe(true);
  });
});
