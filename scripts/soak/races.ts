// 6. Races: many connections calling create, remove, stop, resize and more on the same few names at once.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { connect, type Client } from "../../src/client/index.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { steadyRss } from "./helpers.ts";
import { type Summary, kv, n0, ok } from "./report.ts";
import { MB, f1, mb, prng, rssPeak } from "../common/measure.ts";

/** Names the race clients fight over: few, so every call meets another one on the same session. */
const RACE_NAMES = ["race0", "race1", "race2", "race3"];
const RACE_CONNECTIONS = 16;
/** What a call on a session that another client removes, stops or has not created yet may answer. */
const RACE_EXPECTED = new Set(["SESSION_NOT_FOUND", "SESSION_NOT_RUNNING", "NAME_TAKEN", "INPUT_NOT_READ", "TIMEOUT"]);

export async function races(o: Options, dir: string, summary: Summary): Promise<void> {
  const d = await startDaemon(dir, "races");
  let conns: Client[] = [];
  try {
    const pid = d.proc.pid;
    // The pty workers start with their first sessions and stay: start each first (one session a
    // core, then removed), so the growth counts what the races leave, not the threads.
    await Promise.all(
      Array.from({ length: availableParallelism() }, async () => {
        const info = await d.client.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
        await d.client.call("session.remove", { session: info.id, force: true });
      }),
    );
    const before = await steadyRss(pid);
    const logFrom = d.stderrLines();
    const peak = rssPeak(pid);
    const rand = prng(o.seed ^ 0x7ace);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const calls = new Map<string, number>();
    const answers = new Map<string, number>();
    let unexpected = "";
    let events = 0;
    let reconnects = 0;
    let stalled = 0;
    const deadline = performance.now() + o.raceSeconds * 1000;
    // One step: a random method on a random one of the few names, as a hostile client would.
    const step = async (c: Client, closing: () => boolean): Promise<void> => {
      const session = pick(RACE_NAMES);
      const k = rand();
      let method: string;
      let call: Promise<unknown>;
      if (k < 0.12) {
        method = "session.create";
        const command = pick([
          ["cat"],
          ["sh", "-c", "while :; do echo tick; sleep 0.05; done"],
          ["sh", "-c", "printf '\\033]0;t\\007\\033[?1049h'; seq 1 5000; exec cat"],
        ]);
        // A third of them recorded: the recording and the timing journal close as the session goes.
        const record = rand() < 0.33 ? join(dir, "race-casts", `${session}.cast`) : undefined;
        call = c.call("session.create", {
          name: session,
          command,
          rows: 10 + Math.floor(rand() * 90),
          cols: 20 + Math.floor(rand() * 280),
          scrollback: pick([0, 1000, 5000]),
          record,
        });
      } else if (k < 0.22) {
        method = "session.remove";
        call = c.call("session.remove", { session, force: true });
      } else if (k < 0.27) {
        method = "session.stop";
        call = c.call("session.stop", { session, grace_ms: 200 });
      } else if (k < 0.4) {
        method = "session.resize";
        call = c.call("session.resize", { session, rows: 5 + Math.floor(rand() * 95), cols: 10 + Math.floor(rand() * 290) });
      } else if (k < 0.52) {
        method = "session.screenshot";
        call = c.call("session.screenshot", { session, format: pick(["svg", "png"] as const), scale: pick([0.5, 1, 2]) });
      } else if (k < 0.66) {
        method = "session.screen";
        call = c.call("session.screen", { session, format: pick(["text", "ansi", "cells"] as const), scrollback: pick([0, 50]) });
      } else if (k < 0.78) {
        method = "session.subscribe";
        call = c.call("session.subscribe", { session, events: ["*"], replay: 0 });
      } else if (k < 0.83) {
        method = "session.unsubscribe";
        call = c.call("session.unsubscribe", { session, events: ["*"] });
      } else if (k < 0.9) {
        method = "session.input";
        call = c.call("session.input", { session, text: "hello\r", timeout_ms: 500 });
      } else if (k < 0.95) {
        method = "session.wait";
        call = c.call("session.wait", { session, text: "tick", timeout_ms: 200 });
      } else {
        method = "session.output";
        call = c.call("session.output", { session, from: 0, max_bytes: 65536 });
      }
      calls.set(method, (calls.get(method) ?? 0) + 1);
      try {
        await call;
        answers.set("ok", (answers.get("ok") ?? 0) + 1);
      } catch (err) {
        if (closing()) return; // this side hung up on it
        const name = (err as Error).name;
        answers.set(name, (answers.get(name) ?? 0) + 1);
        if (!RACE_EXPECTED.has(name)) unexpected ||= `${method} on ${session}: ${name}: ${(err as Error).message}`;
      }
    };
    // Each connection keeps 4 calls in flight, and goes away after 2–10 s, mid-call; a new one takes
    // its place. One in 4 stops reading: what the daemon holds for it (its unread replies, its
    // subscribers' queues) must go when it closes.
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: RACE_CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          const c = await connect(d.socket);
          conns.push(c);
          c.onEvent(() => events++);
          if (rand() < 0.25) {
            c.pause();
            stalled++;
          }
          const end = Math.min(deadline, performance.now() + 2000 + rand() * 8000);
          let closing = false;
          const calls = Promise.all(
            Array.from({ length: 4 }, async () => {
              while (!closing && performance.now() < end) await step(c, () => closing);
            }),
          );
          await Promise.race([calls, Bun.sleep(end - performance.now())]);
          closing = true;
          c.close();
          conns = conns.filter((x) => x !== c);
          reconnects++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const peakBytes = peak.stop();
    // The fuzz is over: its sessions removed, its connections closed.
    const c = d.client;
    // A create a replaced connection left in flight may still finish after the first listing: what
    // is left is what stays once the calls in flight had 10 s to end.
    const cleanUntil = performance.now() + 10_000;
    let left: number;
    do {
      for (const s of (await c.call("session.list")).sessions)
        await c.call("session.remove", { session: s.id, force: true }).catch(() => {});
      left = (await c.call("session.list")).sessions.length;
    } while (left > 0 && performance.now() < cleanUntil);
    // The PNG worker stays 30 s after its last picture, for the next one (rasterizer.ts): "after"
    // is the RSS once it stayed put for longer than that.
    const t1 = performance.now();
    const after = await steadyRss(pid, 35_000, 180_000);
    const settleS = (performance.now() - t1) / 1000;
    const logged = d.stderrLines() - logFrom;
    const internal = answers.get("INTERNAL_ERROR") ?? 0;
    console.log(
      `6. Races: ${RACE_CONNECTIONS} connections × 4 calls in flight for ${f1(seconds)} s on ${RACE_NAMES.length} session names (create, remove, stop, resize, screenshot, screen, subscribe, input, wait, output)`,
    );
    console.log(
      kv([
        [
          "calls by method",
          [...calls]
            .sort((a, b) => b[1] - a[1])
            .map(([m, n]) => `${m.replace("session.", "")} ${n0(n)}`)
            .join(", "),
        ],
        [
          "answers",
          [...answers]
            .sort((a, b) => b[1] - a[1])
            .map(([m, n]) => `${m} ${n0(n)}`)
            .join(", "),
        ],
        ["events received, connections replaced (of them, stalled: never read)", `${n0(events)}, ${n0(reconnects)} (${n0(stalled)})`],
        ["daemon log lines during the run", String(logged)],
        [
          "RSS before → peak → after (sessions removed, steady for 35 s, after s), MB",
          `${mb(before)} → ${mb(peakBytes)} → ${mb(after)} (${f1(settleS)})`,
        ],
      ]),
    );
    if (unexpected) console.log(`  the first unexpected answer: ${unexpected}`);
    if (left > 0) {
      const stay = (await c.call("session.list")).sessions.map((s) => `${s.name} (${s.state})`);
      console.log(`  sessions that stayed after 10 s of removing: ${stay.join(", ")}`);
    }
    if (logged) {
      console.log(`  the daemon's log, its distinct messages:\n    ${[...d.messages].map(([m, n]) => `${n} × ${m}`).join("\n    ")}`);
      console.log(`  its last lines:\n    ${d.stderrTail.slice(-Math.min(logged, 10)).join("\n    ")}`);
    }
    console.log();
    summary.push([
      `races: internal errors, unexpected answers, log lines`,
      `${internal}, ${unexpected ? "some" : 0}, ${logged}`,
      "0, 0, 0",
      ok(internal === 0 && !unexpected && logged === 0),
    ]);
    summary.push([
      `races: RSS after, growth, sessions left`,
      `${mb(after)} MB, +${mb(after - before)} MB, ${left}`,
      "≤ +50 MB, 0",
      ok(after - before <= 50 * MB && left === 0),
    ]);
    summary.push([`races: RSS peak`, `${mb(peakBytes)} MB`, "< 400 MB", ok(peakBytes < 400 * MB)]);
  } finally {
    for (const x of conns) x.close();
    await d.stop();
  }
}
