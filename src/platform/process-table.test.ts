// The two process tables answer alike on Linux, where both can run: procfs reads /proc, ps asks
// ps(1) and lsof(8) as it does on macOS.
import { afterAll, expect, test } from "bun:test";
import { procfs } from "./procfs.ts";
import { psTable } from "./ps.ts";
import { until } from "../../scripts/concurrency.ts";

const spawned: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const p of spawned) p.kill("SIGKILL");
  await Promise.all(spawned.map((p) => p.exited));
});

test("a terminal session's members, start time and zombies: ps finds what /proc does", async () => {
  // setsid execs in place (a child of Bun leads no group): the shell's pid is the session id.
  // Its `sleep 0` becomes a zombie child of the exec'd sleep, which never reaps it.
  const p = Bun.spawn(["setsid", "sh", "-c", "sleep 0 & sleep 1000 & exec sleep 1001"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  spawned.push(p);
  const members = await until("the shell's two sleeps and its zombie", 10_000, () => {
    const m = procfs.sessionMembers(p.pid);
    return m.length === 2 && procfs.zombieChildren(p.pid).length === 1 ? m : undefined;
  });
  expect(members[0]).toBe(p.pid);
  expect(psTable.sessionMembers(p.pid)).toEqual(members);
  expect(psTable.zombieChildren(p.pid)).toEqual(procfs.zombieChildren(p.pid));
  const zombie = procfs.zombieChildren(p.pid)[0]!;
  expect([procfs.isZombie(zombie), psTable.isZombie(zombie)]).toEqual([true, true]);
  expect([procfs.isZombie(p.pid), psTable.isZombie(p.pid)]).toEqual([false, false]);
  for (const table of [procfs, psTable]) {
    const start = table.startTime(p.pid);
    expect(start).not.toBeNull();
    expect(table.startTime(p.pid)).toBe(start);
    expect(table.startTime(members[1]!)).not.toBeNull();
    // No terminal: nothing to report, nor a foreground group.
    expect(table.terminalOf(p.pid)).toBeNull();
  }
  p.kill("SIGKILL");
  await p.exited;
  expect([procfs.startTime(p.pid), psTable.startTime(p.pid), psTable.isZombie(p.pid)]).toEqual([null, null, null]);
  process.kill(members[1]!, "SIGKILL");
});

test("a process on a terminal: its device and the terminal's foreground group", async () => {
  const p = Bun.spawn(["sleep", "1000"], { terminal: { cols: 80, rows: 24 } });
  spawned.push(p);
  const tty = await until("the sleep's terminal", 10_000, () => procfs.terminalOf(p.pid) ?? undefined);
  expect(tty).toMatch(/^\/dev\/pts\/\d+$/);
  expect(psTable.terminalOf(p.pid)).toBe(tty);
  const fg = procfs.foregroundGroup(p.pid);
  expect(fg).toBe(p.pid);
  expect(psTable.foregroundGroup(p.pid)).toBe(fg);
});

test("this process's open file descriptors: lsof counts about what /proc lists", () => {
  const viaProc = procfs.openFds()!;
  const viaLsof = psTable.openFds();
  expect(viaProc).toBeGreaterThan(2);
  expect(viaLsof).not.toBeNull();
  // /proc's listing holds the fd it reads through; the two are taken at different moments.
  expect(Math.abs(viaLsof! - viaProc)).toBeLessThanOrEqual(3);
});

test("a listening Unix socket's path, as socket activation checks fd 3; any other fd is no Unix socket", () => {
  const path = `${process.env.TMPDIR ?? "/tmp"}/termd-describe-${process.pid}.sock`;
  const listener = Bun.listen({ unix: path, socket: { data() {} } });
  try {
    // Bun names the listener's fd, though its types do not.
    const fd = (listener as unknown as { fd: number }).fd;
    for (const table of [procfs, psTable]) {
      expect(table.describeFd(fd)).toEqual({ kind: "unix", path });
      expect(table.describeFd(0)?.kind).toBe("other");
    }
  } finally {
    listener.stop(true);
  }
});
