// termd benchmark: side-by-side figures against tmux and the raw PTY limit, measured in one run.
// A script, not a test:  node_modules/.bin/bun scripts/bench/main.ts [flags]
//
//   --quick          sanity check: 5 MB file, 1 run, 50 / 20 key round trips, 20 idle shells,
//                    a 10 s redraw flood, 50 shells for idle1000
//   --size MB        size of the text file `cat` writes (default 50)
//   --runs N         throughput runs per contender; the median is reported (default 3)
//   --keys N         key round trips per measurement through termd and tmux's control mode (default 300)
//   --tmux-keys N    key round trips through tmux's spawned send-keys + capture-pane (default 100)
//   --sessions N     idle shells for the memory figure (default 100)
//   --redraw-seconds N  how long the redraw section's colour flood runs, per contender (default 60)
//   --idle-sessions N   idle shells for the idle1000 section (default 1000)
//   --many LIST      session counts for the many section (default 1000,10000)
//   --cli-runs N     runs of each command-line call in the cli section; the median is reported (default 30)
//   --only LIST      comma-separated sections to run (default all): throughput, cpu, keys, memory,
//                    parser, isolation, redraw, waits, idle1000, cli, many, lines, fairness,
//                    input, half-close, subscribers, handover
//   --no-tmux        leave out the tmux column (also automatic when tmux is not installed)
//   --help           this text
//
// What is measured:
//   1. Output throughput: `cat FILE` of varied ~80-column printable lines, from start until the
//      program has exited and the screen shows the file's last line. termd: session.create, then
//      session.wait for that line and for the exit. tmux: a private server (-L, -f /dev/null)
//      whose pane runs `cat FILE; tmux wait-for -S CH`, then capture-pane until the last line
//      shows. Raw PTY: `script -qc 'cat FILE' /dev/null > /dev/null` (kernel PTY, no emulator).
//   1b. CPU per MB (cpu): the CPU seconds of the daemon's process (every thread, /proc/PID/stat
//      utime + stime), per MB, for a `cat` until shown of a plain file and of a colour one (each
//      word in its own 256-colour SGR), --size MB each, --runs times; by thread name too. tmux:
//      its server process for the same `cat`.
//   2. Key round trip: one character into a session running `cat` (the tty echoes it) until the
//      screen shows it. termd through the client library; tmux through spawned send-keys +
//      capture-pane (what scripts do) and, for reference, a control-mode client (tmux -C).
//   3. Idle memory: RSS (VmRSS) of a fresh daemon, then with N `bash --norc --noprofile` sessions
//      at their prompt; the same for a tmux server holding N sessions. Children not counted.
//   4. VT parser (src/vt) with a performer that does nothing: plain text, and a stream recorded
//      with termd itself — vim with syntax on paging through this repository's sources at
//      50x160, taken from the session's log — repeated to 20 MB.
//   5. Isolation: a quiet `cat` session's key round trip (p50, p99, max) while another session of
//      the same daemon floods — `yes` of 80-column lines, then a program redrawing the whole 24x80
//      screen in random 256-colour SGR as fast as it can — and with no flood, in the same run.
//      termd: session.input, then session.wait(changed_from). tmux: a control-mode client on a
//      quiet pane while another session of the same server floods. The flood's own write rate
//      (/proc/PID/io wchar) is shown: a server that reads a flood slower has less to do.
//   6. Redraw: the colour-redraw program for --redraw-seconds in a fresh daemon (and a fresh tmux
//      server), the server's RSS sampled every 250 ms: peak growth over the RSS before. The
//      program then stops itself, its last bytes a unique line, and notes the time of its last
//      write: how long after that the screen shows the line (termd: the screen's offset is then the
//      session's bytes_out). tmux: polled with capture-pane, so a few ms of spawning are included.
//   7. Waits: session.wait calls for text that never appears, on a session printing ~50 lines/s:
//      5,000 spread over 10 connections, 4,096 on one connection (the most it may have), and
//      4,096 distinct ones on one connection; meanwhile another `cat` session's key round trip and
//      the daemon's CPU and RSS. Then the connections close: their file descriptors must be released
//      and the daemon must go on answering. No tmux equivalent.
//   8. Idle sessions: --idle-sessions `bash --norc --noprofile` sessions created 20 at a time in a
//      fresh daemon (file-descriptor limit raised as far as allowed), each then asked for its
//      screen; then RSS and descriptors per session. tmux: the same number of sessions in one
//      server, created in batches of commands, each captured with capture-pane.
//   9. Command line: each client command (ls, info, send, screen, wait on a ready session, and
//      --version) run as a whole process, wall time from spawn to exit, through the compiled
//      binary (dist/termd, built first), each beside its floor: a compiled Bun client that makes
//      the same connect and the same two calls and prints their result (floor-client.ts); and
//      `tmux ls` on a server holding one session, /bin/true (a process) and a compiled Bun
//      hello-world (any Bun executable), the Bun programs compiled as dist/termd is. Median, min
//      and p90 wall, median CPU, of --cli-runs rounds taken round robin after 3 unmeasured ones;
//      page faults (median of 5, through /usr/bin/time); each command's figures over its floor's.
//      Then the compiled daemon's RSS with no session, 6 s after it listens (median of 3), its
//      binary first dropped from the page cache and then read through, or left to be faulted in.
//   10. Many sessions: for each count in --many, that many `cat` sessions in a fresh daemon (open-
//      file limit raised as far as allowed), every screen read, then RSS and descriptors per
//      session, then SIGTERM: the time until the daemon has exited, and how many of the programs
//      are still running then. tmux: the same in one server, then kill-server.
//   11. Big request lines: one client (a process of its own) sends a 10 MiB system.ping line,
//      --runs times each of three kinds (a string of escapes, plain ASCII, two-byte characters);
//      meanwhile another client pings one at a time: those pings' round trips, and the big line's.
//   12. Fair shares: a fresh connection pings one at a time (3 s; 1 s with --runs 1) while
//      another process keeps the daemon busy: 4 connections pipelining pings (400 a write, two
//      as fast as the socket takes them, reading every reply), an 8 MiB session.input into `cat >/dev/null` after
//      another (64-byte lines of text), a 1 MiB session.output page (read from the log) after another, a 10 MiB request
//      line after another; and with no other client, in the same daemon. p50 / p99 / max, and how
//      many of the other client's requests were answered meanwhile.
//   13. Input size: one session.input of 1 MiB and of 8 MiB (64-byte lines of text) into `stty
//      raw -echo; cat >/dev/null` until it is answered, --runs times each after an unmeasured
//      1 MiB one: median time, and the daemon's RSS growth over the RSS before (peak sampled
//      every 10 ms; median and largest). Target: 8 MiB within 10x 1 MiB's time, RSS growth
//      within 3x the input.
//   14. Half-close: a client writes 20,000 pings, or a session.wait that times out, or a 1 MiB
//      line, then shuts down its writing side: the replies it reads before the daemon closes.
//   15. Subscribers: the throughput run's `cat` (--size MB, --runs times) in a fresh daemon, from the
//      moment it starts until the screen shows its last line, with 1 and with 16 clients (sockets of
//      the bench's own process) subscribed to the session's output before it starts, each reading
//      everything; and until every one of them has read the last output event. tmux: a fresh server
//      whose pane runs the same `cat`, with 1 and 16 control-mode clients (tmux -C attach) attached,
//      their %output read from pipes, until capture-pane shows the last line and until every client
//      has printed it. The rate with 16 readers over the rate with one, for each; and the CPU time
//      the daemon (every thread) or the tmux server used until every reader had read the end.
//   16. Handover: --idle-sessions shells at their prompt in a fresh daemon, then system.handover
//      (the daemon execs its own build in place): the time from the call until the new image
//      answers, that every session runs on with the same pid, and that each answers a typed line.
//   Sections 5-16 each report a failure as theirs and let the run go on.
//
// Everything it starts (daemons, tmux servers, temp dirs) is removed on exit, also on error or ^C.
// The machine's load average is printed: other work on the machine makes the figures noisy.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { cleanupAll, onCleanup } from "./cleanup.ts";
import { reportCli } from "./cli.ts";
import { startDaemon } from "./daemon.ts";
import { type Options, parseFlags } from "./flags.ts";
import { has, run } from "./helpers.ts";
import { reportIdle } from "./idle.ts";
import { reportHandover } from "./handover.ts";
import { reportIsolation } from "./isolation.ts";
import { reportMany } from "./many.ts";
import { reportRedraw } from "./redraw.ts";
import { section } from "./report.ts";
import { reportSubscribers } from "./subscribers.ts";
import { reportWaits } from "./waits.ts";
import { reportLines } from "./lines.ts";
import { reportFairness } from "./fairness.ts";
import { reportInput } from "./input.ts";
import { reportHalfClose } from "./half-close.ts";
import { f2, table } from "../common/measure.ts";
import { reportThroughput } from "./throughput.ts";
import { reportCpu } from "./cpu.ts";
import { reportParser } from "./parser.ts";
import { reportMemory } from "./memory.ts";
import { reportKeys } from "./keys.ts";

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2));
  for (const p of ["cat", "script", "bash", "vim"]) if (!has(p)) throw new Error(`${p} is not installed; the benchmark needs it`);
  if ((o.only.has("isolation") || o.only.has("redraw")) && !has("python3"))
    throw new Error("python3 is not installed; the redraw flood needs it");
  let tmuxVersion = "";
  if (o.tmux && !has("tmux")) {
    console.log("tmux is not installed (apt-get install tmux): the tmux column is left out.\n");
    o.tmux = false;
  }
  if (o.tmux) tmuxVersion = run(["tmux", "-V"]).stdout.trim();

  const dir = mkdtempSync(join(tmpdir(), "termd-bench-"));
  onCleanup(() => {
    // A daemon that just stopped may still be closing files in there: retry a few times.
    for (let i = 0; i < 5; i++) {
      try {
        return rmSync(dir, { recursive: true, force: true });
      } catch {
        Bun.sleepSync(50);
      }
    }
  });

  const load = () => loadavg().map(f2).join(" ");
  console.log(
    `termd bench — ${cpus().length} CPUs, bun ${Bun.version}${o.tmux ? `, ${tmuxVersion}` : ", no tmux"}, load average ${load()}`,
  );
  console.log(`(figures are noisy when other work runs on the machine)\n`);

  const verdicts: string[][] = [];

  if (o.only.has("throughput") || o.only.has("cpu") || o.only.has("keys")) {
    const d = await startDaemon(dir, "bench");
    try {
      if (o.only.has("throughput")) await reportThroughput(o, d.client, dir, verdicts);
      if (o.only.has("cpu")) await reportCpu(o, d.client, d.proc.pid!, dir);
      if (o.only.has("keys")) await reportKeys(o, d.client, verdicts);
    } finally {
      await d.stop();
    }
  }

  if (o.only.has("memory")) await reportMemory(o, dir, verdicts);
  if (o.only.has("parser")) await reportParser(dir, verdicts);

  const sections: [string, (o: Options, dir: string, verdicts: string[][]) => Promise<void>][] = [
    ["isolation", reportIsolation],
    ["redraw", reportRedraw],
    ["waits", reportWaits],
    ["idle1000", reportIdle],
    ["cli", reportCli],
    ["many", reportMany],
    ["lines", reportLines],
    ["fairness", reportFairness],
    ["input", reportInput],
    ["half-close", reportHalfClose],
    ["subscribers", reportSubscribers],
    ["handover", reportHandover],
  ];
  for (const [name, report] of sections) if (o.only.has(name)) await section(name, verdicts, () => report(o, dir, verdicts));

  if (verdicts.length) {
    console.log("Targets");
    console.log(table(verdicts));
  }
  console.log(`\nload average at the end ${load()}`);
}

try {
  await main();
} catch (err) {
  console.error(`bench failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
} finally {
  await cleanupAll();
}
