// termd daemon: its errors in this process (none of them runs a daemon), status against a daemon of
// this file's, and a daemon of its own started, restarted with flags and stopped through the real entry.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runInProcess, sharedDaemon, type CliResult } from "../../../test/harness.ts";
import { describeBuild, BUILD } from "../../protocol/version.ts";

const s = sharedDaemon();

test("bad actions and flags are usage errors (2), each saying what is wrong, and start nothing", async () => {
  const cases: [string[], string][] = [
    [["bogus"], "unknown daemon action bogus (stop, restart, status)"],
    [["status", "extra"], "unexpected argument extra"],
    [["--allow-origin", "x"], "--allow-origin goes with --http HOST:PORT"],
    [["--http", "nonsense:x"], '--http needs HOST:PORT or PORT (for 127.0.0.1:PORT), not "nonsense:x"'],
    [["--debug-buffer", "100001"], "--debug-buffer is at most 100000"],
    [["--screen-workers", "65"], "--screen-workers is a whole number from 1 to 64"],
    [["--max-sessions", "0"], "--max-sessions is a whole number, at least 1"],
    [["--ttl", "soon"], '--ttl needs a duration like 90s, 30m, 24h or 2d, not "soon"'],
    [["--url", "http://127.0.0.1:9"], "termd daemon runs a daemon on this machine: give it --socket PATH, not a URL (is TERMD_URL set?)"],
    [["restart", "--grace", "5"], "--grace is how long --stop-sessions gives the sessions; a restart that keeps them stops none"],
    [
      ["restart", "--stop-sessions", "--binary", "x"],
      "--binary names the build a handover execs; --stop-sessions starts this one's daemon instead",
    ],
  ];
  for (const [args, message] of cases) {
    const r = await runInProcess(["daemon", ...args, "--socket", join(s.dir, "none.sock")]);
    expect({ args, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ args, code: 2, line: `termd daemon: ${message}` });
  }
  expect(existsSync(join(s.dir, "none.sock"))).toBe(false);
  // A handover keeps the daemon's argv: flags given to it would be lost, so they are refused.
  const flags = await runInProcess(["daemon", "restart", "--ttl", "1h", "--socket", s.d.socket]);
  expect(flags).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("so --ttl=1h would not take effect; `termd daemon restart --stop-sessions --ttl=1h`"),
  });
});

test("status and stop with no daemon on the socket fail (1) saying so", async () => {
  const none = join(s.dir, "none.sock");
  for (const action of ["status", "stop"])
    expect(await runInProcess(["daemon", action, "--socket", none])).toEqual({
      code: 1,
      stdout: "",
      stderr: `termd daemon ${action}: no daemon answers on ${none}\n`,
    });
});

test("status prints the daemon's build, pid, uptime and sessions; --json all of it and the socket", async () => {
  await s.c.call("session.create", { name: "one", command: ["sleep", "100"], cwd: s.dir });
  const { code, stdout } = await s.d.cli(["daemon", "status"]);
  expect(code).toBe(0);
  expect(stdout.replace(/ up \d+s,/, " up Ns,")).toBe(
    `${describeBuild(BUILD)} pid ${s.d.proc.pid} up Ns, 1/1 sessions running, socket ${s.d.socket}\n`,
  );
  const json = JSON.parse((await runInProcess(["daemon", "status", "--json", "--socket", s.d.socket])).stdout);
  expect(json).toMatchObject({ ...BUILD, pid: s.d.proc.pid, sessions: 1, running: 1, socket: s.d.socket });
});

test("--check-handover prints why this binary cannot take over from a record it cannot read (1)", async () => {
  const r = await runInProcess(["daemon", "--check-handover", join(s.dir, "no-record")]);
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout)).toEqual({
    handover: 1,
    build: BUILD,
    problems: [expect.stringContaining("cannot read the handover record")],
  });
});

test("restart with no daemon starts one; restart --stop-sessions carries its flags and adds those given; stop ends it", async () => {
  const socket = join(s.dir, "own", "termd.sock");
  const env = { TERMD_SOCKET: socket, TERMD_STATE_DIR: join(s.dir, "own-state") };
  const daemon = (args: string[]): Promise<CliResult> => s.d.cli(["daemon", ...args], { env });
  try {
    const started = await daemon(["restart"]);
    expect(started).toMatchObject({ code: 0, stderr: `termd daemon restart: no daemon answers on ${socket}; starting one\n` });
    expect(started.stdout).toMatch(new RegExp(`^termd daemon restart: .* runs on ${socket} \\(pid \\d+\\)\\n$`));
    expect((await daemon(["restart", "--stop-sessions", "--ttl", "2h"])).stdout).toEndWith(" with --ttl=2h\n");
    const again = await daemon(["restart", "--stop-sessions", "--max-sessions", "9"]);
    expect(again.stderr).toContain("has no running sessions.");
    expect(again.stdout).toEndWith(" with --ttl=2h --max-sessions=9\n");
    expect(await daemon(["stop"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await daemon(["status"])).code).toBe(1);
  } finally {
    await daemon(["stop"]);
  }
});
