// Every process of a session ends with it: background jobs, nohup'ed children, processes in other
// groups of the same terminal session; and a signal can reach what Ctrl-C would. Each test runs
// twice: with the daemon reading /proc, and with its portable ps-based process table forced on
// (TERMD_PROCESSES=ps, what macOS uses); the test itself checks through /proc either way.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { sessionMembers } from "../src/pty/processes.ts";
import { TestDaemon } from "./harness.ts";
import { alive } from "../src/platform/alive.ts";

/** A bash session that started `n` background children as `how` (e.g. "nohup sleep 1000"); their pids. */
async function shellWithChildren(c: Client, how: string, n: number): Promise<{ id: string; pid: number; children: number[] }> {
  const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await c.call("session.input", {
    session: s.id,
    text: `for i in $(seq ${n}); do ${how} >/dev/null 2>&1 & done; echo started-$(jobs -p | wc -l)\r`,
  });
  expect((await c.call("session.wait", { session: s.id, text: `started-${n}`, timeout_ms: 20_000 })).outcome).toBe("matched");
  const children = sessionMembers(s.pid!).filter((p) => p !== s.pid);
  expect(children.length).toBeGreaterThanOrEqual(n);
  return { id: s.id, pid: s.pid!, children };
}

/** The pid the session's program printed as `child-PID-end`: read whole (a read that split it cannot match). */
async function childPid(c: Client, session: string): Promise<number> {
  const w = await c.call("session.wait", { session, regex: "child-[0-9]+-end", timeout_ms: 10_000 });
  return Number(/child-([0-9]+)-end/.exec(w.match!.text)![1]);
}

for (const table of ["procfs", "ps"] as const) {
  const env = { TERMD_PROCESSES: table };
  describe(`process table: ${table}`, () => {
    test("session.stop ends 50 nohup'ed background children too, and a shell stops on its hangup", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      expect((await c.call("system.stats")).process_table).toBe(table);
      const s = await shellWithChildren(c, "nohup sleep 1000", 50);
      const info = await c.call("session.stop", { session: s.id, grace_ms: 2000 });
      // bash ends on SIGHUP: the session stopped, it was not killed after the grace.
      expect(info).toMatchObject({ state: "stopped", signal: "SIGHUP" });
      expect(s.children.filter(alive)).toEqual([]);
      expect(sessionMembers(s.pid)).toEqual([]);
    });

    test("session.remove with force, and the daemon's shutdown, end the jobs of a shell", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      const a = await shellWithChildren(c, "sleep 1000", 2);
      await c.call("session.remove", { session: a.id, force: true });
      expect(a.children.filter(alive)).toEqual([]);
      const b = await shellWithChildren(c, "nohup sleep 1000", 3);
      await c.call("system.shutdown", { grace_ms: 500 });
      await d.proc.exited;
      expect(b.children.filter(alive)).toEqual([]);
    });

    test("a child that ignores SIGHUP and SIGTERM gets SIGKILL after the grace; stop returns once it is gone", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      // The shell ends on the hangup; its child, in a group of its own, shrugs off HUP and TERM. It
      // prints its pid itself once its trap is set: the shell's echo of $! could come before the trap.
      const s = await c.call("session.create", {
        command: ["bash", "-c", 'set -m; (trap "" HUP TERM; echo child-$BASHPID-end; exec sleep 1000) & wait'],
      });
      const child = await childPid(c, s.id);
      expect(alive(child)).toBe(true);
      const info = await c.call("session.stop", { session: s.id, grace_ms: 300 });
      expect(info.state).toBe("stopped");
      expect(alive(child)).toBe(false);
      expect(sessionMembers(s.pid!)).toEqual([]);
    });

    test("what a stop under way left waiting out its grace gets SIGKILL from a stop without grace, and from the daemon's close", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      /**
       * A session whose program ends on the hangup of a stop with a long grace, leaving a child that
       * ignores it; the child's pid, printed by the child once its trap is set (were it printed by
       * the shell as $!, the stop could come before the trap, and the hangup end the child).
       */
      const leftBehind = async (name: string) => {
        await c.call("session.create", {
          name,
          command: ["bash", "-c", 'set -m; (trap "" HUP TERM; echo child-$BASHPID-end; exec sleep 1000) & wait'],
        });
        const child = await childPid(c, name);
        // Not awaited: with its long grace, it ends once what is below kills what is left (or the daemon goes).
        c.call("session.stop", { session: name, grace_ms: 600_000 }).catch(() => {});
        expect((await c.call("session.wait", { session: name, exit: true, timeout_ms: 10_000 })).outcome).not.toBe("timeout");
        expect(alive(child)).toBe(true);
        return child;
      };
      const a = await leftBehind("a");
      expect((await c.call("session.stop", { session: "a", grace_ms: 0 })).state).toBe("stopped");
      expect(alive(a)).toBe(false);
      const b = await leftBehind("b");
      // With a grace, the ended session's own stop has nothing to do: only the close kills what is left.
      await c.call("system.shutdown", { grace_ms: 1000 });
      await d.proc.exited;
      // The close sent SIGKILL as it went: the process ends a moment after.
      while (alive(b)) await new Promise((r) => setImmediate(r));
    });

    test("session.signal reaches the program by default, the foreground job with target foreground, everyone with session", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
      await c.call("session.input", { session: s.id, text: "sleep 1000\r" });
      // The sleep holds the terminal's foreground once it runs.
      let sleeper = 0;
      for (let i = 0; !sleeper; i++) {
        expect(i).toBeLessThan(400);
        sleeper = sessionMembers(s.pid!).find((p) => p !== s.pid && readFileSync(`/proc/${p}/comm`, "utf8").trim() === "sleep") ?? 0;
        if (!sleeper) await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 10 });
      }
      // An interactive bash ignores SIGINT: to the program (the default) it changes nothing.
      await c.call("session.signal", { session: s.id, signal: "INT" });
      expect((await c.call("session.wait", { session: s.id, settle_ms: 200 })).outcome).toBe("settled");
      expect(alive(sleeper)).toBe(true);
      // To the foreground process group it is Ctrl-C: the sleep ends, the shell goes on.
      await c.call("session.signal", { session: s.id, signal: "INT", target: "foreground" });
      await c.call("session.input", { session: s.id, text: "echo status-$?\r" });
      expect((await c.call("session.wait", { session: s.id, text: "status-130", timeout_ms: 10_000 })).outcome).toBe("matched");
      expect(alive(sleeper)).toBe(false);
      expect((await c.call("session.info", { session: s.id })).state).toBe("running");
      // To the whole session: the shell too (SIGHUP ends it).
      await c.call("session.signal", { session: s.id, signal: "HUP", target: "session" });
      expect((await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 10_000 })).outcome).toBe("exited");
      await expect(c.call("session.signal", { session: s.id, signal: "INT", target: "elsewhere" as "session" })).rejects.toMatchObject({
        name: "INVALID_PARAMS",
      });
    });

    test("a daemon restarting after a crash never touches a pid that was reused: the recorded start time tells them apart", async () => {
      await using d = await TestDaemon.start({ env });
      const c = await d.client();
      // Programs that outlive the dead daemon's hangup (they ignore SIGHUP), each leading its terminal session.
      const start = async () => {
        const s = await c.call("session.create", { command: ["sh", "-c", 'trap "" HUP; exec sleep 1000'] });
        for (let i = 0; readFileSync(`/proc/${s.pid}/comm`, "utf8").trim() !== "sleep"; i++) {
          expect(i).toBeLessThan(500);
          await c.call("session.wait", { session: s.id, exit: true, timeout_ms: 10 });
        }
        return s;
      };
      const own = await start();
      const reused = await start();
      try {
        d.proc.kill("SIGKILL");
        await d.proc.exited;
        expect([alive(own.pid!), alive(reused.pid!)]).toEqual([true, true]);
        // As if `reused`'s program had ended and its pid gone to a newer process: same pid, another start time.
        const db = new Database(join(d.stateDir, "termd.sqlite"));
        const row = db.query<{ record: string }, [string]>("SELECT record FROM sessions WHERE id = ?").get(reused.id)!;
        db.query("UPDATE sessions SET record = ? WHERE id = ?").run(
          JSON.stringify({ ...JSON.parse(row.record), pid_start: "1" }),
          reused.id,
        );
        db.close();
        await using again = await TestDaemon.start({ socket: d.socket, stateDir: d.stateDir, env });
        // Restoring happens before the new daemon listens: by now both were judged.
        const deadline = Date.now() + 10_000;
        while (alive(own.pid!)) {
          expect(Date.now()).toBeLessThan(deadline);
          await new Promise((r) => setImmediate(r));
        }
        expect(alive(reused.pid!)).toBe(true);
        const states = (await (await again.client()).call("session.list")).sessions.map((x) => x.state);
        expect(states).toEqual(["lost", "lost"]);
      } finally {
        for (const pid of [own.pid!, reused.pid!]) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {}
        }
      }
    });
  });
}
