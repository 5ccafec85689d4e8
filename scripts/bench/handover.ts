// 12. Handover: --idle-sessions shells at their prompt, then the daemon replaced in place by its own
// build (system.handover, what `termd daemon restart` calls): how long until the new image answers,
// and that every session is there with the same pid, its screen rebuilt, typing still reaching it.
import { join } from "node:path";
import { connect, type Client } from "../../src/client/index.ts";
import { inPool } from "../concurrency.ts";
import { f1, table } from "../common/measure.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { PROMPT } from "./memory.ts";
import { verdict } from "./report.ts";

const WIDTH = 20;
/** The target: every idle session handed over within this long. */
const TARGET_MS = 2000;

/** The new image's first answer: the socket stays listening, so a connect waits in its queue meanwhile. */
async function answerAfter(socket: string, startedBefore: string | undefined): Promise<Client> {
  for (;;) {
    try {
      const c = await connect(socket);
      if ((await c.call("system.ping")).started_at !== startedBefore) return c;
      c.close();
    } catch {}
    await Bun.sleep(5);
  }
}

export async function reportHandover(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const n = o.idleSessions;
  const d = await startDaemon(dir, "handover", 65536);
  let c = d.client;
  try {
    const env = { PS1: PROMPT, HISTFILE: join(dir, "bash_history") };
    const pids = new Map<string, number | null>();
    await inPool(n, WIDTH, async () => {
      const info = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env, rows: 24, cols: 80 });
      pids.set(info.id, info.pid);
      await c.call("session.wait", { session: info.id, text: PROMPT.trim(), timeout_ms: 60_000 });
    });
    const { started_at } = await c.call("system.ping");
    const t0 = performance.now();
    const { sessions } = await c.call("system.handover");
    const replyMs = performance.now() - t0;
    c = await answerAfter(d.socket, started_at);
    const answerMs = performance.now() - t0;
    const listed = (await c.call("session.list")).sessions;
    const kept = listed.filter((s) => s.state === "running" && pids.get(s.id) === s.pid).length;
    // Each screen rebuilt from its log shows the prompt, and a line typed now is answered.
    let answered = 0;
    const t1 = performance.now();
    await inPool(listed.length, WIDTH, async (i) => {
      const id = listed[i]!.id;
      await c.call("session.input", { session: id, text: `echo handed-$((${i}+1))\r` });
      const r = await c.call("session.wait", { session: id, regex: `^handed-${i + 1}$`, timeout_ms: 60_000 });
      if (r.outcome === "matched" && r.screen.lines[0]?.includes(PROMPT.trim())) answered++;
    });
    const typedMs = performance.now() - t1;
    console.log(`12. Handover: ${n} \`bash --norc --noprofile\` sessions at their prompt, the daemon replaced in place by its own build`);
    console.log(
      table([
        ["", "termd", "target"],
        ["sessions handed over (by the record) / kept running, same pid", `${sessions} / ${kept}`, `all ${n}`],
        ["system.handover's reply (the new binary's check), ms", f1(replyMs), ""],
        ["from the call until the new image answers, ms", f1(answerMs), `≤ ${TARGET_MS}`],
        ["screens rebuilt and a typed line answered, of all", `${answered}/${n}`, "each"],
        ["time to type into each and see it answered, ms", f1(typedMs), ""],
      ]),
    );
    console.log();
    verdicts.push([
      `handover: ${n} idle sessions, none lost`,
      `${kept}/${n}, ${answered} answering`,
      verdict(kept === n && answered === n),
    ]);
    verdicts.push([`handover: the new image answers within ${TARGET_MS} ms`, `${f1(answerMs)} ms`, verdict(answerMs <= TARGET_MS)]);
  } finally {
    // The connection startDaemon made went with the old image: stop through the new one.
    if (c !== d.client) await c.call("system.shutdown", { grace_ms: 500 }).catch(() => {});
    await d.stop();
  }
}
