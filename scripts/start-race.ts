// Many clients autostarting termd at the same moment on a fresh state dir, round after round:
// every client must be answered, by one daemon, and every losing daemon must have exited.
// `bun scripts/start-race.ts [ROUNDS] [CLIENTS]` (default 20 and 20) prints each round's time;
// test/daemon-start.test.ts runs a few rounds of the same.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RoundResult {
  ms: number;
  /** What went wrong, one line each; empty when the round was clean. */
  faults: string[];
}

/** Runs `argv` with `env` added to this process's, stdin closed; resolves with its exit code and what it wrote. */
export async function run(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = Bun.spawn(argv, {
    env: { ...(process.env as Record<string, string>), ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

export async function startRaceRound(bin: string[], clients: number): Promise<RoundResult> {
  const dir = mkdtempSync(join(tmpdir(), "termd-start-race-"));
  const env = { TERMD_SOCKET: join(dir, "run", "termd.sock"), TERMD_STATE_DIR: join(dir, "state") };
  const faults: string[] = [];
  const t0 = performance.now();
  try {
    const results = await Promise.all(Array.from({ length: clients }, () => run([...bin, "ls", "--json"], env)));
    const ms = performance.now() - t0;
    for (const r of results)
      if (r.code !== 0 || r.stdout !== "[]\n" || r.stderr !== "")
        faults.push(`a client: exit ${r.code}, ${JSON.stringify(r.stdout + r.stderr)}`);
    const stop = await run([...bin, "daemon", "stop"], env);
    if (stop.code !== 0) faults.push(`daemon stop: exit ${stop.code}, ${stop.stderr.trim()}`);
    // A loser its client ended may still be on its way out: a moment for that, never for a daemon.
    const running = () =>
      Bun.spawnSync(["pgrep", "-f", "--", `--state-dir ${env.TERMD_STATE_DIR}`])
        .stdout.toString()
        .trim();
    let left = running();
    for (const until = performance.now() + 2000; left && performance.now() < until; left = running()) await Bun.sleep(20);
    if (left) faults.push(`daemons still running: ${left.split("\n").join(", ")}`);
    return { ms, faults };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 20);
  const clients = Number(process.argv[3] ?? 20);
  const bin = [join(import.meta.dir, "..", "dist", "termd")];
  let bad = 0;
  for (let round = 0; round < rounds; round++) {
    const r = await startRaceRound(bin, clients);
    if (r.faults.length > 0) bad++;
    console.log(
      `round ${round + 1}: ${clients} clients answered in ${r.ms.toFixed(0)} ms${r.faults.length ? `; ${r.faults.join("; ")}` : ""}`,
    );
  }
  console.log(`${rounds - bad} of ${rounds} rounds clean`);
  process.exit(bad === 0 ? 0 : 1);
}
