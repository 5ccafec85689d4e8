// 5. Idle: sessions that sit at their prompt, and the daemon's RSS growth per session.
import { join } from "node:path";
import { inPool } from "../concurrency.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { steadyRss } from "./helpers.ts";
import { type Summary, kv, n0, ok } from "./report.ts";
import { MB, f1, f2, fdCount, mb, rssBytes } from "../common/measure.ts";
import { screensParked } from "../common/parked.ts";

const IDLE_PROMPT = "soak-ready$ ";

export async function idle(o: Options, dir: string, summary: Summary): Promise<void> {
  const n = o.idleSessions;
  const d = await startDaemon(dir, "idle");
  try {
    const c = d.client;
    const pid = d.proc.pid;
    const before = await steadyRss(pid);
    const fdsBefore = fdCount(pid);
    const env = { PS1: IDLE_PROMPT, HISTFILE: join(dir, "bash_history") };
    let created = 0;
    let prompted = 0;
    let firstError = "";
    const t0 = performance.now();
    await inPool(n, 20, async (i) => {
      try {
        const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
        created++;
        const r = await c.call("session.wait", { session: info.id, text: IDLE_PROMPT.trim(), timeout_ms: 30_000 });
        if (r.outcome !== "matched") throw new Error(`bash ${i}: no prompt (${r.outcome})`);
        prompted++;
      } catch (err) {
        firstError ||= (err as Error).message;
      }
    });
    const createMs = performance.now() - t0;
    const active = rssBytes(pid);
    const parkMs = await screensParked(c, created, 120_000);
    const after = await steadyRss(pid);
    const per = (after - before) / Math.max(1, created);
    console.log(`5. Idle sessions: ${n0(n)} \`bash --norc --noprofile\` sessions at their prompt, their screens then parked`);
    console.log(
      kv([
        ["sessions created (at their prompt), in s", `${created} (${prompted}), ${f1(createMs / 1000)}`],
        ["RSS with their screens live, MB (per session)", `${mb(active)} (${f2((active - before) / Math.max(1, created) / MB)})`],
        ["every screen parked after, s", f1(parkMs / 1000)],
        ["RSS fresh → parked and steady, MB", `${mb(before)} → ${mb(after)}`],
        ["RSS per idle session, MB", f2(per / MB)],
        ["file descriptors per session", f1((fdCount(pid) - fdsBefore) / Math.max(1, created))],
      ]),
    );
    if (firstError) console.log(`  ${n - prompted} failed; the first: ${firstError}`);
    console.log();
    summary.push([`idle: sessions at their prompt`, `${prompted}/${n}`, `${n}`, ok(prompted === n)]);
    // The daemon's fixed cost weighs on a small count: judged at 1,000 sessions, as the bench does.
    summary.push([
      `idle: RSS per parked idle session at ${n0(n)}`,
      `${f2(per / MB)} MB`,
      "≤ 0.15 MB at 1,000",
      n >= 1000 ? ok(per <= 0.15 * MB) : "",
    ]);
  } finally {
    await d.stop();
  }
}
