// 10. Many sessions: thousands of `cat` sessions, every screen read, then SIGTERM to the server.
import { inPool, until } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { fdLimit } from "./helpers.ts";
import { verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { alive } from "../common/daemon-process.ts";
import { MB, f1, f2, fdCount, mb, rssBytes, table } from "../common/measure.ts";

interface Many {
  n: number;
  created: number;
  firstError: string;
  createMs: number;
  answered: number;
  readMs: number;
  rssBefore: number;
  rssAfter: number;
  fdsBefore: number;
  fdsAfter: number;
  fdLimit: string;
  stopMs: number;
  /** Programs still running once the server had exited. */
  left: number;
}

const MANY_WIDTH = 20;
/** What the daemon opens once, on its first sessions (a log folder, its threads' pipes), counted with them. */
const DAEMON_FDS = 50;

/** The process's descriptor count once it has not changed for 1.5 s (at most 15 s). */
async function settledFdCount(pid: number): Promise<number> {
  let last = fdCount(pid);
  for (let since = performance.now(), end = since + 15_000; performance.now() < end && performance.now() - since < 1500; ) {
    await Bun.sleep(100);
    const now = fdCount(pid);
    if (now !== last) [last, since] = [now, performance.now()];
  }
  return last;
}

async function termdMany(dir: string, n: number): Promise<Many> {
  const d = await startDaemon(dir, `many${n}`, 65536);
  const pid = d.proc.pid;
  const c = d.client;
  await Bun.sleep(500);
  const rssBefore = rssBytes(pid);
  const fdsBefore = fdCount(pid);
  const ids: string[] = [];
  const pids: number[] = [];
  let firstError = "";
  const t0 = performance.now();
  await inPool(n, MANY_WIDTH, async () => {
    try {
      const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
      ids.push(info.id);
      if (info.pid !== null) pids.push(info.pid);
    } catch (err) {
      firstError ||= (err as Error).message;
    }
  });
  const createMs = performance.now() - t0;
  let answered = 0;
  const t1 = performance.now();
  await inPool(ids.length, MANY_WIDTH, async (i) => {
    try {
      await c.call("session.screen", { session: ids[i]! });
      answered++;
    } catch (err) {
      firstError ||= (err as Error).message;
    }
  });
  const readMs = performance.now() - t1;
  const rssAfter = rssBytes(pid);
  // Idle: a session's log and journal close after 1 s without output (append-file.ts).
  const fdsAfter = await settledFdCount(pid);
  const limit = fdLimit(pid);
  // As a container runtime or systemd stops it.
  const t2 = performance.now();
  d.proc.kill("SIGTERM");
  const killer = setTimeout(() => d.proc.kill("SIGKILL"), 120_000);
  await d.proc.exited;
  clearTimeout(killer);
  const stopMs = performance.now() - t2;
  const left = pids.filter(alive).length;
  await d.stop();
  return {
    n,
    created: ids.length,
    firstError,
    createMs,
    answered,
    readMs,
    rssBefore,
    rssAfter,
    fdsBefore,
    fdsAfter,
    fdLimit: limit,
    stopMs,
    left,
  };
}

async function tmuxMany(n: number): Promise<Many> {
  const t = new Tmux();
  try {
    t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", "cat");
    const pid = t.serverPid();
    await Bun.sleep(500);
    const rssBefore = rssBytes(pid);
    const fdsBefore = fdCount(pid);
    let firstError = "";
    const t0 = performance.now();
    for (const r of t.chained(1, n, 50, (j) => ["new-session", "-d", "-s", `s${j}`, "-x", "80", "-y", "24", "cat"])) {
      if (r.code !== 0) firstError ||= r.stderr.trim();
    }
    const createMs = performance.now() - t0;
    const pids = t.ok("list-panes", "-a", "-F", "#{pane_pid}").split("\n").filter(Boolean).map(Number);
    let answered = 0;
    const t1 = performance.now();
    for (const r of t.chained(0, n, 100, (j) => ["display-message", "-p", "-t", `s${j}`, "x", ";", "capture-pane", "-p", "-t", `s${j}`]))
      answered += r.stdout.split("\n").filter((l) => l === "x").length;
    const readMs = performance.now() - t1;
    const rssAfter = rssBytes(pid);
    const fdsAfter = fdCount(pid);
    const limit = fdLimit(pid);
    const t2 = performance.now();
    process.kill(pid, "SIGTERM");
    await until("the tmux server to exit", 120_000, () => (alive(pid) ? undefined : true), 5);
    const stopMs = performance.now() - t2;
    const left = pids.filter(alive).length;
    return {
      n,
      created: pids.length,
      firstError,
      createMs,
      answered,
      readMs,
      rssBefore,
      rssAfter,
      fdsBefore,
      fdsAfter,
      fdLimit: limit,
      stopMs,
      left,
    };
  } finally {
    t.kill();
  }
}

export async function reportMany(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  for (const n of o.many) {
    const termd = await termdMany(dir, n);
    const tmux = o.tmux ? await tmuxMany(n) : null;
    const both = (get: (m: Many) => string) => [get(termd), tmux ? get(tmux) : "—"];
    const stopTarget = n <= 1000 ? 3 : 30;
    const perSession = (m: Many) => (m.created > 0 ? (m.rssAfter - m.rssBefore) / m.created : NaN);
    const fdsPer = (m: Many) => (m.created > 0 ? (m.fdsAfter - m.fdsBefore) / m.created : NaN);
    console.log(`10. Many sessions: ${n} \`cat\` sessions, every screen read, then SIGTERM to the server`);
    console.log(
      table([
        ["", "termd", "tmux", "target"],
        ["created (time, s)", ...both((m) => `${m.created} (${f1(m.createMs / 1000)})`), `${n}`],
        ["screens read (time, s)", ...both((m) => `${m.answered} (${f1(m.readMs / 1000)})`), ""],
        ["RSS, MB (per session)", ...both((m) => `${mb(m.rssAfter)} (${f2(perSession(m) / MB)})`), ""],
        ["descriptors per session (open-file limit)", ...both((m) => `${f1(fdsPer(m))} (${m.fdLimit})`), "≤ 2"],
        ["SIGTERM until the server exited, s", ...both((m) => f2(m.stopMs / 1000)), `≤ ${stopTarget}`],
        ["programs still running after", ...both((m) => String(m.left)), "0"],
      ]),
    );
    for (const [who, m] of [
      ["termd", termd],
      ["tmux", tmux],
    ] as const)
      if (m?.firstError) console.log(`  ${who}: ${m.n - m.created} not created; the first error: ${m.firstError}`);
    console.log();
    verdicts.push([`${n} sessions: all created`, `${termd.created}/${n}`, verdict(termd.created === n)]);
    verdicts.push([
      `${n} sessions stopped in ≤ ${stopTarget} s, none left`,
      `${f2(termd.stopMs / 1000)} s, ${termd.left} left`,
      verdict(termd.stopMs <= stopTarget * 1000 && termd.left === 0),
    ]);
    verdicts.push([
      `${n} sessions: ≤ 2 descriptors each`,
      f1(fdsPer(termd)),
      verdict(termd.fdsAfter - termd.fdsBefore <= 2 * termd.created + DAEMON_FDS),
    ]);
  }
}
