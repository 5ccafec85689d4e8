// 9. Command line: how long each client command takes, beside the floors under it: a process that
// does nothing, a compiled Bun hello-world, and, per command, the least a Bun client of the daemon
// does to make the same calls (floor-client.ts). The target is a command within 3 ms of its floor.
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "./daemon.ts";
import { idleDaemonRss } from "./idle-daemon.ts";
import type { Options } from "./flags.ts";
import { verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { childEnv } from "../common/daemon-process.ts";
import { MB, ROOT, f1, median, mb, percentile, table } from "../common/measure.ts";
import { COMPILE_FLAGS } from "../compile.ts";

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

/** Compiles `entry` as dist/termd is (scripts/compile.ts's flags) into DIR/NAME. */
function compileProbe(dir: string, name: string, entry: string): string {
  const out = join(dir, name);
  const b = Bun.spawnSync([process.execPath, "build", ...COMPILE_FLAGS, entry, "--outfile", out], { stdout: "ignore", stderr: "pipe" });
  if (b.exitCode !== 0) throw new Error(`${name} build failed: ${b.stderr.toString().slice(-500)}`);
  for (const f of readdirSync(dir)) if (f.endsWith(".map")) rmSync(join(dir, f));
  return out;
}

/** Each client command with the floor's arguments for the same calls (floor-client.ts). */
const CLIENT_COMMANDS: { what: string; args: string[]; floor: string[] }[] = [
  { what: "ls", args: ["ls"], floor: ["ls"] },
  { what: "info s", args: ["info", "s"], floor: ["info", "s"] },
  { what: "send s --text x", args: ["send", "s", "--text", "x"], floor: ["send", "s", "x"] },
  { what: "screen s", args: ["screen", "s"], floor: ["screen", "s"] },
  { what: "wait s --text ready", args: ["wait", "s", "--text", "ready"], floor: ["wait", "s", "ready"] },
];
const FLOOR = "the floor: compiled Bun client, same calls";

async function cliTimes(o: Options, dir: string): Promise<CliTime[]> {
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts")], { stdout: "ignore", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString().slice(-500)}`);
  writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
  const hello = compileProbe(dir, "hello", join(dir, "hello.ts"));
  const floor = compileProbe(dir, "floor-client", join(import.meta.dir, "floor-client.ts"));
  const d = await startDaemon(dir, "cli");
  const procs: { what: string; argv: string[] }[] = [];
  let tmux: Tmux | undefined;
  try {
    const env = { ...childEnv(), TERMD_SOCKET: d.socket };
    await d.client.call("session.create", { name: "s", command: ["cat"] });
    await d.client.call("session.input", { session: "s", text: "ready\n" });
    await d.client.call("session.wait", { session: "s", text: "ready" });
    const termd = join(ROOT, "dist/termd");
    procs.push({ what: "termd --version", argv: [termd, "--version"] });
    for (const c of CLIENT_COMMANDS) {
      procs.push({ what: `termd ${c.what}`, argv: [termd, ...c.args] });
      procs.push({ what: `${FLOOR}: ${c.what}`, argv: [floor, ...c.floor] });
    }
    if (o.tmux) {
      tmux = new Tmux();
      tmux.ok("new-session", "-d", "-s", "s", "cat");
      procs.push({ what: "tmux ls", argv: ["tmux", "-L", tmux.name, "ls"] });
    }
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
  const rows: string[][] = [["", "median ms", "min ms", "p90 ms", "CPU ms", "page faults"]];
  const known = (n: number | undefined): n is number => n !== undefined && !Number.isNaN(n);
  const faultsOf = (t: CliTime) => (known(t.faults) ? String(Math.round(t.faults)) : "–");
  for (const t of times)
    rows.push([t.what, f1(median(t.ms)), f1(Math.min(...t.ms)), f1(percentile(t.ms, 0.9)), f1(median(t.cpuMs)), faultsOf(t)]);
  console.log(
    `9. Command line: one call as a whole process, spawn to exit (${o.cliRuns} rounds, round robin; CPU: median; lower is better)`,
  );
  console.log(table(rows) + "\n");
  // Each command against the floor that makes its calls, in the same rounds.
  const over: string[][] = [["termd over its floor", "median ms", "min ms", "CPU ms", "page faults", "target ≤ +3 ms (median)"]];
  const plus = (x: number, digits = f1) => (x >= 0 ? "+" : "") + digits(x);
  let worst = Number.NEGATIVE_INFINITY;
  for (const c of CLIENT_COMMANDS) {
    const t = times.find((x) => x.what === `termd ${c.what}`)!;
    const f = times.find((x) => x.what === `${FLOOR}: ${c.what}`)!;
    const gap = median(t.ms) - median(f.ms);
    worst = Math.max(worst, gap);
    const faults = known(t.faults) && known(f.faults) ? plus(t.faults - f.faults, (x) => String(Math.round(x))) : "–";
    over.push([
      c.what,
      plus(gap),
      plus(Math.min(...t.ms) - Math.min(...f.ms)),
      plus(median(t.cpuMs) - median(f.cpuMs)),
      faults,
      verdict(gap <= 3),
    ]);
  }
  console.log(table(over) + "\n");
  verdicts.push(["every client command ≤ its floor + 3 ms (median, the widest gap)", `${f1(worst)} ms`, verdict(worst <= 3)]);

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
