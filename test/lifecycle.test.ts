// Sessions outlive the daemon's restarts: records in sqlite, output in logs, states that say how
// each one ended, eviction after the TTL, and no child left behind when the daemon dies.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { TestDaemon } from "./harness.ts";
import { alive } from "../src/platform/alive.ts";
import { pidExit } from "./pid-exit.ts";

/** Polls `cond` (eviction, which no event announces) until it holds. */
async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

test("the log holds every byte a flood of random bytes wrote, checksum for checksum", async () => {
  await using d = await TestDaemon.start();
  const file = join(d.dir, "random.bin");
  const random = new Uint8Array(8 * 1024 * 1024);
  for (let i = 0; i < random.length; i += 65536) crypto.getRandomValues(random.subarray(i, i + 65536));
  writeFileSync(file, random);
  const c = await d.client();
  // Raw output mode: the line discipline passes the bytes through unchanged (no \n → \r\n).
  await c.call("session.create", { name: "flood", command: ["bash", "-c", `stty raw -echo -opost; cat ${file}`] });
  expect((await c.call("session.wait", { session: "flood", exit: true, timeout_ms: 60_000 })).outcome).toBe("exited");
  const info = await c.call("session.info", { session: "flood" });
  const log = readFileSync(join(d.stateDir, "logs", `${info.id}.log`));
  const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
  expect(log.length).toBe(8 * 1024 * 1024);
  expect(sha(log)).toBe(sha(readFileSync(file)));
  expect(info.bytes_out).toBe(8 * 1024 * 1024);
});

test("after kill -9 the daemon's children are gone and a new daemon lists its sessions, readable", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "done", command: ["bash", "-c", "printf '\\e]2;the-title\\a'; echo finished-output; exit 4"] });
  const live = await c.call("session.create", { name: "live", command: ["bash", "-c", "echo still-running; exec sleep 1000"] });
  await c.call("session.wait", { session: "done", exit: true });
  await c.call("session.wait", { session: "live", text: "still-running" });

  d.proc.kill("SIGKILL");
  await d.proc.exited;
  await pidExit(live.pid!);

  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const c2 = await again.client();
  const { sessions } = await c2.call("session.list");
  const byName = Object.fromEntries(sessions.map((s) => [s.name, s]));
  expect(byName.done).toMatchObject({ state: "failed", exit_code: 4, title: "the-title" });
  expect(byName.live).toMatchObject({ state: "lost", error: "the daemon ended while the program ran" });
  expect((await c2.call("session.screen", { session: "done" })).lines[0]).toBe("finished-output");
  expect((await c2.call("session.screen", { session: "live" })).lines[0]).toBe("still-running");
  const out = await c2.call("session.output", { session: "live", from: 0 });
  expect(Buffer.from(out.base64, "base64").toString()).toBe("still-running\r\n");
  expect(out.eof).toBe(true);
  // A restored session can be waited on (it has ended) but not typed into.
  expect((await c2.call("session.wait", { session: "live", exit: true })).outcome).toBe("exited");
  await expect(c2.call("session.input", { session: "live", text: "x" })).rejects.toMatchObject({ name: "SESSION_NOT_RUNNING" });
  await c2.call("session.remove", { session: "live" });
  expect(existsSync(join(d.stateDir, "logs", `${live.id}.log`))).toBe(false);
});

test("sessions stopped by daemon stop are listed as stopped after the restart", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "cat", command: ["cat"] });
  expect((await d.cli(["daemon", "stop", "--grace", "200"])).code).toBe(0);
  await d.proc.exited;
  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const info = await (await again.client()).call("session.info", { session: "cat" });
  expect(info).toMatchObject({ state: "stopped", signal: "SIGHUP", exit_code: 129 });
});

test("ended sessions are evicted once the TTL has passed; running ones are kept", async () => {
  await using d = await TestDaemon.start({ args: ["--ttl", "200ms"] });
  const c = await d.client();
  await c.call("session.create", { name: "short", command: ["true"] });
  await c.call("session.create", { name: "long", command: ["cat"] });
  await c.call("session.wait", { session: "short", exit: true });
  await until(async () => (await c.call("session.list")).sessions.length === 1, "eviction");
  expect((await c.call("session.list")).sessions.map((s) => s.name)).toEqual(["long"]);
});

test("every file in the state dir is the owner's alone (0600), the sqlite database's WAL included", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "m", command: ["true"] });
  await c.call("session.wait", { session: "m", exit: true });
  const files = [
    ...readdirSync(d.stateDir).map((f) => join(d.stateDir, f)),
    ...readdirSync(join(d.stateDir, "logs")).map((f) => join(d.stateDir, "logs", f)),
  ];
  const modes = Object.fromEntries(
    files.filter((f) => statSync(f).isFile()).map((f) => [basename(f), (statSync(f).mode & 0o777).toString(8)]),
  );
  expect(Object.keys(modes)).toContain("termd.sqlite-wal");
  for (const mode of Object.values(modes)) expect(mode).toBe("600");
});

test("a daemon that starts after another died ends what that one's lost sessions left running, and nothing else", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // A shell whose nohup'ed child outlives the hangup the dead daemon's terminal gives it. The child
  // prints its pid itself once nohup ignores the hangup (the shell's echo of $! could come before,
  // and the hangup then ended it), whole (a read that split the number cannot match).
  const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await c.call("session.input", {
    session: s.id,
    text: "nohup sh -c 'echo child-$$-end >/dev/tty; exec sleep 1000' >/dev/null 2>&1 &\r",
  });
  const w = await c.call("session.wait", { session: s.id, regex: "child-[0-9]+-end", timeout_ms: 10_000 });
  const child = Number(/child-([0-9]+)-end/.exec(w.match!.text)![1]);
  // A process of another terminal session, started by us: a new daemon must not touch it.
  const bystander = Bun.spawn(["setsid", "sleep", "1000"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    d.proc.kill("SIGKILL");
    await d.proc.exited;
    await pidExit(s.pid!);
    expect(alive(child)).toBe(true);
    await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
    await again.client();
    await pidExit(child);
    expect(alive(bystander.pid)).toBe(true);
  } finally {
    bystander.kill("SIGKILL");
    await bystander.exited;
  }
});

test("an ended session's final screen is kept beside its log: a restart shows it without re-reading the log", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", {
    command: ["bash", "-c", "printf 'first line\\r\\n\\e[1;31msecond\\e[0m line\\r\\nthird\\e[2;3H'"],
    rows: 10,
    cols: 40,
  });
  await c.call("session.wait", { session: s.id, exit: true });
  const before = await c.call("session.screen", { session: s.id, format: "ansi" });
  expect(before.lines[0]).toBe("first line");
  expect((await d.cli(["daemon", "stop"])).code).toBe(0);
  await d.proc.exited;
  // Were the log parsed again, this would show on the restored screen.
  const log = join(d.stateDir, "logs", `${s.id}.log`);
  const bytes = readFileSync(log);
  bytes.write("CORRUPT", 0);
  writeFileSync(log, bytes);
  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const after = await (await again.client()).call("session.screen", { session: s.id, format: "ansi" });
  expect({ lines: after.lines, cursor: after.cursor }).toEqual({ lines: before.lines, cursor: before.cursor });
  expect(after.ansi).toMatch(/\x1b\[(31;1|1;31)msecond/);
});

test("a lost session's screen is rebuilt from no more of its log than its screen and scrollback show", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const live = await c.call("session.create", {
    command: ["bash", "-c", "seq 1 300; echo end-of-seq; exec sleep 1000"],
    rows: 5,
    cols: 40,
    scrollback: 10,
  });
  await c.call("session.wait", { session: live.id, text: "end-of-seq" });
  const before = await c.call("session.screen", { session: live.id, scrollback: 10 });
  d.proc.kill("SIGKILL");
  await d.proc.exited;
  await pidExit(live.pid!);
  // Parsed, the log's first bytes would now set a two-row scroll region and change the whole
  // screen; they lie long before the last 15 lines, so a rebuild from the tail never reads them.
  const log = join(d.stateDir, "logs", `${live.id}.log`);
  const bytes = readFileSync(log);
  bytes.write("\x1b[1;2r", 0);
  writeFileSync(log, bytes);
  await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir });
  const after = await (await again.client()).call("session.screen", { session: live.id, scrollback: 10 });
  expect(after.lines).toEqual(before.lines);
  expect(after.lines.at(-2)).toBe("end-of-seq");
});
