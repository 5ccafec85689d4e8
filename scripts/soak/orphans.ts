// 3. Orphans: kill -9 of a daemon, and what its sessions left running for the next one.
import { join } from "node:path";
import { until } from "../concurrency.ts";
import type { Client } from "../../src/client/index.ts";
import { strays } from "./cleanup.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { processesInSessions } from "./helpers.ts";
import { type Summary, ok } from "./report.ts";
import { f1, table } from "../common/measure.ts";

const ORPHAN_SESSIONS = 3;
const ORPHAN_PROMPT = "orphan$ ";

/** ORPHAN_SESSIONS bash sessions, each with 3 nohup'ed sleeps and a background sleep: their ids and SIDs. */
async function orphanSessions(c: Client, dir: string): Promise<{ ids: string[]; sids: Set<number>; before: number }> {
  const ids: string[] = [];
  const sids = new Set<number>();
  for (let i = 0; i < ORPHAN_SESSIONS; i++) {
    const info = await c.call("session.create", {
      command: ["bash", "--norc", "--noprofile"],
      env: { PS1: ORPHAN_PROMPT, HISTFILE: join(dir, "bash_history") },
      rows: 24,
      cols: 80,
    });
    ids.push(info.id);
    // The program leads its terminal's session: its pid is the SID.
    sids.add(info.pid!);
    const w = await c.call("session.wait", { session: info.id, text: ORPHAN_PROMPT.trim(), timeout_ms: 10_000 });
    if (w.outcome !== "matched") throw new Error(`bash gave no prompt (${w.outcome})`);
    const line =
      "nohup sleep 1000 >/dev/null 2>&1 & nohup sleep 1000 >/dev/null 2>&1 & nohup sleep 1000 >/dev/null 2>&1 & sleep 1000 & echo started-$((6*7))";
    await c.call("session.input", { session: info.id, text: line, submit: true });
    const w2 = await c.call("session.wait", { session: info.id, text: "started-42", timeout_ms: 10_000 });
    if (w2.outcome !== "matched") throw new Error(`the sleeps did not start (${w2.outcome})`);
  }
  const procs = await until(
    "every session's bash and 4 sleeps",
    10_000,
    () => {
      const p = processesInSessions(sids);
      return p.length >= 5 * ORPHAN_SESSIONS ? p : undefined;
    },
    20,
  );
  for (const p of procs) strays.set(p.pid, p.start);
  return { ids, sids, before: procs.length };
}

/** Processes left in `sids` at once, and after up to `ms` for the last to go. */
async function leftover(sids: Set<number>, ms: number): Promise<{ atOnce: number; later: number }> {
  const atOnce = processesInSessions(sids).length;
  const later = await until("", ms, () => (processesInSessions(sids).length === 0 ? 0 : undefined), 20).catch(
    () => processesInSessions(sids).length,
  );
  return { atOnce, later };
}

export async function orphans(_o: Options, dir: string, summary: Summary): Promise<void> {
  const rows: string[][] = [["case", "processes before", "left when the call returned", "left within 5 s"]];
  const results: [string, number][] = [];
  let d = await startDaemon(dir, "orphans");
  try {
    for (const [what, call] of [
      ["session.stop", (id: string) => d.client.call("session.stop", { session: id, grace_ms: 1000 })],
      ["session.remove force", (id: string) => d.client.call("session.remove", { session: id, force: true })],
    ] as const) {
      const s = await orphanSessions(d.client, dir);
      for (const id of s.ids) await call(id);
      const l = await leftover(s.sids, 5000);
      rows.push([what, String(s.before), String(l.atOnce), String(l.later)]);
      results.push([what, l.atOnce]);
    }
    // kill -9 of the daemon: its PTYs close, the shells take the hangup and end, and what ignores
    // the hangup (the nohup'ed sleeps) is left for the next daemon on the state dir to reap.
    const s = await orphanSessions(d.client, dir);
    const pid = d.proc.pid;
    d.proc.kill("SIGKILL");
    await d.proc.exited;
    d.client.close();
    await until(
      "the shells to end on the hangup",
      10_000,
      () => (processesInSessions(s.sids).some((p) => p.comm === "bash") ? undefined : true),
      20,
    );
    const lost = processesInSessions(s.sids).length;
    const t0 = performance.now();
    d = await startDaemon(dir, "orphans");
    const readyMs = performance.now() - t0;
    const l = await leftover(s.sids, 5000);
    rows.push([`kill -9 (pid ${pid}), once the shells ended`, String(s.before), String(lost), ""]);
    rows.push([`  a new daemon on its state dir (listening after ${f1(readyMs)} ms)`, "", String(l.atOnce), String(l.later)]);
    const states = (await d.client.call("session.list")).sessions.filter((x) => s.ids.includes(x.id)).map((x) => x.state);
    rows.push(["  the lost sessions' state in the new daemon", "", states.join(", "), ""]);
    // The new daemon signals them as it restores the lost sessions; they end a moment later.
    results.push(["kill -9 and a new daemon (5 s later)", l.later]);
  } finally {
    await d.stop();
  }
  console.log(
    `3. Orphans: ${ORPHAN_SESSIONS} \`bash --norc\` sessions per case, each with 3 \`nohup sleep 1000 &\` and a \`sleep 1000 &\` (processes counted by SID)`,
  );
  console.log(table(rows) + "\n");
  for (const [what, left] of results) summary.push([`orphans after ${what}`, String(left), "0", ok(left === 0)]);
}
