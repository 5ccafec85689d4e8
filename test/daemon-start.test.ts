// Starting the daemon the way clients and test suites do: after a killed daemon whose pid now
// belongs to someone else, in fresh PID namespaces one after another, and many clients at once on
// a fresh state dir. Each start must end with one daemon serving and every client answered.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_BIN, SOURCE_BIN, TestDaemon } from "./harness.ts";
import { run, startRaceRound } from "../scripts/start-race.ts";

const DAEMON_RUNNING = 5;
const STATE_DIR_HELD = 6;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "termd-start-"));
}

/** Resolves once the daemon says it listens; throws with what it said if it exits first. */
async function listening(daemon: { stderr: ReadableStream<Uint8Array> }, what: string): Promise<void> {
  const reader = daemon.stderr.getReader();
  let said = "";
  while (!said.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${what}: the daemon did not start: ${said}`);
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
}

test("a killed daemon's lock naming a pid that now belongs to another process does not stop the next start", async () => {
  await using d = await TestDaemon.start({ bin: DIST_BIN });
  d.proc.kill("SIGKILL");
  await d.proc.exited;
  // The pid comes back as someone else's: a reboot, a container, a PID namespace.
  await using squatter = Bun.spawn(["sleep", "1000"]);
  for (const lock of [`${d.socket}.lock`, join(d.stateDir, "daemon.lock")]) writeFileSync(lock, String(squatter.pid));
  const env = { TERMD_SOCKET: d.socket, TERMD_STATE_DIR: d.stateDir };
  const ls = await run([...DIST_BIN, "ls"], env);
  expect(ls).toMatchObject({ code: 0, stderr: "" });
  const status = await run([...DIST_BIN, "daemon", "status", "--json"], env);
  expect(JSON.parse(status.stdout).pid).not.toBe(squatter.pid);
  // A live daemon is still refused, by the lock alone, named by its pid, with its own exit code.
  const second = await run([...DIST_BIN, "daemon", "--socket", d.socket, "--state-dir", join(d.dir, "other-state")], env);
  expect(second).toMatchObject({
    code: DAEMON_RUNNING,
    stderr: expect.stringContaining(`(pid ${JSON.parse(status.stdout).pid}) already runs on ${d.socket}`),
  });
  expect((await run([...DIST_BIN, "daemon", "stop"], env)).code).toBe(0);
  // Stopped cleanly, it leaves no lock behind.
  expect(existsSync(`${d.socket}.lock`)).toBe(false);
});

test("a client autostarting a daemon on a new socket whose state dir another daemon holds fails with that daemon's message instead of waiting for an answer", async () => {
  await using d = await TestDaemon.start();
  const env = { TERMD_SOCKET: join(d.dir, "other.sock"), TERMD_STATE_DIR: d.stateDir };
  const ls = await run([...SOURCE_BIN, "ls"], env);
  expect(ls.code).toBe(1);
  expect(ls.stderr).toContain(
    `termd ls: another termd daemon (pid ${d.proc.pid}) uses the state dir ${d.stateDir}; give this one its own (--state-dir or TERMD_STATE_DIR)`,
  );
  expect(ls.stderr).not.toContain("did not answer");
  // The daemon that holds it was never disturbed.
  expect((await d.cli(["ls"])).code).toBe(0);
});

test("daemons in fresh PID namespaces, one after another, each killed: every next one starts", async () => {
  const probe = Bun.spawnSync(["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "true"], { stderr: "pipe" });
  if (probe.exitCode !== 0) {
    console.warn(`skipped: this kernel or sandbox refuses a PID namespace (${probe.stderr.toString().trim()})`);
    return;
  }
  const dir = tempDir();
  const env = { TERMD_SOCKET: join(dir, "run", "termd.sock"), TERMD_STATE_DIR: join(dir, "state") };
  try {
    for (let round = 0; round < 3; round++) {
      // Round r starts r sleepers before its daemon, so the pid the last daemon's lock names is
      // alive in this namespace as another process. (`; true` keeps sh from exec-ing the daemon as pid 1.)
      const sleepers = "sleep 1000 & ".repeat(round);
      const ns = Bun.spawn(
        ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", `${sleepers}${DIST_BIN[0]} daemon; true`],
        {
          env: { ...(process.env as Record<string, string>), ...env },
          stdout: "ignore",
          stderr: "pipe",
        },
      );
      await listening(ns, `round ${round}`);
      expect((await run([...DIST_BIN, "ls"], env)).code).toBe(0);
      // kill -9 of the namespace's first process takes every process in it along, the daemon a
      // moment after unshare itself: the next round starts once the daemon's locks are let go
      // (flock(1) waits for each), as it did not once on a loaded machine.
      ns.kill("SIGKILL");
      await ns.exited;
      for (const lock of [`${env.TERMD_SOCKET}.lock`, join(env.TERMD_STATE_DIR, "daemon.lock")])
        expect(await Bun.spawn(["flock", lock, "true"]).exited).toBe(0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("two daemons started at the same moment on a fresh state dir, 5 times over: one serves, the other exits 5 saying why", async () => {
  for (let round = 0; round < 5; round++) {
    const dir = tempDir();
    const env = { TERMD_SOCKET: join(dir, "run", "termd.sock"), TERMD_STATE_DIR: join(dir, "state") };
    try {
      const daemons = [0, 1].map(() =>
        Bun.spawn([...DIST_BIN, "daemon"], {
          env: { ...(process.env as Record<string, string>), ...env },
          stdout: "ignore",
          stderr: "pipe",
        }),
      );
      const loser = await Promise.race(daemons.map(async (p) => (await p.exited, p)));
      const winner = daemons.find((p) => p !== loser)!;
      expect({ round, code: loser.exitCode, stderr: await new Response(loser.stderr).text() }).toMatchObject({
        round,
        code: DAEMON_RUNNING,
        stderr: expect.stringContaining(`(pid ${winner.pid})`),
      });
      // The loser may have given up before the winner listened.
      await listening(winner, `round ${round}`);
      const status = await run([...DIST_BIN, "daemon", "status", "--json"], env);
      expect(JSON.parse(status.stdout).pid).toBe(winner.pid);
      winner.kill("SIGTERM");
      expect(await winner.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

// Each round spawns 40 processes: a few rounds here, 20 in scripts/start-race.ts.
test("20 clients autostarting at once on a fresh state dir, 4 times over: every one is answered by the one daemon", async () => {
  for (let round = 0; round < 4; round++)
    expect({ round, faults: (await startRaceRound(DIST_BIN, 20)).faults }).toEqual({ round, faults: [] });
}, 120_000);

test("relative TERMD_SOCKET and TERMD_STATE_DIR name files in the client's folder, where the autostarted daemon listens", async () => {
  const dir = tempDir();
  const env = { TERMD_SOCKET: "rel.sock", TERMD_STATE_DIR: "state" };
  const inDir = async (args: string[]) => {
    const p = Bun.spawn([...DIST_BIN, ...args], {
      cwd: dir,
      env: { ...(process.env as Record<string, string>), ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  };
  try {
    expect(await inDir(["ls"])).toMatchObject({ code: 0, stderr: "" });
    expect(existsSync(join(dir, "rel.sock"))).toBe(true);
    expect(existsSync(join(dir, "state", "daemon.lock"))).toBe(true);
    // A hooked bash finds its hooks in the state dir from its own folder.
    expect(await inDir(["start", "--name", "sh", "--cwd", "/", "--", "bash", "--norc"])).toMatchObject({ code: 0 });
    // The records' database is made with the first session.
    expect(existsSync(join(dir, "state", "termd.sqlite"))).toBe(true);
    expect(await inDir(["wait", "sh", "--prompt"])).toMatchObject({ code: 0 });
    expect((await inDir(["screen", "sh"])).stdout).not.toContain("No such file");
  } finally {
    await inDir(["daemon", "stop"]);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("termd daemon --http beside a running daemon says how to run it in its place; termd daemon restart keeps the old daemon's flags, with --stop-sessions the ones given replacing theirs, and refuses flags a handover would drop", async () => {
  const dir = tempDir();
  const env = { TERMD_SOCKET: join(dir, "run", "termd.sock"), TERMD_STATE_DIR: join(dir, "state") };
  const flagsNow = async () => JSON.parse((await run([...DIST_BIN, "daemon", "status", "--json"], env)).stdout).flags;
  try {
    // An autostarted daemon, with no flags.
    expect(await run([...DIST_BIN, "ls"], env)).toMatchObject({ code: 0, stderr: "" });
    expect(await flagsNow()).toEqual([]);
    const second = await run([...DIST_BIN, "daemon", "--http", "127.0.0.1:0", "--max-sessions", "50"], env);
    expect(second.code).toBe(DAEMON_RUNNING);
    expect(second.stderr).toContain(
      "To run one with this command's flags in its place: `termd daemon restart --stop-sessions --http=127.0.0.1:0 --max-sessions=50` (it says first what happens to the running sessions); to run this one in the foreground: `termd daemon stop`, then this command again",
    );
    // On another socket, the state dir is what is taken: the message says so, and no restart would help.
    const elsewhere = await run([...DIST_BIN, "daemon", "--socket", join(dir, "other.sock"), "--http", "127.0.0.1:0"], env);
    expect(elsewhere.code).toBe(STATE_DIR_HELD);
    expect(elsewhere.stderr).toContain(`uses the state dir ${join(dir, "state")}`);
    expect(elsewhere.stderr).not.toContain("termd daemon restart");
    // A restart that keeps the sessions keeps the daemon's argv: flags given to it are refused, not dropped.
    let r = await run([...DIST_BIN, "daemon", "restart", "--http", "127.0.0.1:0"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--http=127.0.0.1:0 would not take effect; `termd daemon restart --stop-sessions --http=127.0.0.1:0`");
    expect(await flagsNow()).toEqual([]);
    // So are the flags that only the other way means: --grace without --stop-sessions, --binary with it.
    expect((await run([...DIST_BIN, "daemon", "restart", "--grace", "100"], env)).code).toBe(2);
    expect((await run([...DIST_BIN, "daemon", "restart", "--stop-sessions", "--binary", DIST_BIN[0]!], env)).code).toBe(2);
    r = await run([...DIST_BIN, "daemon", "restart", "--stop-sessions", "--http", "127.0.0.1:0", "--max-sessions", "50"], env);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining(" with --http=127.0.0.1:0 --max-sessions=50\n") });
    expect(await flagsNow()).toEqual(["--http=127.0.0.1:0", "--max-sessions=50"]);
    // Restarted without flags, it keeps them (HTTP served again); a flag given replaces the old one's.
    r = await run([...DIST_BIN, "daemon", "restart", "--stop-sessions", "--max-sessions", "60"], env);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining(" with --http=127.0.0.1:0 --max-sessions=60\n") });
    expect(await flagsNow()).toEqual(["--http=127.0.0.1:0", "--max-sessions=60"]);
    // Handed over in place, the next image runs with the same flags.
    r = await run([...DIST_BIN, "daemon", "restart"], env);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining("running sessions kept") });
    expect(await flagsNow()).toEqual(["--http=127.0.0.1:0", "--max-sessions=60"]);
    const log = readFileSync(join(dir, "state", "daemon.log"), "utf8");
    expect(log.match(/^termd: http on /gm)?.length).toBeGreaterThanOrEqual(2);
  } finally {
    await run([...DIST_BIN, "daemon", "stop"], env);
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
