// `termd daemon` as a container's PID 1, in a PID namespace of its own (unshare --pid --fork
// --mount-proc): the orphans re-parented to it are reaped when they end, and SIGTERM stops it
// cleanly. Skipped, with the reason, where the kernel refuses the namespace.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "../../src/client/index.ts";
import { procfs } from "../../src/platform/procfs.ts";
import { SOURCE_BIN } from "../harness.ts";
import { until } from "../../scripts/concurrency.ts";

const probe = Bun.spawnSync(["unshare", "--pid", "--fork", "--mount-proc", "true"], { stderr: "pipe" });
const refused = probe.success ? null : `unshare --pid refused here: ${probe.stderr.toString().trim() || `exit ${probe.exitCode}`}`;
if (refused) console.warn(`skipping the PID 1 test: ${refused}`);

/** Polls `ok` (each try a fresh look at /proc) until it holds; fails after 20 s. */
const holds = (what: string, ok: () => boolean) => until(what, 20_000, () => ok() || undefined, 20);

const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};

test.skipIf(refused !== null)(
  "termd daemon as PID 1 reaps orphans and stops cleanly on SIGTERM",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "termd-pid1-"));
    const socket = join(dir, "termd.sock");
    const unshare = Bun.spawn(
      ["unshare", "--pid", "--fork", "--mount-proc", ...SOURCE_BIN, "daemon", "--socket", socket, "--state-dir", join(dir, "state")],
      {
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      },
    );
    const log = new Response(unshare.stderr).text();
    try {
      await holds("the daemon listens", () => existsSync(socket));
      const c = await connect(socket);
      expect((await c.call("system.ping")).pid).toBe(1);
      const daemon = children(unshare.pid)[0]!; // its pid outside the namespace
      // Three sleeps whose parent (a subshell) exits at once: orphans, re-parented to PID 1.
      const s = await c.call("session.create", {
        command: ["sh", "-c", "for i in 1 2 3; do (sleep 1000 &); done; echo orphaned; exec sleep 1000"],
      });
      await c.call("session.wait", { session: s.id, text: "orphaned" });
      let orphans: number[] = [];
      await holds(
        "three orphans are the daemon's children",
        () => (orphans = children(daemon).filter((p) => comm(p) === "sleep" && p !== daemon)).length >= 3,
      );
      // Session leaders are the daemon's children too; the orphans are those whose session they are not.
      orphans = orphans.filter((p) => procfs.sessionMembers(p)[0] !== p);
      expect(orphans.length).toBe(3);
      for (const p of orphans) process.kill(p, "SIGKILL");
      // Each became a zombie of the daemon, and is reaped: its pid is free again.
      await holds("the orphans are reaped", () => orphans.every((p) => procfs.isZombie(p) === null));
      expect((await c.call("session.info", { session: s.id })).state).toBe("running");
      c.close();

      process.kill(daemon, "SIGTERM");
      expect(await unshare.exited).toBe(0);
      expect(existsSync(socket)).toBe(false);
      const text = await log;
      expect(text).toContain("PID 1: reaping orphaned processes");
      expect(text).not.toContain("uncaught");
    } finally {
      unshare.kill("SIGKILL");
      await unshare.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
