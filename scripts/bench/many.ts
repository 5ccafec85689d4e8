// 10. Many sessions: thousands of `cat` sessions, every screen read, then SIGTERM to the server.
import { inPool, until } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { createAndRead, fdLimit, timed } from "./helpers.ts";
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

/** One server's part in the run; `measured` takes the figures around it the same way for both. */
interface Server {
  pid: number;
  /** Makes `n` sessions: how many there are, their programs' pids, the first error. */
  create(): Promise<{ created: number; pids: number[]; firstError: string }>;
  /** Reads every screen: how many answered, the first error. */
  read(): Promise<{ answered: number; firstError: string }>;
  /** The server's descriptors once the sessions are in place. */
  fds(): Promise<number>;
  /** SIGTERM, as a container runtime or systemd stops it; resolves once the server has exited. */
  stop(): Promise<void>;
}

async function measured(n: number, s: Server): Promise<Many> {
  const { rssBefore, fdsBefore, made, createMs, read, readMs } = await createAndRead(s.pid, s.create, s.read);
  const rssAfter = rssBytes(s.pid);
  const fdsAfter = await s.fds();
  const limit = fdLimit(s.pid);
  const [, stopMs] = await timed(s.stop);
  return {
    n,
    created: made.created,
    firstError: made.firstError || read.firstError,
    createMs,
    answered: read.answered,
    readMs,
    rssBefore,
    rssAfter,
    fdsBefore,
    fdsAfter,
    fdLimit: limit,
    stopMs,
    left: made.pids.filter(alive).length,
  };
}

async function termdMany(dir: string, n: number): Promise<Many> {
  const d = await startDaemon(dir, `many${n}`, 65536);
  const c = d.client;
  const ids: string[] = [];
  try {
    return await measured(n, {
      pid: d.proc.pid,
      async create() {
        const pids: number[] = [];
        let firstError = "";
        await inPool(n, MANY_WIDTH, async () => {
          try {
            const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
            ids.push(info.id);
            if (info.pid !== null) pids.push(info.pid);
          } catch (err) {
            firstError ||= (err as Error).message;
          }
        });
        return { created: ids.length, pids, firstError };
      },
      async read() {
        let answered = 0;
        let firstError = "";
        await inPool(ids.length, MANY_WIDTH, async (i) => {
          try {
            await c.call("session.screen", { session: ids[i]! });
            answered++;
          } catch (err) {
            firstError ||= (err as Error).message;
          }
        });
        return { answered, firstError };
      },
      // Idle: a session's log and journal close after 1 s without output (append-file.ts).
      fds: () => settledFdCount(d.proc.pid),
      async stop() {
        d.proc.kill("SIGTERM");
        const killer = setTimeout(() => d.proc.kill("SIGKILL"), 120_000);
        await d.proc.exited;
        clearTimeout(killer);
      },
    });
  } finally {
    await d.stop();
  }
}

async function tmuxMany(n: number): Promise<Many> {
  const t = new Tmux();
  try {
    t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", "cat");
    const pid = t.serverPid();
    return await measured(n, {
      pid,
      async create() {
        let firstError = "";
        for (const r of t.chained(1, n, 50, (j) => ["new-session", "-d", "-s", `s${j}`, "-x", "80", "-y", "24", "cat"])) {
          if (r.code !== 0) firstError ||= r.stderr.trim();
        }
        const pids = t.ok("list-panes", "-a", "-F", "#{pane_pid}").split("\n").filter(Boolean).map(Number);
        return { created: pids.length, pids, firstError };
      },
      async read() {
        let answered = 0;
        for (const r of t.chained(0, n, 100, (j) => [
          "display-message",
          "-p",
          "-t",
          `s${j}`,
          "x",
          ";",
          "capture-pane",
          "-p",
          "-t",
          `s${j}`,
        ]))
          answered += r.stdout.split("\n").filter((l) => l === "x").length;
        return { answered, firstError: "" };
      },
      fds: async () => fdCount(pid),
      async stop() {
        process.kill(pid, "SIGTERM");
        await until("the tmux server to exit", 120_000, () => (alive(pid) ? undefined : true), 5);
      },
    });
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
