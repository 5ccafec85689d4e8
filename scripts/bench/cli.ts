// 9. Command line: how long each client command takes, beside a hello-world of the same runtime.
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "./daemon.ts";
import { idleDaemonRss } from "./idle-daemon.ts";
import type { Options } from "./flags.ts";
import { has } from "./helpers.ts";
import { verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { childEnv } from "../common/daemon-process.ts";
import { MB, ROOT, f1, median, mb, percentile, table } from "../common/measure.ts";
import { buildLauncher } from "../pack.ts";
import { hostTarget, packageName } from "../../src/package/targets.ts";

interface CliTime {
  what: string;
  /** Wall, spawn to exit. */
  ms: number[];
  /** The process's CPU time (user + system): less swayed by other work on the machine than wall time. */
  cpuMs: number[];
}

/** `argv` as a whole process, `runs` times after 3 unmeasured runs. */
function timeProcess(what: string, argv: string[], runs: number, env: Record<string, string>): CliTime {
  const once = () => {
    const t = performance.now();
    const r = Bun.spawnSync(argv, { env, stdout: "ignore", stderr: "pipe" });
    const ms = performance.now() - t;
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: exit ${r.exitCode}: ${r.stderr.toString().trim().slice(0, 200)}`);
    return { ms, cpuMs: Number(r.resourceUsage.cpuTime.total) / 1000 };
  };
  for (let i = 0; i < 3; i++) once();
  const all = Array.from({ length: runs }, once);
  return { what, ms: all.map((x) => x.ms), cpuMs: all.map((x) => x.cpuMs) };
}

/**
 * The `termd` command npm links, laid out as npm installs the packages (termd and this platform's
 * @termd/… beside it, the binary a hard link of dist/termd), in two copies: as the launcher left
 * it (install scripts off) and after its install script ran. Returns their `termd` paths.
 */
async function npmLayouts(dir: string): Promise<{ launcher: string; installed: string } | null> {
  const target = hostTarget();
  if (!target) return null;
  const layout = async (name: string) => {
    const modules = join(dir, name, "node_modules");
    const pkg = join(modules, "termd");
    const platform = join(modules, packageName(target));
    mkdirSync(join(platform, "bin"), { recursive: true });
    linkSync(join(ROOT, "dist/termd"), join(platform, "bin", "termd"));
    writeFileSync(join(platform, "package.json"), JSON.stringify({ name: packageName(target) }));
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "termd", type: "module" }));
    await buildLauncher(pkg);
    return pkg;
  };
  const launcher = await layout("npm-scripts-off");
  const installed = await layout("npm-installed");
  const ran = Bun.spawnSync(["node", join(installed, "install.js")], { stdout: "ignore", stderr: "pipe" });
  if (ran.exitCode !== 0 || ran.stderr.length > 0) throw new Error(`the install script failed: ${ran.stderr.toString()}`);
  return { launcher: join(launcher, "bin/termd.js"), installed: join(installed, "bin/termd.js") };
}

async function cliTimes(o: Options, dir: string): Promise<CliTime[]> {
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts")], { stdout: "ignore", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString().slice(-500)}`);
  const hello = join(dir, "hello");
  await Bun.write(join(dir, "hello.ts"), 'console.log("hello");\n');
  const hb = Bun.spawnSync([process.execPath, "build", "--compile", join(dir, "hello.ts"), "--outfile", hello], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (hb.exitCode !== 0) throw new Error(`hello-world build failed: ${hb.stderr.toString().slice(-500)}`);
  const d = await startDaemon(dir, "cli");
  const times: CliTime[] = [];
  try {
    const env = { ...childEnv(), TERMD_SOCKET: d.socket };
    await d.client.call("session.create", { name: "s", command: ["cat"] });
    await d.client.call("session.input", { session: "s", text: "ready\n" });
    await d.client.call("session.wait", { session: "s", text: "ready" });
    const termd = join(ROOT, "dist/termd");
    const commands: [string, string[]][] = [
      ["--version", ["--version"]],
      ["ls", ["ls"]],
      ["info s", ["info", "s"]],
      ["send s --text x", ["send", "s", "--text", "x"]],
      ["screen s", ["screen", "s"]],
      ["wait s --text ready", ["wait", "s", "--text", "ready"]],
    ];
    for (const [what, args] of commands) times.push(timeProcess(`termd ${what}`, [termd, ...args], o.cliRuns, env));
    if (has("node")) {
      const npm = await npmLayouts(dir);
      if (npm) {
        times.push(timeProcess("npm's termd ls (install script ran)", [npm.installed, "ls"], o.cliRuns, env));
        times.push(timeProcess("npm's termd ls (scripts off: launcher)", [npm.launcher, "ls"], o.cliRuns, env));
      }
      times.push(timeProcess("node dist/termd-client.mjs ls", ["node", join(ROOT, "dist/termd-client.mjs"), "ls"], o.cliRuns, env));
      await Bun.write(join(dir, "hello.mjs"), 'console.log("hello");\n');
      times.push(timeProcess("node hello-world", ["node", join(dir, "hello.mjs")], o.cliRuns, env));
    }
    if (o.tmux) {
      const t = new Tmux();
      try {
        t.ok("new-session", "-d", "-s", "s", "cat");
        times.push(timeProcess("tmux ls", ["tmux", "-L", t.name, "ls"], o.cliRuns, env));
      } finally {
        t.kill();
      }
    }
    times.push(timeProcess("compiled Bun hello-world", [hello], o.cliRuns, env));
  } finally {
    await d.stop();
  }
  return times;
}

export async function reportCli(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const times = await cliTimes(o, dir);
  const rows: string[][] = [["", "median ms", "p90 ms", "CPU ms", "target"]];
  for (const t of times) {
    const target = t.what.startsWith("termd ") ? "≤ 10" : t.what.startsWith("npm's termd ls (install") ? "≤ 40" : "";
    rows.push([t.what, f1(median(t.ms)), f1(percentile(t.ms, 0.9)), f1(median(t.cpuMs)), target]);
  }
  console.log(`9. Command line: one call as a whole process, spawn to exit (${o.cliRuns} runs each; lower is better)`);
  console.log(table(rows) + "\n");
  const client = times.filter((t) => t.what.startsWith("termd ") && t.what !== "termd --version");
  const slowest = Math.max(...client.map((t) => median(t.ms)));
  verdicts.push(["every client command ≤ 10 ms (median, slowest)", `${f1(slowest)} ms`, verdict(slowest <= 10)]);
  // The command npm installs: with its install script run, the binary itself (no Node).
  const npm = times.find((t) => t.what.startsWith("npm's termd ls (install"));
  if (npm) verdicts.push(["npm's termd command ≤ 40 ms", `${f1(median(npm.ms))} ms`, verdict(median(npm.ms) <= 40)]);

  // The daemon of the binary just timed, with no session: its binary read into the page cache
  // first (as after an install), and faulted in by the daemon alone.
  const bin = join(ROOT, "dist/termd");
  const read = await idleDaemonRss(bin, true);
  const faulted = await idleDaemonRss(bin, false);
  const idle: string[][] = [["dist/termd daemon, no session, 6 s after it listens", "RSS MB", "of it anonymous MB", "target"]];
  idle.push(["binary read into the page cache first", mb(read.rss), mb(read.anon), "≤ 40"]);
  idle.push(["binary dropped from the page cache first", mb(faulted.rss), mb(faulted.anon), ""]);
  console.log("9b. An idle daemon's memory (median of 3 daemons each)");
  console.log(table(idle) + "\n");
  verdicts.push(["daemon RSS with no sessions ≤ 40 MB (binary read first)", `${mb(read.rss)} MB`, verdict(read.rss <= 40 * MB)]);
}
