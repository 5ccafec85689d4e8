// 2. Clients: many connections at once, each with its own sessions and subscriptions.
import { join } from "node:path";
import { connect, type Client } from "../../src/client/index.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { type Summary, kv, n0, ok } from "./report.ts";
import { f1, f2, percentile, prng } from "../common/measure.ts";

export async function clients(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "clients");
  const conns: Client[] = [];
  try {
    const c = d.client;
    const env = { PS1: "soak$ ", HISTFILE: join(dir, "bash_history") };
    const bash = ["bash", "--norc", "--noprofile"];
    const sessions = [
      await c.call("session.create", { command: bash, env, rows: 24, cols: 80 }),
      await c.call("session.create", { command: bash, env, rows: 24, cols: 80 }),
      await c.call("session.create", { command: ["sh", "-c", "while :; do date +%T.%N; sleep 0.05; done"], rows: 24, cols: 80 }),
      await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 }),
    ].map((s) => s.id);
    // Ready: both shells at their prompt, the clock ticking (cat is ready once it runs).
    for (const [id, text] of [
      [sessions[0]!, "soak$"],
      [sessions[1]!, "soak$"],
      [sessions[2]!, "."],
    ] as const) {
      const w = await c.call("session.wait", { session: id, text, timeout_ms: 10_000 });
      if (w.outcome !== "matched") throw new Error(`session ${id} never showed ${text} (${w.outcome})`);
    }
    const rand = prng(o.seed ^ 0x5eed);
    const methods = ["system.ping", "session.info", "session.screen"] as const;
    const lat: Record<(typeof methods)[number], number[]> = { "system.ping": [], "session.info": [], "session.screen": [] };
    let errors = 0;
    let firstError = "";
    for (let i = 0; i < o.clients; i++) conns.push(await connect(d.socket));
    const t0 = performance.now();
    await Promise.all(
      conns.map(async (cl) => {
        for (let r = 0; r < o.requests; r++) {
          const method = methods[Math.floor(rand() * 3)]!;
          const session = sessions[Math.floor(rand() * sessions.length)]!;
          const s = performance.now();
          try {
            if (method === "system.ping") await cl.call(method);
            else await cl.call(method, { session });
            lat[method].push(performance.now() - s);
          } catch (err) {
            errors++;
            firstError ||= (err as Error).message;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const all = Object.values(lat).flat();
    const total = o.clients * o.requests;
    const spread = (xs: number[]) => `${f2(percentile(xs, 0.5))} / ${f2(percentile(xs, 0.99))} / ${f2(Math.max(...xs))}`;
    console.log(
      `2. Clients: ${o.clients} clients at once × ${n0(o.requests)} requests each, one after another (ping, info, screen of 4 sessions)`,
    );
    console.log(
      kv([
        ["requests, errors", `${n0(total)}, ${n0(errors)}`],
        ["seconds, requests / s", `${f1(seconds)}, ${n0(Math.round(total / seconds))}`],
        ["latency p50 / p99 / max, ms: all", spread(all)],
        ...methods.map((m) => [`  ${m}`, spread(lat[m])]),
      ]),
    );
    if (firstError) console.log(`  the first error: ${firstError}`);
    console.log();
    summary.push([`clients: ${o.clients} × ${n0(o.requests)} requests, errors`, n0(errors), "0", ok(errors === 0)]);
    summary.push([`clients: latency p50 / p99`, `${f2(percentile(all, 0.5))} / ${f2(percentile(all, 0.99))} ms`, "", ""]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}
