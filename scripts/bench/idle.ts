// 8. Idle sessions: a thousand shells at their prompt, then a screen read of each; memory and CPU meanwhile.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { inPool } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { createAndRead, fdLimit } from "./helpers.ts";
import { PROMPT, tmuxShellServer } from "./memory.ts";
import { NONE, verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { MB, f1, f2, fdCount, mb, rssBytes, table } from "../common/measure.ts";
import { screensParked } from "../common/parked.ts";

export interface Idle {
  /** Sessions that exist, and of those, how many reached their prompt. */
  created: number;
  prompted: number;
  failures: number;
  firstError: string;
  createMs: number;
  /** Sessions whose screen read answered with the prompt on it. */
  answered: number;
  readMs: number;
  before: number;
  after: number;
  /** termd: RSS right after the reads, before the idle screens were parked. */
  active?: number;
  /** termd: how long until every screen was parked, ms. */
  parkMs?: number;
  fdsBefore: number;
  fdsAfter: number;
  fdLimit: string;
  /** The sessions the growth is divided by (a tmux baseline session is not one). */
  added: number;
  baseline: string;
}

const IDLE_WIDTH = 20;

/** One server's part in the run; `measured` takes the figures around it the same way for both. */
interface Server {
  pid: number;
  /** Sessions it had before the run (a tmux server needs one), and what its growth is measured from. */
  pre: number;
  baseline: string;
  /** Starts a shell in each session up to `n`: how many there are, how many reached their prompt, the failures. */
  create(): Promise<{ created: number; prompted: number; failures: number; firstError: string }>;
  /** Reads every screen: how many answered with the prompt, the first error. */
  read(): Promise<{ answered: number; firstError: string }>;
  /** After the reads and a second's quiet, before the memory is taken: termd parks its idle screens. */
  settle?(): Promise<Pick<Idle, "active" | "parkMs">>;
}

async function measured(s: Server): Promise<Idle> {
  const { rssBefore: before, fdsBefore, made, createMs, read, readMs } = await createAndRead(s.pid, s.create, s.read);
  await Bun.sleep(1000);
  const settled = (await s.settle?.()) ?? {};
  return {
    ...made,
    firstError: made.firstError || read.firstError,
    createMs,
    answered: read.answered,
    readMs,
    before,
    after: rssBytes(s.pid),
    ...settled,
    fdsBefore,
    fdsAfter: fdCount(s.pid),
    fdLimit: fdLimit(s.pid),
    added: made.created - s.pre,
    baseline: s.baseline,
  };
}

async function termdIdle(dir: string, n: number): Promise<Idle> {
  // Each session holds a PTY and files: lift the daemon's descriptor limit as far as allowed.
  const d = await startDaemon(dir, "idle", 65536);
  try {
    const c = d.client;
    const pid = d.proc.pid;
    const env = { PS1: PROMPT, HISTFILE: join(dir, "bash_history") };
    // The pty workers start with their first sessions: start each first (one session a core, then
    // removed), so what is measured is the sessions' own memory, not the threads'.
    await Promise.all(
      Array.from({ length: availableParallelism() }, async () => {
        const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
        await c.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 30_000 });
        await c.call("session.remove", { session: info.id, force: true });
      }),
    );
    const ids: string[] = [];
    return await measured({
      pid,
      pre: 0,
      baseline: "fresh daemon",
      async create() {
        let prompted = 0;
        let failures = 0;
        let firstError = "";
        await inPool(n, IDLE_WIDTH, async (i) => {
          try {
            const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
            ids.push(info.id);
            const r = await c.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 30_000 });
            if (r.outcome !== "matched") throw new Error(`bash ${i}: no prompt (${r.outcome})`);
            prompted++;
          } catch (err) {
            failures++;
            firstError ||= (err as Error).message;
          }
        });
        return { created: ids.length, prompted, failures, firstError };
      },
      async read() {
        let answered = 0;
        let firstError = "";
        await inPool(ids.length, IDLE_WIDTH, async (i) => {
          try {
            const s = await c.call("session.screen", { session: ids[i]! });
            if (s.lines[0]?.includes(PROMPT.trim())) answered++;
          } catch (err) {
            firstError ||= (err as Error).message;
          }
        });
        return { answered, firstError };
      },
      async settle() {
        const active = rssBytes(pid);
        // Idle screens are parked after the daemon's --screen-park (5 s): their emulators are freed.
        const parkMs = await screensParked(c, ids.length, 60_000);
        // The workers give the freed memory back after a collection (screen-host.ts).
        await Bun.sleep(3000);
        return { active, parkMs };
      },
    });
  } finally {
    await d.stop();
  }
}

async function tmuxIdle(dir: string, n: number): Promise<Idle> {
  const t = new Tmux();
  try {
    const { shell, baseline, created: pre } = tmuxShellServer(t, dir);
    return await measured({
      pid: t.serverPid(),
      pre,
      baseline,
      async create() {
        let failures = 0;
        let firstError = "";
        for (const r of t.chained(pre, n, 50, (j) => ["new-session", "-d", "-s", `s${j}`, "-x", "80", "-y", "24", shell])) {
          if (r.code !== 0) {
            failures++;
            firstError ||= r.stderr.trim();
          }
        }
        const created = t.ok("list-sessions", "-F", "#{session_name}").split("\n").filter(Boolean).length;
        // A shell at its prompt has the cursor just after it on the first row.
        const atPrompt = () =>
          t
            .ok("list-panes", "-a", "-F", "#{cursor_x},#{cursor_y}")
            .split("\n")
            .filter((l) => l === `${PROMPT.length},0`).length;
        let prompted = atPrompt();
        for (const deadline = performance.now() + 60_000; prompted < created && performance.now() < deadline; prompted = atPrompt())
          await Bun.sleep(20);
        return { created, prompted, failures, firstError };
      },
      async read() {
        let answered = 0;
        for (const r of t.chained(0, n, 100, (j) => ["capture-pane", "-p", "-t", `s${j}`]))
          answered += r.stdout.split(PROMPT.trim()).length - 1;
        return { answered, firstError: "" };
      },
    });
  } finally {
    t.kill();
  }
}

export async function reportIdle(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const n = o.idleSessions;
  const termd = await termdIdle(dir, n);
  const tmux = o.tmux ? await tmuxIdle(dir, n) : undefined;
  const both = (f: (r: Idle) => string) => [f(termd), tmux ? f(tmux) : NONE];
  const perSession = (r: Idle) => (r.after - r.before) / r.added;
  const rows: string[][] = [
    ["", "termd", "tmux", "target"],
    ["sessions created (at their prompt)", ...both((r) => `${r.created} (${r.prompted})`), `all ${n}`],
    ["time to create them, s (ms per session)", ...both((r) => `${f1(r.createMs / 1000)} (${f1(r.createMs / n)})`), ""],
    ["screen reads answered with the prompt", ...both((r) => `${r.answered}/${r.created}`), "each"],
    ["time to read every screen, ms", ...both((r) => f1(r.readMs)), ""],
    ["RSS before → after, MB", ...both((r) => `${mb(r.before)} → ${mb(r.after)}`), ""],
    [
      "termd before its screens were parked: RSS, MB (per session)",
      `${mb(termd.active!)} (${f2((termd.active! - termd.before) / termd.added / MB)})`,
      NONE,
      "",
    ],
    ["termd: time until every screen was parked, s", f1(termd.parkMs! / 1000), NONE, ""],
    ["RSS growth per session, MB", ...both((r) => f2(perSession(r) / MB)), "≤ 0.15 MB"],
    ["file descriptors per session (open-file limit)", ...both((r) => `${f1((r.fdsAfter - r.fdsBefore) / r.added)} (${r.fdLimit})`), ""],
  ];
  console.log(
    `8. Idle sessions: ${n} \`bash --norc --noprofile\` sessions, then a screen read of each (termd: ${IDLE_WIDTH} at a time; tmux: ${tmux?.baseline ?? "—"} before)`,
  );
  console.log(table(rows));
  for (const [who, r] of [
    ["termd", termd],
    ["tmux", tmux],
  ] as const) {
    if (r?.firstError) console.log(`  ${who}: ${r.failures} failed; the first: ${r.firstError}`);
  }
  console.log();
  const all = termd.created === n && termd.prompted === n && termd.answered === n;
  verdicts.push([`idle sessions: all ${n} created, each answers a screen read`, `${termd.answered}/${n}`, verdict(all)]);
  verdicts.push(["idle sessions: ≤ 0.15 MB RSS per session", `${f2(perSession(termd) / MB)} MB`, verdict(perSession(termd) <= 0.15 * MB)]);
}
