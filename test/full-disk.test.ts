// A real full disk: the daemon's state dir on a 2 MiB tmpfs, mounted in a mount namespace of the
// daemon's own (`unshare -m`), so it goes when the daemon does. Where the kernel or the user may
// not mount (no root, no namespaces), the test is skipped and says why.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";

/** Why a tmpfs cannot be mounted here, or null when it can. */
function cannotMount(): string | null {
  const dir = mkdtempSync(join(tmpdir(), "termd-mount-probe-"));
  try {
    const p = Bun.spawnSync(["unshare", "-m", "sh", "-c", 'mount -t tmpfs -o size=2m tmpfs "$0" && umount "$0"', dir], { stderr: "pipe" });
    return p.exitCode === 0 ? null : `unshare -m / mount -t tmpfs refused: ${p.stderr.toString().trim() || `exit ${p.exitCode}`}`;
  } catch (err) {
    return `unshare cannot run: ${(err as Error).message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const refused = cannotMount();
if (refused) console.warn(`full-disk tests skipped: ${refused}`);

/** A daemon whose state dir is a fresh 2 MiB tmpfs. */
async function onSmallDisk(): Promise<TestDaemon> {
  const stateDir = join(mkdtempSync(join(tmpdir(), "termd-full-")), "state");
  mkdirSync(stateDir);
  const mount = 'mount -t tmpfs -o size=2m,mode=0700 tmpfs "$0" && exec "$@"';
  return TestDaemon.start({ stateDir, bin: ["unshare", "-m", "sh", "-c", mount, stateDir, ...SOURCE_BIN] });
}

/** Rejects, naming the call, if `p` has not settled after `ms`: a hang fails the test with a reason instead of its timeout. */
function answers<T>(what: string, p: Promise<T>, ms = 30_000): Promise<T> {
  let timer: Timer | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} gave no answer in ${ms} ms`)), ms)));
  return Promise.race([p, hang]).finally(() => clearTimeout(timer));
}

test.skipIf(refused !== null)(
  "a full disk costs the log, never the screen: every byte reaches it, and every call answers, naming the disk",
  async () => {
    await using d = await onSmallDisk();
    const c = await d.client();
    // 5 MB without a newline, then a unique line: the wrapped rows the screen ends with depend on
    // every byte of the flood, so a byte the screen missed shows.
    const count = 714_290;
    const end = `END-${crypto.randomUUID().slice(0, 8)}`;
    const program = `import sys\nsys.stdout.write("".join("%07d" % i for i in range(${count})))\nsys.stdout.write("\\n${end}\\n")`;
    const s = await c.call("session.create", { command: ["python3", "-c", program], rows: 24, cols: 80 });
    // A wait answers by its timeout_ms at the latest (before the fix this one never did).
    const done = await answers("session.wait", c.call("session.wait", { session: s.id, exit: true, timeout_ms: 60_000 }), 75_000);
    expect(done.outcome).toBe("exited");
    const flood = Array.from({ length: count }, (_, i) => String(i).padStart(7, "0")).join("");
    const rows: string[] = [];
    for (let at = 0; at < flood.length; at += 80) rows.push(flood.slice(at, at + 80));
    const screen = await c.call("session.screen", { session: s.id });
    expect(screen.lines).toEqual([...rows.slice(-22), end, ""]);

    // The log could not keep it all, and says which disk.
    const info = await c.call("session.info", { session: s.id });
    expect(info.bytes_out).toBe(flood.length + end.length + 4);
    expect(info.log_error).toContain(d.stateDir);
    expect(info.log_error).toContain("ENOSPC");
    await d.logged(`session ${s.name}: log write failed, logging stops: ${info.log_error}`);

    // A new session cannot keep its records: a clear error that names the disk, and no stack logged.
    const failed = await answers(
      "session.create",
      c.call("session.create", { command: ["true"], env: { PADDING: "x".repeat(100_000) } }).catch((e) => e),
    );
    expect(failed.name).toBe("SPAWN_FAILED");
    expect(failed.message).toContain(`no space left on the disk holding ${d.stateDir}`);

    // Removing answers, and frees the space: a session starts again.
    await answers("session.remove", c.call("session.remove", { session: s.id, force: true }));
    const again = await c.call("session.create", { command: ["sh", "-c", "echo back"] });
    expect((await c.call("session.wait", { session: again.id, text: "back" })).outcome).toBe("matched");
    expect(d.log).not.toContain("    at ");
  },
  180_000,
);

test.skipIf(refused !== null)(
  "a read-only state dir: create fails with SPAWN_FAILED naming the folder, for a shell and for any program, and no stack is logged",
  async () => {
    // Read-only but for the lock the daemon holds (a file of its own bound over it): the daemon
    // starts, and the first thing it writes there is a session's folder.
    const base = mkdtempSync(join(tmpdir(), "termd-ro-"));
    const stateDir = join(base, "state");
    mkdirSync(stateDir);
    const mount = [
      'mount -t tmpfs -o size=1m,mode=0700 tmpfs "$0"',
      ': >"$0/daemon.lock" && : >"$0.lock"',
      'mount -o remount,ro "$0"',
      'mount --bind "$0.lock" "$0/daemon.lock"',
      'exec "$@"',
    ].join(" && ");
    try {
      await using d = await TestDaemon.start({ stateDir, bin: ["unshare", "-m", "sh", "-c", mount, stateDir, ...SOURCE_BIN] });
      const c = await d.client();
      for (const command of [["true"], ["bash"]]) {
        const failed = await c.call("session.create", { command }).catch((e) => e);
        expect(failed.name).toBe("SPAWN_FAILED");
        expect(failed.message).toContain(`a read-only file system at ${stateDir} (EROFS)`);
      }
      expect((await c.call("session.list")).sessions).toEqual([]);
      expect(d.log).not.toContain("    at ");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
);
