// termd soak: what a daemon survives, each part in a private daemon of its own.
// A script run outside CI, not a test:  node_modules/.bin/bun scripts/soak/main.ts [flags]  (npm run soak)
//
//   --quick            a short run: 20,000 fuzzed messages, 20 clients x 200 requests,
//                      a 20 MB flood, 100 idle sessions, 20 s of races
//   --seed N           the fuzzer's seed (default: a new one, printed; give it back to replay a run)
//   --messages N       fuzzed messages (default 200000)
//   --clients N        concurrent clients (default 100)
//   --requests N       requests per client (default 1000)
//   --flood-mb N       MB (10^6 bytes) the flooding session writes (default 200)
//   --idle-sessions N  idle shells for the RSS figure (default 1000)
//   --race-seconds N   how long the races run (default 180)
//   --only LIST        comma-separated sections to run (default all): fuzz, clients, orphans,
//                      flood, idle, races
//   --help             this text
//
// What it does:
//   1. fuzz: N lines made by a seeded PRNG, over 8 connections: valid requests, known methods
//      with params of the wrong types, byte mutations of valid requests, truncated JSON, random
//      bytes, invalid UTF-8, huge numbers, deep nesting, unknown methods, odd envelopes, batches,
//      and one line in 500 of 256 KiB to 4 MiB (it goes to the request-line parser's thread).
//      Each connection's first line is a ping, so it speaks the native protocol. Methods that end
//      or start programs (session.stop, session.remove, session.signal, exec.run, session.create)
//      only ever name no session or carry invalid params; system.shutdown is never sent. Replies
//      are counted by code; then the connections close and the daemon must give back their
//      descriptors, answer a ping from the same pid and run a new session; once every session is
//      removed, its RSS 10 s later must be within 60 MB of where it started, its steady RSS within
//      50 MB, and its peak under 400 MB.
//   2. clients: C clients at once, each R requests one after another (system.ping, session.info,
//      session.screen of 4 sessions: two idle shells, a clock printing 20 lines/s, a `cat`):
//      errors, and latency p50 / p99 / max.
//   3. orphans: 3 bash sessions per case, each having started `nohup sleep 1000 &` three times and
//      `sleep 1000 &` once; then session.stop; session.remove with force; and kill -9 of the
//      daemon followed by a new daemon on the same state dir. The processes left in those terminal
//      sessions (their SID, /proc/*/stat field 6) are counted after each: expect 0.
//   4. flood: a session writes `head -c N /dev/urandom | base64` (--flood-mb of output) to 3
//      subscribers: a fast one, a slow one (it stops reading for 800 ms in every second) and one
//      that disconnects every 1.5 s and resubscribes from its last offset, all three kept so
//      until they have every byte. Each one's bytes (sha256) against session.output's paged from
//      0: bytes lost per subscriber, expect 0.
//   5. idle: --idle-sessions `bash --norc --noprofile` sessions at their prompt, then their screens
//      parked (system.screens says so): the daemon's RSS growth per session once it is steady.
//   6. races: 16 connections, each with 4 calls in flight, call create (up to 100×300 with 5,000
//      lines of scrollback, a third of them recorded), remove (force), stop, resize, screenshot
//      (SVG, or PNG at scale 0.5 to 2), screen, subscribe, unsubscribe, input, wait and output on 4
//      session names for --race-seconds. Each connection is closed after 2–10 s, mid-call, and a
//      new one takes its place; one in 4 never reads. Every answer must be a result or a client's
//      error; the daemon must log nothing; once every session is removed, its steady RSS must be
//      within 50 MB of where it started, and its peak under 400 MB.
//   Each section's failure is reported as its own and the run goes on. A summary table ends it;
//   the exit code is 1 if any figure missed what is expected.
//
// Everything it starts (daemons, what their sessions left, the temp dir) is removed on exit, also
// on error or ^C. Nothing touches the user's own daemon: sockets and state dirs are in a temp dir.
import { cpus, loadavg } from "node:os";
import { cleanUp, makeTempDir } from "./cleanup.ts";
import { clients } from "./clients.ts";
import { SECTIONS, parseFlags } from "./flags.ts";
import { flood } from "./flood.ts";
import { fuzz } from "./fuzz.ts";
import { idle } from "./idle.ts";
import { orphans } from "./orphans.ts";
import { races } from "./races.ts";
import { type Summary, section } from "./report.ts";
import { f1, f2, table } from "../common/measure.ts";

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2));
  for (const p of ["bash", "sh", "cat", "head", "base64", "sleep", "nohup"])
    if (!Bun.which(p)) throw new Error(`${p} is not installed; the soak needs it`);
  const dir = makeTempDir();
  const load = () => loadavg().map(f2).join(" ");
  const t0 = performance.now();
  console.log(
    `termd soak${o.quick ? " --quick" : ""}: seed ${o.seed} (replay with --seed ${o.seed}), ${new Date().toISOString()}, ${cpus().length} CPUs, bun ${Bun.version}, load average ${load()}\n`,
  );
  const summary: Summary = [];
  const run = { fuzz, clients, orphans, flood, idle, races };
  for (const name of SECTIONS) if (o.only.has(name)) await section(name, summary, () => run[name as keyof typeof run](o, dir, summary));
  console.log(`Summary (seed ${o.seed}, ${f1((performance.now() - t0) / 1000)} s, load average at the end ${load()})`);
  console.log(table([["", "figure", "expected", ""], ...summary]));
  if (summary.some((r) => r[3] === "FAIL" || r[3] === "MISS")) process.exitCode = 1;
}

try {
  await main();
} catch (err) {
  console.error(`soak failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
