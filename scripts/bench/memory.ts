// 3. Idle memory: RSS per idle shell, termd's daemon beside tmux's server.
import { join } from "node:path";
import { until } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import { sh } from "./helpers.ts";
import { Tmux } from "./tmux.ts";
import { rssBytes } from "../common/measure.ts";
import { verdict } from "./report.ts";
import type { Options } from "./flags.ts";
import { MB, f2, mb, table } from "../common/measure.ts";

export const PROMPT = "bench-ready$ ";

async function termdMemory(dir: string, n: number): Promise<{ before: number; after: number; children: number }> {
  const d = await startDaemon(dir, "memory");
  try {
    const pid = (await d.client.call("system.ping")).pid;
    if (pid !== d.proc.pid) throw new Error(`daemon pid ${pid} is not the spawned process ${d.proc.pid}`);
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const env = { PS1: PROMPT, HISTFILE: join(dir, "bash_history") };
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const info = await d.client.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
      ids.push(info.id);
      const r = await d.client.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 10_000 });
      if (r.outcome !== "matched") throw new Error(`termd bash ${i}: no prompt (${r.outcome})`);
    }
    await Bun.sleep(1000);
    const after = rssBytes(pid);
    let children = 0;
    for (const id of ids) {
      const info = await d.client.call("session.info", { session: id });
      if (info.pid) children += rssBytes(info.pid);
    }
    return { before, after, children };
  } finally {
    await d.stop();
  }
}

async function tmuxMemory(dir: string, n: number): Promise<{ before: number; after: number; baseline: string }> {
  const t = new Tmux();
  try {
    const { shell, baseline, created } = tmuxShellServer(t, dir);
    const pid = t.serverPid();
    await Bun.sleep(500);
    const before = rssBytes(pid);
    for (let i = created; i < n; i++) {
      t.ok("new-session", "-d", "-s", `s${i}`, "-x", "80", "-y", "24", shell);
    }
    for (let i = 0; i < n; i++) {
      await until(
        `tmux bash ${i} prompt`,
        10_000,
        () => (t.ok("capture-pane", "-p", "-t", `s${i}`).includes(PROMPT.trim()) ? true : undefined),
        5,
      );
    }
    await Bun.sleep(1000);
    return { before, after: rssBytes(pid), baseline };
  } finally {
    t.kill();
  }
}

/**
 * A tmux server to measure sessions against, and the shell command its sessions run.
 * A server with no session at all, kept alive by exit-empty off; falls back to one session, s0.
 */
export function tmuxShellServer(t: Tmux, dir: string): { shell: string; baseline: string; created: number } {
  // tmux 3.3's new-session -e does not reach the pane's command here; env(1) execs bash.
  const shell = `env PS1=${sh(PROMPT)} HISTFILE=${sh(join(dir, "bash_history"))} bash --norc --noprofile`;
  const r = t.cmd("start-server", ";", "set-option", "-g", "exit-empty", "off");
  if (r.code === 0 && !t.cmd("list-sessions").stderr.includes("no server")) return { shell, baseline: "empty server", created: 0 };
  t.ok("new-session", "-d", "-s", "s0", "-x", "80", "-y", "24", shell);
  return { shell, baseline: "server with 1 session", created: 1 };
}

/** 3. Idle memory per session: termd's daemon and tmux's server. */
export async function reportMemory(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const n = o.sessions;
  const t = await termdMemory(dir, n);
  const perT = (t.after - t.before) / n;
  const rows: string[][] = [["", "before MB", "after MB", "per session MB"]];
  rows.push(["termd daemon (fresh, no sessions before)", mb(t.before), mb(t.after), f2(perT / MB)]);
  if (o.tmux) {
    const x = await tmuxMemory(dir, n);
    const added = x.baseline === "empty server" ? n : n - 1;
    rows.push([`tmux server (${x.baseline} before)`, mb(x.before), mb(x.after), f2((x.after - x.before) / added / MB)]);
  }
  console.log(`3. Idle memory: RSS with ${n} \`bash --norc --noprofile\` sessions at their prompt (children not counted)`);
  console.log(table(rows));
  console.log(`  (the ${n} bash children themselves: ${mb(t.children)} MB, the same under either)\n`);
  verdicts.push([`< 3 MB per idle session`, `${f2(perT / MB)} MB`, verdict(perT < 3 * MB)]);
}
