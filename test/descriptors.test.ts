// File descriptors per session: an idle session holds none for its log and timing journal (they
// are reopened by the next write and lose nothing), and a daemon out of descriptors says which
// limit it hit and what to raise, and serves on. Reads /proc: Linux only.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";

const linux = process.platform === "linux";

/** What the process's descriptors point at. */
function openPaths(pid: number): string[] {
  const out: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      out.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {}
  }
  return out;
}

/** Creates sessions running cat, at most `most`, until one is refused: the ids made, and the refusal (null if none was). */
async function createUntilRefused(c: Client, most: number): Promise<{ created: string[]; refused: unknown }> {
  const created: string[] = [];
  for (let i = 0; i < most; i++) {
    try {
      created.push((await c.call("session.create", { command: ["cat"] })).id);
    } catch (refused) {
      return { created, refused };
    }
  }
  return { created, refused: null };
}

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (const deadline = performance.now() + timeoutMs; !ok(); await Bun.sleep(20)) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

test.skipIf(!linux)(
  "an idle session holds no descriptor for its log or journal; the next output reopens them and the files keep every byte",
  async () => {
    await using d = await TestDaemon.start();
    const c = await d.client();
    const s = await c.call("session.create", { command: ["cat"] });
    const log = join(d.stateDir, "logs", `${s.id}.log`);
    const journal = join(d.stateDir, "logs", `${s.id}.timing`);
    const held = () => openPaths(d.proc.pid).filter((p) => p === log || p === journal);
    await c.call("session.input", { session: s.id, text: "first-line\r" });
    await c.call("session.wait", { session: s.id, text: "first-line" });
    await until("the idle session's files to be closed", () => held().length === 0);
    await c.call("session.input", { session: s.id, text: "second-line\r" });
    await c.call("session.wait", { session: s.id, text: "second-line" });
    await until("the log to hold the second line", () => readFileSync(log, "utf8").includes("second-line"));
    await until("the files to be closed again", () => held().length === 0);
    const text = readFileSync(log, "utf8");
    expect(text.indexOf("first-line")).toBeLessThan(text.indexOf("second-line"));
    expect(text.indexOf("first-line")).toBeGreaterThanOrEqual(0);
    // Every output chunk's end offset is in the journal, the last one the log's size.
    const ends = readFileSync(journal, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("o "))
      .map((l) => Number(l.split(" ")[2]));
    expect(ends.at(-1)).toBe(Buffer.byteLength(text));
  },
);

test.skipIf(!linux)("past the open-file limit session.create names the limit and what to raise; the daemon serves on", async () => {
  await using d = await TestDaemon.start({ bin: ["sh", "-c", 'ulimit -n 150 && exec "$@"', "sh", ...SOURCE_BIN] });
  const c = await d.client();
  const { created, refused } = await createUntilRefused(c, 150);
  expect(created.length).toBeGreaterThan(0);
  expect(refused).toMatchObject({ name: "LIMIT_REACHED", details: { limit: "RLIMIT_NOFILE" } });
  expect((refused as Error).message).toContain("ulimit -n: 150");
  expect((refused as Error).message).toContain("LimitNOFILE");
  // Still serving: the sessions it has answer, and a few removed make room for another (a session
  // holds 2 descriptors, and starting one takes a few more for a moment, its log and journal too).
  expect((await c.call("session.list")).sessions.length).toBe(created.length);
  for (const id of created.slice(0, 3)) {
    await c.call("session.stop", { session: id });
    await c.call("session.remove", { session: id });
  }
  const again = await c.call("session.create", { command: ["cat"] });
  await c.call("session.input", { session: again.id, text: "still-here\r" });
  expect((await c.call("session.wait", { session: again.id, text: "still-here" })).outcome).toBe("matched");
});

test.skipIf(!linux)(
  "an idle session holds 2 descriptors, its terminal and its process handle; its program has only its terminal",
  async () => {
    // A worker starts with its first session: two sessions before counting start both of each kind.
    await using d = await TestDaemon.start({ args: ["--pty-workers", "2", "--screen-workers", "2"] });
    const c = await d.client();
    const first = await Promise.all([0, 1].map(async () => (await c.call("session.create", { command: ["cat"] })).id));
    await until("the first sessions' files to be closed", () => !openPaths(d.proc.pid).some((p) => first.some((id) => p.includes(id))));
    const before = openPaths(d.proc.pid).length;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await c.call("session.create", { command: ["cat"] })).id);
    // Idle: each one's log and journal closed again after its start.
    await until("the sessions' files to be closed", () => !openPaths(d.proc.pid).some((p) => ids.some((id) => p.includes(id))));
    expect(openPaths(d.proc.pid).length - before).toBeLessThanOrEqual(2 * ids.length);
    // The program sees its terminal on 0, 1 and 2 and no other session's.
    const info = await c.call("session.info", { session: ids[7]! });
    const fds = openPaths(info.pid!);
    expect(fds.length).toBe(3);
    expect(new Set(fds).size).toBe(1);
    expect(fds[0]).toMatch(/^\/dev\/pts\/\d+$/);
  },
);

/** Mounts a devpts of its own allowing `max` PTYs over /dev/pts and /dev/ptmx, then runs the rest: `unshare -m` keeps it the daemon's. */
const FEW_PTYS =
  'mount -t devpts -o newinstance,ptmxmode=0666,max="$0" devpts /dev/pts && mount --bind /dev/pts/ptmx /dev/ptmx && exec "$@"';

function cannotMountDevpts(): string | null {
  if (!linux) return "Linux only";
  const p = Bun.spawnSync(["unshare", "-m", "sh", "-c", FEW_PTYS, "3", "true"], { stderr: "pipe" });
  return p.exitCode === 0 ? null : `unshare -m / mount -t devpts refused: ${p.stderr.toString().trim() || `exit ${p.exitCode}`}`;
}
const noDevpts = cannotMountDevpts();
if (noDevpts) console.warn(`PTY limit test skipped: ${noDevpts}`);

test.skipIf(noDevpts !== null)(
  "past the system's PTY limit session.create names kernel.pty.max and what to raise; the daemon serves on",
  async () => {
    await using d = await TestDaemon.start({ bin: ["unshare", "-m", "sh", "-c", FEW_PTYS, "3", ...SOURCE_BIN] });
    const c = await d.client();
    const { created, refused } = await createUntilRefused(c, 10);
    expect(created.length).toBe(3);
    expect(refused).toMatchObject({ name: "LIMIT_REACHED", details: { limit: "kernel.pty.max", sessions: 3 } });
    expect((refused as Error).message).toContain("sysctl kernel.pty.max=N");
    await c.call("session.remove", { session: created[0]!, force: true });
    const again = await c.call("session.create", { command: ["cat"] });
    await c.call("session.input", { session: again.id, text: "still-here\r" });
    expect((await c.call("session.wait", { session: again.id, text: "still-here" })).outcome).toBe("matched");
  },
);
