// 9. Command line: how long each client command takes, beside the floors under it: a process that
// does nothing, a compiled Bun hello-world, and the least a Bun client of the daemon does.
import { existsSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
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
  argv: string[];
  /** Wall, spawn to exit. */
  ms: number[];
  /** The process's CPU time (user + system): less swayed by other work on the machine than wall time. */
  cpuMs: number[];
  /** Its page faults (median of 5, through /usr/bin/time): the most of a start-up's cost on a VM whose faults trap to the hypervisor. */
  faults?: number;
}

/**
 * Each of `procs` as a whole process, `runs` rounds after 3 unmeasured ones, taken round robin:
 * the machine's load moves between rounds, and a row timed in one stretch after another would
 * carry its own share of it.
 */
function timeProcesses(procs: { what: string; argv: string[] }[], runs: number, env: Record<string, string>): CliTime[] {
  const times: CliTime[] = procs.map((p) => ({ ...p, ms: [], cpuMs: [] }));
  for (let round = 0; round < runs + 3; round++)
    for (const t of times) {
      const start = performance.now();
      const r = Bun.spawnSync(t.argv, { env, stdout: "ignore", stderr: "pipe" });
      const ms = performance.now() - start;
      if (r.exitCode !== 0) throw new Error(`${t.argv.join(" ")}: exit ${r.exitCode}: ${r.stderr.toString().trim().slice(0, 200)}`);
      if (round < 3) continue;
      t.ms.push(ms);
      t.cpuMs.push(Number(r.resourceUsage.cpuTime.total) / 1000);
    }
  if (existsSync("/usr/bin/time"))
    for (const t of times) {
      const counts = Array.from({ length: 5 }, () => {
        const r = Bun.spawnSync(["/usr/bin/time", "-f", "%R", ...t.argv], { env, stdout: "ignore", stderr: "pipe" });
        return Number(r.stderr.toString().trim().split("\n").at(-1));
      });
      t.faults = median(counts);
    }
  return times;
}

/**
 * The least a command-line call of the daemon does on Bun: connect, send `ls`'s two calls (the
 * build check and the list) in one write, print the sessions' names. What termd's own code adds
 * is what `termd ls` takes over this.
 */
const RAW_CLIENT = `const dec = new TextDecoder();
let text = "";
const { promise, resolve } = Promise.withResolvers<void>();
const socket = await Bun.connect({
  unix: process.env.TERMD_SOCKET!,
  socket: {
    data(_s, d) {
      text += dec.decode(d, { stream: true });
      if (text.split("\\n").length > 2) resolve();
    },
    close: () => resolve(),
  },
});
socket.write('{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{}}\\n{"jsonrpc":"2.0","id":2,"method":"session.list","params":{}}\\n');
await promise;
const list = JSON.parse(text.split("\\n")[1]!).result.sessions as { name: string }[];
let out = "";
for (const s of list) out += s.name + "\\n";
await Bun.write(Bun.stdout, out);
socket.end();
`;

/** Compiles `source` as dist/termd is (bytecode, ESM, no .env or bunfig.toml read from the folder it runs in). */
function compileProbe(dir: string, name: string, source: string): string {
  writeFileSync(join(dir, `${name}.ts`), source);
  const out = join(dir, name);
  const flags = ["--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  const b = Bun.spawnSync([process.execPath, "build", ...flags, join(dir, `${name}.ts`), "--outfile", out], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (b.exitCode !== 0) throw new Error(`${name} build failed: ${b.stderr.toString().slice(-500)}`);
  return out;
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
  const hello = compileProbe(dir, "hello", 'console.log("hello");\n');
  const rawClient = compileProbe(dir, "raw-client", RAW_CLIENT);
  const d = await startDaemon(dir, "cli");
  const procs: { what: string; argv: string[] }[] = [];
  let tmux: Tmux | undefined;
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
    for (const [what, args] of commands) procs.push({ what: `termd ${what}`, argv: [termd, ...args] });
    if (has("node")) {
      const npm = await npmLayouts(dir);
      if (npm) {
        procs.push({ what: "npm's termd ls (install script ran)", argv: [npm.installed, "ls"] });
        procs.push({ what: "npm's termd ls (scripts off: launcher)", argv: [npm.launcher, "ls"] });
      }
      procs.push({ what: "node dist/termd-client.mjs ls", argv: ["node", join(ROOT, "dist/termd-client.mjs"), "ls"] });
      await Bun.write(join(dir, "hello.mjs"), 'console.log("hello");\n');
      procs.push({ what: "node hello-world", argv: ["node", join(dir, "hello.mjs")] });
    }
    if (o.tmux) {
      tmux = new Tmux();
      tmux.ok("new-session", "-d", "-s", "s", "cat");
      procs.push({ what: "tmux ls", argv: ["tmux", "-L", tmux.name, "ls"] });
    }
    procs.push({ what: "compiled Bun client: connect, ls's two calls, print", argv: [rawClient] });
    procs.push({ what: "compiled Bun hello-world", argv: [hello] });
    procs.push({ what: "/bin/true", argv: ["/bin/true"] });
    return timeProcesses(procs, o.cliRuns, env);
  } finally {
    tmux?.kill();
    await d.stop();
  }
}

export async function reportCli(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const times = await cliTimes(o, dir);
  const rows: string[][] = [["", "median ms", "min ms", "p90 ms", "CPU ms", "page faults", "target"]];
  for (const t of times) {
    const target = t.what.startsWith("termd ") ? "≤ 10" : t.what.startsWith("npm's termd ls (install") ? "≤ 40" : "";
    const faults = t.faults === undefined || Number.isNaN(t.faults) ? "–" : String(Math.round(t.faults));
    rows.push([t.what, f1(median(t.ms)), f1(Math.min(...t.ms)), f1(percentile(t.ms, 0.9)), f1(median(t.cpuMs)), faults, target]);
  }
  console.log(
    `9. Command line: one call as a whole process, spawn to exit (${o.cliRuns} rounds, round robin; CPU: median; lower is better)`,
  );
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
