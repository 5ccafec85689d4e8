// The daemon in this process, served on its socket as ever: what it owns (its socket, locks and
// state dir, the sessions' programs, the dialects' state) and its shutdown in order.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "../client/index.ts";
import { DIALECTS } from "../dialects/index.ts";
import { alive } from "../platform/alive.ts";
import { journalPathOf } from "../session/journal.ts";
import { Daemon } from "./daemon.ts";
import { LINE_OFF_THREAD } from "./line-parser.ts";
import { nativeCaller } from "./connection.ts";
import { NO_OUTLET } from "./peer.ts";
import { RpcError } from "../protocol/errors.ts";
import type { NativeCaller } from "../dialects/dialect.ts";

let dir: string;
const daemons: Daemon[] = [];
afterEach(() => {
  for (const d of daemons.splice(0)) d.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A daemon on `socket` with state in `state` (below the test's temp dir), closed after the test. */
async function start(socket = "termd.sock", state = "state"): Promise<Daemon> {
  const d = await Daemon.start({
    socketPath: join(dir, socket),
    dialects: DIALECTS,
    stateDir: join(dir, state),
    stopGraceMs: 1000,
    ttlMs: 3_600_000,
    ptyWorkers: 1,
    screenWorkers: 1,
  });
  daemons.push(d);
  return d;
}

const fresh = () => (dir = mkdtempSync(join(tmpdir(), "termd-daemon-")));

/** A fresh daemon, a client of it, and a session whose program printed "up" and then runs `then`. */
async function upAndRunning(then: string) {
  fresh();
  const d = await start();
  const c = await connect(join(dir, "termd.sock"));
  const s = await c.call("session.create", { command: ["sh", "-c", `echo up; exec ${then}`] });
  await c.call("session.wait", { session: s.id, text: "up" });
  return { d, c, s };
}

test("a second daemon on the same socket, or on the same state dir, is refused, naming who holds it", async () => {
  fresh();
  await start();
  await expect(start()).rejects.toThrow(`a termd daemon (pid ${process.pid}) already runs on ${join(dir, "termd.sock")}`);
  await expect(start("other.sock")).rejects.toThrow(`another termd daemon (pid ${process.pid}) uses the state dir ${join(dir, "state")}`);
  // The refused starts left the first serving.
  const c = await connect(join(dir, "termd.sock"));
  expect((await c.call("system.ping")).pid).toBe(process.pid);
  c.close();
});

test("shutdown ends every session's program, removes the socket and lets go of the locks: the next daemon starts on the same paths", async () => {
  const { d, c, s } = await upAndRunning("sleep 100");
  const pid = (await c.call("session.info", { session: s.id })).pid!;
  expect(d.connections.size).toBe(1);
  await d.shutdown(1000);
  await d.stopped.promise;
  c.close();
  expect(alive(pid)).toBe(false);
  expect(existsSync(join(dir, "termd.sock"))).toBe(false);

  const next = await start();
  const again = await connect(join(dir, "termd.sock"));
  // The session is remembered from the state dir, ended.
  expect((await again.call("session.info", { session: s.id })).state).not.toBe("running");
  again.close();
  expect(next.stopping).toBe(false);
});

test("a dialect's state is kept per session and dialect, and goes with its session", async () => {
  fresh();
  const d = await start();
  const c = await connect(join(dir, "termd.sock"));
  const s = await c.call("session.create", { name: "kept", command: ["cat"] });
  const state = d.dialectState("kept", "ralph", () => ({ interactive: true }));
  expect(d.dialectState(s.id, "ralph", () => ({ interactive: false }))).toBe(state);
  expect(d.dialectState("kept", "console", () => ({ other: 1 }))).toEqual({ other: 1 });
  await c.call("session.remove", { session: "kept", force: true });
  const gone = (() => {
    try {
      d.dialectState(s.id, "ralph", () => ({}));
    } catch (err) {
      return err;
    }
  })();
  expect(gone).toMatchObject({ code: "SESSION_NOT_FOUND" });
  // A new session under the same name starts with none.
  await c.call("session.create", { name: "kept", command: ["cat"] });
  expect(d.dialectState("kept", "ralph", () => ({ interactive: false }))).toEqual({ interactive: false });
  c.close();
});

// Regression: while a handover said its farewell, dispatch refused every native call, those of an
// operation that had come before too: the console's replace, cut after its stop, left its key
// with no session. A request is refused where it comes in (connection.ts, daemon-web-host.ts).
test("a dialect's operation under way when a handover's farewell starts makes its native calls to the end", async () => {
  fresh();
  const d = await start();
  const dialect = d.dialects.named("console")!;
  const peer = d.addPeer(NO_OUTLET);
  const native = nativeCaller(d, peer, dialect, { send: () => {}, end: () => {} });
  const create = { cmd: "create", key: "k", command: "exec sleep 100", log_path: join(dir, "k.log") };
  const first = await dialect.open(native).handle(create);
  // The farewell starts once the replace has looked at what the key has: its stop, remove and create come after.
  const farewellMidway: NativeCaller = {
    ...native,
    call: async (method, params) => {
      const result = await native.call(method, params);
      if (method === "session.info") d.farewell = new RpcError("DAEMON_REPLACED", "the daemon is being replaced");
      return result;
    },
  };
  const replaced = await dialect.open(farewellMidway).handle(create);
  d.farewell = null;
  expect(replaced).toMatchObject({ ok: true });
  expect((replaced as { pid: number }).pid).not.toBe((first as { pid: number }).pid);
  expect(d.store.get("k").state).toBe("running");
});

// Regression: the journal's line for the last output was found in the file whenever its batch's
// LATER_MS had passed, flush or not. Here the daemon closes in the turn the output arrives, before
// any timer can run: only close's flush can write it.
test("close writes the journals' put-off lines: the last output's line reaches the file", async () => {
  const { d, c, s } = await upAndRunning("cat");
  const { stream } = d.store.get(s.id);
  const journal = journalPathOf(stream.logPath);
  const outputLines = () =>
    readFileSync(journal, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("o "))
      .map((l) => Number(l.split(" ")[2]));
  const closed = new Promise<{ end: number; before: number[] }>((resolve) => {
    const off = stream.on((e) => {
      if (e.type !== "output") return;
      off();
      // The journal heard of it first (it listens since the session began) and put its line off.
      queueMicrotask(() => {
        const before = outputLines();
        d.close();
        resolve({ end: e.to, before });
      });
    });
  });
  await c.call("session.input", { session: s.id, text: "echoed" });
  const { end, before } = await closed;
  c.close();
  expect(before).not.toContain(end);
  expect(outputLines().at(-1)).toBe(end);
});

test("each daemon has its own request-line parser, and its close ends that one's worker", async () => {
  fresh();
  const [a, b] = [await start("a.sock", "a"), await start("b.sock", "b")];
  expect(a.lineParser).not.toBe(b.lineParser);
  const c = await connect(join(dir, "a.sock"));
  // A line long enough to be parsed in a's worker.
  expect((await c.call("system.ping", { pad: "x".repeat(LINE_OFF_THREAD) } as never)).pid).toBe(process.pid);
  expect([a.lineParser.running, b.lineParser.running]).toEqual([true, false]);
  c.close();
  a.close();
  expect(a.lineParser.running).toBe(false);
  expect(await a.lineParser.parseBody([Buffer.from(`"${"x".repeat(LINE_OFF_THREAD)}"`)])).toEqual({
    malformed: "the daemon is shutting down",
  });
});
