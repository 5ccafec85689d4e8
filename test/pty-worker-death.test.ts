// A pty worker that dies (pty-pool.ts): its sessions end "lost" with their output and log intact,
// every process they ran is ended and reaped, nothing it held stays open, and the sessions of the
// other worker, and new ones on its replacement, go on. Nothing a client sends can end a worker,
// so the daemon runs in this process, served on its socket as ever, and the test ends one with
// PtyPool.crash. Reads /proc: Linux only.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "../src/client/index.ts";
import { Daemon } from "../src/daemon/daemon.ts";
import { DIALECTS } from "../src/dialects/index.ts";

const linux = process.platform === "linux";

/**
 * What this process's descriptors point at, sorted, pipe numbers left out: only the kinds a pty
 * worker holds (files under `under`, terminals, pipes), since other test files share the process.
 */
function descriptors(under: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(under) || target.startsWith("/dev/pt") || target.startsWith("pipe:"))
        out.push(target.replace(/\[\d+\]$/, "[]"));
    } catch {} // the directory's own descriptor, closed already
  }
  return out.sort();
}

/** Waits until `ok`, or quietly gives up after `timeoutMs`: the assertion after it says what differs. */
async function settled(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (const deadline = performance.now() + timeoutMs; !ok() && performance.now() < deadline; ) await Bun.sleep(20);
}

/** A process that exists, zombies included: one reaped is gone. */
const exists = (pid: number) => existsSync(`/proc/${pid}`);
/** Ended: gone, or a zombie left to an init that does not reap (the job is PID 1's to reap, not termd's). */
const ended = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return true;
  }
};

test.skipIf(!linux)(
  "a pty worker that dies: its sessions end lost, output and log intact, their processes ended and reaped, no descriptor left; the rest go on",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "termd-test-"));
    const stateDir = join(dir, "state");
    const daemon = await Daemon.start({
      socketPath: join(dir, "termd.sock"),
      dialects: DIALECTS,
      stateDir,
      stopGraceMs: 1000,
      ttlMs: 3_600_000,
      ptyWorkers: 2,
    });
    const c = await connect(join(dir, "termd.sock"));
    try {
      const create = async (command: string[]) => (await c.call("session.create", { command })).id;
      // Answers each line it reads: once the answer is shown, the echo before it is too.
      const reader = ["sh", "-c", 'while read -r l; do echo "got $l"; done'];
      const typed = async (session: string, text: string) => {
        await c.call("session.input", { session, text: `${text}\r` });
        expect((await c.call("session.wait", { session, text: `got ${text}` })).outcome).toBe("matched");
      };
      // A program goes to the worker with the fewest: `spare` on worker 0, `other` on worker 1,
      // and once `spare` is gone, both of the next two on worker 0.
      const spare = await create(reader);
      const other = await create(reader);
      await typed(other, "before-the-death");
      await c.call("session.stop", { session: spare });
      await c.call("session.remove", { session: spare });
      const ownFiles = (id: string) => descriptors(dir).some((p) => p.includes(id));
      // Their logs and journals are closed once idle.
      await settled(() => !ownFiles(spare) && !ownFiles(other));
      expect([ownFiles(spare), ownFiles(other)]).toEqual([false, false]);
      // Worker 0 runs and holds nothing: its replacement should hold just as much.
      const before = descriptors(dir);

      // Ignores the hangup a closed terminal sends, as does the job it leaves running.
      const ticker = await create(["sh", "-c", 'trap "" HUP; sleep 1000 & echo "job=$!"; while :; do echo tick; sleep 0.1; done']);
      const quiet = await create(reader);
      await typed(quiet, "quiet-line");
      const job = Number((await c.call("session.wait", { session: ticker, regex: "job=(\\d+)" })).match!.text.slice(4));
      const tickerPid = (await c.call("session.info", { session: ticker })).pid!;
      // A tick read before the crash: under load the first one may not be, and the log would hold only job=.
      await c.call("session.wait", { session: ticker, text: "tick" });
      // Written every 0.1 s, the ticker's log stays open in the worker (an idle one is closed).
      const tickerLog = join(stateDir, "logs", `${ticker}.log`);
      await settled(() => descriptors(dir).includes(tickerLog));
      expect(descriptors(dir)).toContain(tickerLog);

      await daemon.ptys.crash(0);

      for (const session of [ticker, quiet]) {
        expect((await c.call("session.wait", { session, exit: true })).outcome).toBe("exited");
        const info = await c.call("session.info", { session });
        expect(info).toMatchObject({ state: "lost", exit_code: null });
        expect(info.error).toContain("pty worker");
      }
      // Ended and reaped, the shell that ignores SIGHUP and the job it left running.
      await settled(() => !exists(tickerPid) && ended(job));
      expect([exists(tickerPid), ended(job)]).toEqual([false, true]);
      // What it wrote until then is readable, and in the log (which may hold a read the worker
      // died before handing on: a restart cuts it off).
      const out = await c.call("session.output", { session: ticker, from: 0 });
      const bytes = Buffer.from(out.base64, "base64");
      expect(bytes.toString()).toContain("tick");
      expect(readFileSync(tickerLog).subarray(0, bytes.length).equals(bytes)).toBe(true);
      // The dead worker's screens were rebuilt on its replacement.
      expect((await c.call("session.screen", { session: quiet })).lines.slice(0, 2)).toEqual(["quiet-line", "got quiet-line"]);
      expect((await c.call("session.screen", { session: ticker })).lines).toContain("tick");

      // The dead worker's logs and masters, and the quiet sessions' journals, are closed.
      await settled(() => descriptors(dir).join("\n") === before.join("\n"));
      expect(descriptors(dir)).toEqual(before);

      // The other worker's session goes on, its screen as it was; a new one starts on the replacement.
      await typed(other, "after-the-death");
      const lines = (await c.call("session.screen", { session: other })).lines;
      expect(lines.slice(0, 4)).toEqual(["before-the-death", "got before-the-death", "after-the-death", "got after-the-death"]);
      const fresh = await create(reader);
      await typed(fresh, "on-the-replacement");
      // A lost session runs again.
      expect((await c.call("session.restart", { session: quiet })).state).toBe("running");
      await typed(quiet, "restarted");
      expect(daemon.ptys.screenInfo()[0]!.screens).toBeGreaterThanOrEqual(3);
    } finally {
      c.close();
      await daemon.shutdown(500);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
