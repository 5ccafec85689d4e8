// Which build is which: the daemon reports its build, a CLI of another build says so once, and
// `termd daemon restart` replaces the daemon with the CLI's build, handing the running sessions
// over in place (or, with --stop-sessions, saying first what happens to them and stopping them). The other build is the source run with another commit baked in (Bun's
// --define, as scripts/compile.ts bakes a real one); the CLI is the compiled dist/termd.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIST_BIN, ROOT, TestDaemon } from "./harness.ts";
import { connect } from "../src/client/index.ts";

const OTHER = "0000000000000000000000000000000000000000";
const OTHER_BIN = [process.execPath, "--define", `TERMD_BUILD_COMMIT=${JSON.stringify(OTHER)}`, join(ROOT, "src/cli/main.ts")];

describe("which build", () => {
  if (!existsSync(DIST_BIN[0]!)) throw new Error("dist/termd is missing: run `bun run build` first (npm test does)");
  const dist = JSON.parse(Bun.spawnSync([...DIST_BIN, "--version", "--json"]).stdout.toString());

  test("the daemon reports its build in system.ping, system.stats and daemon status; another build's CLI notes it once; restart --stop-sessions replaces it", async () => {
    await using d = await TestDaemon.start({ bin: OTHER_BIN });
    const c = await d.client();
    const build = { version: dist.version, commit: OTHER, target: "source", bun: Bun.version };
    expect(await c.call("system.ping")).toMatchObject(build);
    expect(await c.call("system.stats")).toMatchObject({ ...build, state_dir: d.stateDir });
    const status = await d.cli(["daemon", "status"], {});
    expect(status.stdout).toStartWith(`termd ${dist.version} (commit 000000000000, source, bun ${Bun.version}) pid ${d.proc.pid} up `);

    await c.call("session.create", { name: "live", command: ["bash", "--norc"] });
    await c.call("session.create", { name: "done", command: ["true"] });
    await c.call("session.wait", { session: "done", exit: true });
    const cli = (args: string[]) => Bun.spawn([...DIST_BIN, ...args], { env: d.env, stdout: "pipe", stderr: "pipe" });
    const ls = cli(["ls"]);
    const [out, err] = await Promise.all([new Response(ls.stdout).text(), new Response(ls.stderr).text(), ls.exited]);
    expect(out).toContain("live");
    expect(err).toBe(
      `termd: note: the daemon on ${d.socket} is termd ${dist.version} (commit 000000000000, source, bun ${Bun.version}); this is termd ${dist.version} (commit ${dist.commit.slice(0, 12)}${dist.commit.slice(40)}, ${dist.target}, bun ${dist.bun}): \`termd daemon restart\` replaces it with this build and keeps your sessions running\n`,
    );
    // The source of the same version is not another build as far as the note goes.
    expect((await d.cli(["ls"])).stderr).toBe("");

    const restart = cli(["daemon", "restart", "--stop-sessions", "--grace", "500"]);
    const [rOut, rErr, code] = await Promise.all([
      new Response(restart.stdout).text(),
      new Response(restart.stderr).text(),
      restart.exited,
    ]);
    try {
      expect(rErr).toContain(
        `the daemon on ${d.socket} (pid ${d.proc.pid}, termd ${dist.version} (commit 000000000000, source, bun ${Bun.version})) has 1 running session: restarting ends its program (SIGHUP and SIGTERM, then SIGKILL after 500 ms)`,
      );
      expect(rErr).toContain("Its 1 ended session is kept as it is.");
      expect(code).toBe(0);
      expect(await d.proc.exited).toBe(0);
      const fresh = await connect(d.socket);
      const ping = await fresh.call("system.ping");
      expect(rOut).toBe(
        `termd daemon restart: termd ${dist.version} (commit ${dist.commit.slice(0, 12)}${dist.commit.slice(40)}, ${dist.target}, bun ${dist.bun}) runs on ${d.socket} (pid ${ping.pid}) with --stop-grace=1000\n`, // the old daemon's flag (harness.ts)
      );
      expect(ping).toMatchObject({ commit: dist.commit, target: dist.target });
      const { sessions } = await fresh.call("session.list");
      expect(sessions.map((s) => [s.name, s.state]).sort()).toEqual([
        ["done", "exited"],
        ["live", "stopped"],
      ]);
      fresh.close();
    } finally {
      const stop = cli(["daemon", "stop"]);
      await stop.exited;
    }
  }, 60_000);

  test("a built CLI notes a daemon run from a checkout (commit dev): another program, though of its version", async () => {
    await using d = await TestDaemon.start();
    const ls = Bun.spawn([...DIST_BIN, "ls"], { env: d.env, stdout: "pipe", stderr: "pipe" });
    const [err, code] = await Promise.all([new Response(ls.stderr).text(), ls.exited]);
    expect(code).toBe(0);
    expect(err).toBe(
      `termd: note: the daemon on ${d.socket} is termd ${dist.version} (commit dev, source, bun ${Bun.version}); this is termd ${dist.version} (commit ${dist.commit.slice(0, 12)}${dist.commit.slice(40)}, ${dist.target}, bun ${dist.bun}): \`termd daemon restart\` replaces it with this build and keeps your sessions running\n`,
    );
  });

  test("restart hands the sessions over to the CLI's build in the same process: status names it, the programs run on, and it hands over again", async () => {
    await using d = await TestDaemon.start({ bin: OTHER_BIN });
    const c = await d.client();
    await c.call("session.create", { name: "live", command: ["bash", "--norc"] });
    const { pid } = await c.call("session.info", { session: "live" });
    const run = async (args: string[]) => {
      const p = Bun.spawn([...DIST_BIN, ...args], { env: d.env, stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { out, err, code };
    };
    const built = `termd ${dist.version} (commit ${dist.commit.slice(0, 12)}${dist.commit.slice(40)}, ${dist.target}, bun ${dist.bun})`;
    for (let round = 0; round < 2; round++) {
      const r = await run(["daemon", "restart"]);
      expect(r.out).toBe(`termd daemon restart: ${built} runs on ${d.socket} (pid ${d.proc.pid}, 1 running session kept)\n`);
      expect(r.code).toBe(0);
      expect((await run(["daemon", "status"])).out).toStartWith(`${built} pid ${d.proc.pid} up `);
      const fresh = await connect(d.socket);
      const info = await fresh.call("session.info", { session: "live" });
      expect([info.pid, info.state]).toEqual([pid, "running"]);
      await fresh.call("session.input", { session: "live", text: `echo round-${round}\r` });
      await fresh.call("session.wait", { session: "live", regex: `^round-${round}$` });
      fresh.close();
    }
  }, 60_000);
});
