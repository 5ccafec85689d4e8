// session.rename and session.restart (termd rename, termd restart [--all-lost]) through a real
// daemon: a session keeps its id, log, clients and size across both; dialects that name sessions
// see the new name.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client, EventMessage } from "../src/client/index.ts";
import { TestDaemon } from "./harness.ts";
import { Lines } from "./lines.ts";
import { pidExit } from "./pid-exit.ts";

test("restart: the recording and the timing journal go on in the same files, on the same clock", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const cast = join(d.dir, "r.cast");
  await c.call("session.create", { name: "r", record: cast, command: ["sh", "-c", "echo run-$RUNS; exit 0"], env: { RUNS: "once" } });
  await c.call("session.wait", { session: "r", exit: true });
  await c.call("session.restart", { session: "r" });
  await c.call("session.wait", { session: "r", exit: true });
  const lines = readFileSync(cast, "utf8").trim().split("\n");
  const events = lines.slice(1).map((l) => JSON.parse(l) as [number, string, string]);
  const output = events
    .filter((e) => e[1] === "o")
    .map((e) => e[2])
    .join("");
  expect(output.match(/run-once/g)?.length).toBe(2);
  expect(output).toContain("restarted at");
  const times = events.map((e) => e[0]);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  // The session's own .cast export, timed by its journal, has both runs too.
  expect((await d.cli(["logs", "r", "--cast"])).stdout.match(/run-once/g)?.length).toBe(2);
});

test("rename: the new name finds the session, the old one is free, a taken or hostile name is refused; console and TRL list the new name", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const a = await c.call("session.create", { name: "a", command: ["cat"] });
  await c.call("session.create", { name: "taken", command: ["cat"] });
  expect(await c.call("session.rename", { session: "a", name: "b" })).toMatchObject({ id: a.id, name: "b" });
  expect((await c.call("session.info", { session: "b" })).id).toBe(a.id);
  await expect(c.call("session.info", { session: "a" })).rejects.toMatchObject({ name: "SESSION_NOT_FOUND" });
  await expect(c.call("session.rename", { session: "b", name: "taken" })).rejects.toMatchObject({ name: "NAME_TAKEN" });
  for (const bad of ["-rf", "..", "a b", "x/y", "tab\t"])
    await expect(c.call("session.rename", { session: "b", name: bad })).rejects.toMatchObject({ name: "INVALID_PARAMS" });
  // Renaming to its own name is no clash; the CLI does the same.
  expect((await d.cli(["rename", "b", "b"])).code).toBe(0);
  expect((await d.cli(["rename", "b", "c"])).code).toBe(0);
  expect((await d.cli(["info", "c"])).stdout).toContain(a.id);
  expect((await d.cli(["rename", "c"])).code).toBe(2);

  const console_ = await Lines.open(d.socket);
  expect(await console_.ask({ cmd: "create", key: "k1", command: "exec cat", log_path: join(d.dir, "k1.log") })).toMatchObject({
    ok: true,
  });
  await c.call("session.rename", { session: "k1", name: "k2" });
  expect((await console_.ask({ cmd: "list" })).sessions.map((s: { key: string }) => s.key)).toEqual(["k2"]);
  expect(await console_.ask({ cmd: "status", key: "k2" })).toEqual({ ok: true, status: "running" });
  console_.close();

  const trl = await Lines.open(d.socket);
  const created = await trl.ask({ id: "1", method: "session.create", params: { name: "t1", working_dir: d.dir } }, (m) => m.id === "1");
  await c.call("session.rename", { session: created.data.session_id, name: "t2" });
  const listed = await trl.ask({ id: "2", method: "session.list" }, (m) => m.id === "2");
  expect(listed.data.sessions.map((s: { name: string }) => s.name)).toEqual(["t2"]);
  trl.close();
});

test("restart: the command runs again with its cwd, env and size in the same session; a marker and a state event say where", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "termd-restart-")));
  const s = await c.call("session.create", {
    name: "r",
    cwd,
    env: { RUN_TAG: "tagged" },
    command: ["sh", "-c", 'echo "run $RUN_TAG in $PWD size $(stty size)"; exec cat'],
  });
  await c.call("session.resize", { session: "r", rows: 30, cols: 100 });
  await c.call("session.wait", { session: "r", text: "run tagged" });
  const watcher = await d.client();
  const events: EventMessage[] = [];
  const twoExits = Promise.withResolvers<void>();
  await watcher.subscribe({ session: "r", events: ["state", "exit"] }, (e) => {
    events.push(e);
    if (events.filter((x) => x.type === "exit").length === 2) twoExits.resolve();
  });

  // Running: stopped first, then started again.
  const info = await c.call("session.restart", { session: "r", grace_ms: 500 });
  expect(info).toMatchObject({ id: s.id, name: "r", state: "running", size: { rows: 30, cols: 100 } });
  expect(info.pid).not.toBe(s.pid);
  await c.call("session.wait", { session: "r", regex: "size 30 100$" });
  const text = (await d.cli(["logs", "r"])).stdout;
  expect(text).toContain(`run tagged in ${cwd} size`);
  // The command as a shell would read it back, as ls and info show it.
  expect(text).toContain(`[termd: sh -c 'echo "run $RUN_TAG in $PWD size $(stty size)"; exec cat' restarted at `);
  expect(text.indexOf("restarted at")).toBeGreaterThan(text.indexOf("run tagged"));
  expect(text.lastIndexOf("run tagged")).toBeGreaterThan(text.indexOf("restarted at"));
  expect(events.map((e) => e.data.state)).toContain("running");

  // Ended: it comes back the same way, from the CLI.
  await c.call("session.stop", { session: "r", grace_ms: 500 });
  const cli = await d.cli(["restart", "r"]);
  expect(cli.stdout).toBe("r: running\n");
  expect((await c.call("session.info", { session: "r" })).state).toBe("running");
  // A watcher that stays is told each run's end: the restart's stop's, then the stop's.
  await twoExits.promise;
});

/** A subscriber's state and exit events of `session`: `told(n)` resolves once `n` came; `seen()` reads them ("exit restarting" for a restart's stop). */
async function endsOf(c: Client, session: string) {
  const events: EventMessage[] = [];
  const waiting: (() => void)[] = [];
  await c.subscribe({ session, events: ["state", "exit"] }, (e) => {
    events.push(e);
    for (const check of waiting.splice(0)) check();
  });
  const told = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (events.length >= n ? resolve() : void waiting.push(check));
      check();
    });
  const seen = () => events.map((e) => (e.type === "exit" ? `exit${e.data.restarting ? " restarting" : ""}` : `${e.data.state}`));
  return { told, seen };
}

test("restart: its stop's exit event says a new run follows (attached terminals stay); a plain stop's and a failed restart's do not", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const cwd = mkdtempSync(join(tmpdir(), "termd-restart-"));
  await c.call("session.create", { name: "r", cwd, command: ["cat"] });
  const { told, seen } = await endsOf(c, "r");

  await c.call("session.restart", { session: "r", grace_ms: 500 });
  await told(3);
  expect(seen()).toEqual(["stopped", "exit restarting", "running"]);
  await c.call("session.stop", { session: "r", grace_ms: 500 });
  await told(5);
  expect(seen().slice(3)).toEqual(["stopped", "exit"]);

  // Running again, then its folder gone: the restart's stop says a run follows, which cannot start.
  await c.call("session.restart", { session: "r" });
  await told(6);
  rmSync(cwd, { recursive: true });
  expect(await c.call("session.restart", { session: "r", grace_ms: 500 }).catch((e: Error) => e.name)).toBe("SPAWN_FAILED");
  await told(9);
  expect(seen().slice(5)).toEqual(["running", "stopped", "exit restarting", "exit"]);
});

test("restart: a restart that fails before it starts the program (its old screen file cannot go) still tells the end stands", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", { name: "r", command: ["cat"] });
  const { told, seen } = await endsOf(c, "r");
  // A folder where the screen file goes: the stop's save of the screen fails quietly, its removal throws.
  mkdirSync(join(d.stateDir, "logs", `${s.id}.screen`, "in-the-way"), { recursive: true });
  await expect(c.call("session.restart", { session: "r", grace_ms: 500 })).rejects.toBeDefined();
  await told(3);
  expect(seen()).toEqual(["stopped", "exit restarting", "exit"]);
  expect((await c.call("session.info", { session: "r" })).state).toBe("stopped");
});

test("restart --all-lost brings back the sessions a killed daemon lost, as they were started", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "lost1", env: { WHO: "first" }, command: ["sh", "-c", "echo hello-$WHO; exec sleep 1000"] });
  await c.call("session.create", { name: "kept", command: ["sh", "-c", "echo bye; exit 3"] });
  await c.call("session.wait", { session: "lost1", text: "hello-first" });
  await c.call("session.wait", { session: "kept", exit: true });
  d.proc.kill("SIGKILL");
  await d.proc.exited;

  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const c2 = await again.client();
  expect((await c2.call("session.info", { session: "lost1" })).state).toBe("lost");
  const r = await again.cli(["restart", "--all-lost"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("lost1: running\n");
  expect((await c2.call("session.info", { session: "kept" })).state).toBe("failed");
  await c2.call("session.wait", { session: "lost1", regex: "^\\[termd: " });
  const out = (await again.cli(["logs", "lost1"])).stdout;
  expect(out.match(/hello-first/g)).toHaveLength(2);
  expect((await again.cli(["restart", "--all-lost", "kept"])).code).toBe(2);
});

test("restart: its answer comes with the marker in the output; a session removed while it restarts leaves no log and no program", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const other = await d.client();
  const s = await c.call("session.create", { name: "m", command: ["sh", "-c", "echo run; exec sleep 30"] });
  await c.call("session.wait", { session: "m", text: "run" });
  await c.call("session.stop", { session: "m", grace_ms: 200 });
  const before = (await c.call("session.info", { session: "m" })).bytes_out;
  await c.call("session.restart", { session: "m" });
  const marked = await c.call("session.output", { session: "m", from: before });
  expect(Buffer.from(marked.base64, "base64").toString()).toContain("restarted at");

  // Restart and remove at once, from two clients: whichever comes first, nothing is left.
  await c.call("session.stop", { session: "m", grace_ms: 200 });
  const [restarted] = await Promise.allSettled([
    c.call("session.restart", { session: "m" }),
    other.call("session.remove", { session: "m", force: true }),
  ]);
  const pid = restarted.status === "fulfilled" ? restarted.value.pid : null;
  expect((await c.call("session.list")).sessions).toEqual([]);
  // Its program, had it started, is gone once the session is (a kill reaches it at once).
  if (pid) await pidExit(pid, 5000);
  expect(readdirSync(join(d.stateDir, "logs")).filter((f) => f.startsWith(s.id))).toEqual([]);
});
